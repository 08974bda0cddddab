// Package roosttest starts a roost inside a Go test, the way
// net/http/httptest starts an HTTP server: each call of New serves a world
// of its own (a SQLite file in a new temporary directory, or a fresh
// schema of a PostgreSQL database, both removed afterwards) on loopback ports, with a funded key,
// and stops when the test ends, so tests that call t.Parallel each get
// theirs.
//
//	srv := roosttest.New(t, roosttest.Fixtures("testdata/world.json"))
//	c := srv.Client()                                   // the public Go client, with srv.Key
//	p := srv.Post(roosttest.Fields{"author": "alice", "full_text": "hello #fixture"})
//	srv.DeletePost(p.ID)
//
// The world control (the admin API's /admin/world routes) is a method
// each: CreateUser, PatchUser, Post, PatchPost, DeletePost, DeleteUser,
// Follow, Unfollow, Like, Unlike, Snapshot, Restore, LoadFixtures. Their
// bodies are the fixtures' fields, named as in the API's JSON, and their
// answers the public shapes of package client/wire. A change the server
// refuses fails the test (t.Fatalf with the server's message), so these
// methods must be called from the test's goroutine; Admin sends any
// admin request and returns its status and body, for a test of a refusal.
//
// Start starts one outside a test (an example, a TestMain shared by
// tests), as httptest.NewServer does; its caller closes it, and its world
// control panics instead of failing a test.
//
// The server is `roost serve`'s own wiring (the public API, the monitors
// and their webhook deliveries, the admin API), with these differences,
// all for tests: the world is empty but for the fixtures (no demo
// network); the key holds 100 USD and has no rate limit (RateLimit sets
// one); webhooks may reach loopback addresses, as an httptest receiver's;
// a failed delivery is retried after 100 ms, not 1 s; and nothing is
// logged unless Logger gives a logger.
//
// Unlike package client, importing roosttest pulls in the server and both
// database drivers: import it from tests only.
package roosttest
