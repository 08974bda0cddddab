// Package jsonenc writes JSON exactly as encoding/json does, faster for
// the API's answers: a wire.Time is appended in place, where encoding/json
// would call its MarshalJSON and check the result byte by byte. The
// encoders of the kinds the wire types use (structs, pointers, slices,
// arrays, maps with string keys, strings, integers, booleans and
// interfaces holding them) are built once a type by reflection; any other
// value (a float, a json.Number, a json.RawMessage, another Marshaler, a
// struct whose fields it does not map alike) is written by encoding/json
// itself.
package jsonenc

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/roostapi/roost/client/wire"
)

// Append appends v to dst as an encoding/json Encoder with
// SetEscapeHTML(false) writes it, without the newline.
func Append(dst []byte, v any) ([]byte, error) { return appendValue(dst, v, false) }

// Marshal returns v as json.Marshal does (<, > and & escaped), encoded
// in a pooled buffer and copied once, as json.Marshal does.
func Marshal(v any) ([]byte, error) {
	bp, _ := scratch.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b, err := appendValue((*bp)[:0], v, true)
	var out []byte
	if err == nil {
		out = bytes.Clone(b)
	}
	if cap(b) <= maxScratch {
		*bp = b
		scratch.Put(bp)
	}
	return out, err
}

// scratch recycles Marshal's buffers, up to maxScratch bytes.
var scratch sync.Pool

const maxScratch = 1 << 20

func appendValue(dst []byte, v any, html bool) ([]byte, error) {
	e := state{b: dst, html: html}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return append(dst, "null"...), nil
	}
	encoderOf(rv.Type())(&e, rv)
	return e.b, e.err
}

// state is one encoding under way.
type state struct {
	b     []byte
	html  bool // escape <, > and & in strings, as json.Marshal does
	depth int  // of pointers, slices and maps: past maxDepth encoding/json takes over (and finds a cycle)
	err   error
}

// maxDepth is encoding/json's nesting before it looks for cycles.
const maxDepth = 1000

type encoderFunc func(e *state, v reflect.Value)

var encoders sync.Map // reflect.Type → encoderFunc

// encoderOf is the encoder of type t, built on first use. A recursive
// type meets itself through an indirect encoder while it is built.
func encoderOf(t reflect.Type) encoderFunc {
	if f, ok := encoders.Load(t); ok {
		return f.(encoderFunc)
	}
	built := sync.OnceValue(func() encoderFunc { return newEncoder(t) })
	f, loaded := encoders.LoadOrStore(t, encoderFunc(func(e *state, v reflect.Value) { built()(e, v) }))
	if loaded {
		return f.(encoderFunc)
	}
	enc := built()
	encoders.Store(t, enc)
	return enc
}

var (
	timeType          = reflect.TypeFor[wire.Time]()
	numberType        = reflect.TypeFor[json.Number]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func newEncoder(t reflect.Type) encoderFunc {
	if t == timeType {
		return timeEncoder
	}
	for _, m := range []reflect.Type{marshalerType, textMarshalerType} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return fallback
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolEncoder
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intEncoder
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintEncoder
	case reflect.String:
		if t == numberType {
			return fallback
		}
		return stringEncoder
	case reflect.Interface:
		return interfaceEncoder
	case reflect.Pointer:
		return pointerEncoder(encoderOf(t.Elem()))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // base64, or bytes that marshal themselves
			return fallback
		}
		return nullable(arrayEncoder(encoderOf(t.Elem())))
	case reflect.Array:
		return arrayEncoder(encoderOf(t.Elem()))
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fallback
		}
		return mapEncoder(encoderOf(t.Elem()))
	case reflect.Struct:
		if fields, ok := structFields(t, nil); ok {
			return structEncoder(fields)
		}
	}
	return fallback
}

