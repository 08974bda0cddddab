// Package client is a Go client of any server that speaks roost's API: the
// hosted social-data service it imitates, or a roost. It has one typed
// method per endpoint (the data endpoints, roost's research endpoints, the
// monitors and webhooks), iterators over every paged endpoint, typed
// errors, retries with backoff on 429 and 5xx, and a spend budget it never
// exceeds. Exports and networks stream as files (Stream). Its answers are
// the types of package wire, the API's shapes, which the server fills
// too. It imports no server package: using it pulls in no database
// driver.
//
// Ids are int64 decoded exactly (never through float64); timestamps read
// both forms the service writes.
//
// The examples run against a roost started in the test process: go test
// -run Example -v.
package client
