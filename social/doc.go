// Package social holds roost's domain: the values it serves (posts, users,
// lists, communities and the relations between them), the error kinds every
// layer shares, and the store interfaces that each database engine implements.
//
// It depends on nothing but the standard library and the search AST, so that
// every other package can import it.
package social
