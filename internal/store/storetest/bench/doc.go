// Package bench holds the cross-engine query-mix benchmark (mix_test.go):
// the same reads on SQLite and PostgreSQL over one generated network. It is
// apart from package storetest so that the behaviour suite never depends
// on the generator.
package bench
