// Package social holds roost's domain: the values it serves (posts, users,
// lists, communities and the relations between them), the error kinds every
// layer shares, and the store interfaces that each database engine implements.
//
// It depends on nothing but the standard library, the search AST and the
// rule of what text can be stored (internal/storable), so that every other
// package can import it.
package social