// fallback has encoding/json write v, as it would within the whole: a
// value that can be addressed is given by its address, so that methods
// on the pointer apply as they would there.
func fallback(e *state, v reflect.Value) {
	if e.err != nil {
		return
	}
	var x any
	if v.CanAddr() {
		x = v.Addr().Interface()
	} else {
		x = v.Interface()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(e.html)
	if err := enc.Encode(x); err != nil {
		e.err = err
		return
	}
	e.b = append(e.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// timeEncoder writes a wire.Time: what its MarshalJSON returns.
func timeEncoder(e *state, v reflect.Value) {
	t, _ := reflect.TypeAssert[wire.Time](v)
	e.b = t.AppendJSON(e.b)
}

func boolEncoder(e *state, v reflect.Value) { e.b = strconv.AppendBool(e.b, v.Bool()) }

func intEncoder(e *state, v reflect.Value) { e.b = strconv.AppendInt(e.b, v.Int(), 10) }

func uintEncoder(e *state, v reflect.Value) { e.b = strconv.AppendUint(e.b, v.Uint(), 10) }

func stringEncoder(e *state, v reflect.Value) { e.b = appendString(e.b, v.String(), e.html) }

func interfaceEncoder(e *state, v reflect.Value) {
	if v.IsNil() {
		e.b = append(e.b, "null"...)
		return
	}
	encoderOf(v.Elem().Type())(e, v.Elem())
}

// nested encodes v with enc one level deeper, or has encoding/json do it
// past maxDepth.
func (e *state) nested(v reflect.Value, enc encoderFunc) {
	if e.depth++; e.depth > maxDepth {
		fallback(e, v)
	} else {
		enc(e, v)
	}
	e.depth--
}

// nullable writes null for a nil pointer, slice or map, else enc one
// level deeper.
func nullable(enc encoderFunc) encoderFunc {
	return func(e *state, v reflect.Value) {
		if v.IsNil() {
			e.b = append(e.b, "null"...)
			return
		}
		e.nested(v, enc)
	}
}

func pointerEncoder(elem encoderFunc) encoderFunc {
	return nullable(func(e *state, v reflect.Value) { elem(e, v.Elem()) })
}

func arrayEncoder(elem encoderFunc) encoderFunc {
	return func(e *state, v reflect.Value) {
		e.b = append(e.b, '[')
		for i := range v.Len() {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			elem(e, v.Index(i))
		}
		e.b = append(e.b, ']')
	}
}

// mapEncoder writes a map with string keys, in the keys' order.
func mapEncoder(elem encoderFunc) encoderFunc {
	return nullable(func(e *state, v reflect.Value) {
		keys := make([]reflect.Value, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			keys = append(keys, it.Key())
		}
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		e.b = append(e.b, '{')
		for i, k := range keys {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = appendString(e.b, k.String(), e.html)
			e.b = append(e.b, ':')
			elem(e, v.MapIndex(k))
		}
		e.b = append(e.b, '}')
	})
}

// field is one JSON member of a struct.
type field struct {
	index     []int  // the path of struct fields to it
	key       string // `"name":`
	omitEmpty bool
	enc       encoderFunc
}

// structFields lists the members of struct type t (its fields at index
// within the outer struct) as encoding/json does, embedded structs
// flattened in place; ok is false for a struct that needs the rest of
// encoding/json's rules (a tag option other than omitempty, an embedded
// pointer, an unexported or tagged embedded struct, a name that is not a
// plain identifier, two members of one name).
func structFields(t reflect.Type, index []int) (fields []field, ok bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !plainName(name) || (opts != "" && opts != "omitempty") {
			return nil, false
		}
		at := append(slices.Clone(index), i)
		if sf.Anonymous {
			switch {
			case sf.Type.Kind() == reflect.Struct && name == "" && sf.IsExported():
				inner, ok := structFields(sf.Type, at)
				if !ok {
					return nil, false
				}
				fields = append(fields, inner...)
				continue
			case sf.Type.Kind() == reflect.Struct || sf.Type.Kind() == reflect.Pointer:
				return nil, false
			case !sf.IsExported():
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fields = append(fields, field{index: at, key: `"` + name + `":`, omitEmpty: opts == "omitempty", enc: encoderOf(sf.Type)})
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.key] {
			return nil, false
		}
		seen[f.key] = true
	}
	return fields, true
}

// plainName reports whether a tag's name is written as it is, escaped or
// not: letters, digits and _ . -.
func plainName(s string) bool {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func structEncoder(fields []field) encoderFunc {
	return func(e *state, v reflect.Value) {
		next := byte('{')
		for i := range fields {
			f := &fields[i]
			fv := v
			for _, x := range f.index {
				fv = fv.Field(x)
			}
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			e.b = append(e.b, next)
			next = ','
			e.b = append(e.b, f.key...)
			f.enc(e, fv)
		}
		if next == '{' {
			e.b = append(e.b, '{')
		}
		e.b = append(e.b, '}')
	}
}

// isEmpty is omitempty's test, as encoding/json's.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// appendString appends s as a JSON string as encoding/json does: quotes,
// backslashes and control characters escaped (\b \f \n \r \t by name),
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped, and with html <, >
// and & escaped.
func appendString(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
