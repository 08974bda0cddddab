// Package gateway is roost in front of another server (roost serve
// --upstream): it answers httpapi's data routes from a page cache kept in
// the database while a page is fresh, else from upstream through package
// client (one call for identical requests in flight), under a shared
// upstream budget reserved in the database, and stores the posts and users
// of every fetched page so that every local reader sees them. By-id reads
// are answered from those stored lately, upstream asked only for the rest
// (held.go).
package gateway
