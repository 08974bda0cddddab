// Package wire is the wire format of roost's API: the JSON shapes it
// answers with, as Go types with their json tags, shared by the server
// (which fills them) and package client (which reads them). It imports
// only the standard library.
//
// Encoded with encoding/json, a value is the bytes the server sends, field
// for field and in order. Every timestamp is a Time. A pointer field is
// null when nil, except those tagged wire:"nonnull": the server always
// fills them, and they are pointers for readers that decode any shape of a
// post into a FullPost.
package wire
