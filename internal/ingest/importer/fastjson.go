package importer

import (
	"encoding/json"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// unmarshalFast decodes a record with github.com/goccy/go-json, which
// fills the same structs about four times faster than encoding/json (it
// compiles a decoder per type instead of walking types by reflection, and
// scans the input once instead of validating it first).
//
// encoding/json stays the reference: input that is not valid UTF-8 (which
// it repairs with U+FFFD) goes to it directly, and so does any input the
// fast decoder refuses (decoded again into a fresh value), so the errors
// reported are encoding/json's. The fast decoder is more lenient in two
// ways, both harmless here: it matches object keys exactly where
// encoding/json also takes other cases ("ID_STR" for "id_str"; the formats
// always write keys in lower case), and it hands malformed numbers such
// as "01" to flexInt, which reads them. A panic of the fast decoder is
// caught by safeValue, as any decoder's.
func unmarshalFast[T any](raw []byte, v *T) error {
	if !utf8.Valid(raw) {
		return json.Unmarshal(raw, v)
	}
	if err := gojson.Unmarshal(raw, v); err != nil {
		var zero T
		*v = zero
		return json.Unmarshal(raw, v)
	}
	return nil
}
