// Package billing holds the money side of roost on top of social.Accounts:
// API keys (creation, digests, the Authorization header), exact micro-USD
// amounts, charging a page of results, and per-key rate limiting.
package billing
