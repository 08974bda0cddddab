package jsonenc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/roostapi/roost/client/wire"
)

// encodingJSON is v as encoding/json writes it: an Encoder without HTML
// escaping (less its newline), or json.Marshal.
func encodingJSON(v any, html bool) ([]byte, error) {
	if html {
		return json.Marshal(v)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// same fails unless Append and Marshal write v (and a pointer to it, so
// that its fields can be addressed) as encoding/json does.
func same(t *testing.T, v any) {
	t.Helper()
	for _, x := range []any{v, ptrTo(v)} {
		for _, html := range []bool{false, true} {
			want, werr := encodingJSON(x, html)
			var got []byte
			var err error
			if html {
				got, err = Marshal(x)
			} else {
				got, err = Append([]byte("prefix"), x)
				got = bytes.TrimPrefix(got, []byte("prefix"))
			}
			if (err != nil) != (werr != nil) || (err == nil && !bytes.Equal(got, want)) {
				t.Fatalf("%T (html %v):\n got %s (%v)\nwant %s (%v)", x, html, got, err, want, werr)
			}
		}
	}
}

func ptrTo(v any) any {
	if v == nil {
		return new(any)
	}
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return p.Interface()
}

// pieces of strings that encoding/json writes with care.
var pieces = []string{"", "a", "plain text", `"`, `\`, "<a href=\"x\">&amp;</a>", "\x00", "\x01\x1f", "\b\f\n\r\t",
	"\x7f", "é", "日本", "🦉", "\u2028", "\u2029", "\xff", "\xe2\x80", "a\xc3(b", "\ufffd", "</script>"}

// fill sets v (settable) to a random value of its type, nesting at most
// depth levels of pointers, slices and maps.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeFor[wire.Time]():
		if r.IntN(5) > 0 {
			v.Set(reflect.ValueOf(wire.Time{Time: time.UnixMicro(r.Int64N(1e17) - 5e16).In(time.FixedZone("x", 3600))}))
		}
		return
	case reflect.TypeFor[json.Number]():
		v.SetString([]string{"", "0", "12.345678", "-3", "1e9"}[r.IntN(5)])
		return
	case reflect.TypeFor[json.RawMessage]():
		if r.IntN(3) > 0 {
			v.SetBytes([]byte([]string{`{ "a" : [1, 2] }`, `"<&>"`, `null`, ` 7 `}[r.IntN(4)]))
		}
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := r.Int64() - r.Int64(); !v.OverflowInt(n) && r.IntN(2) == 0 {
			v.SetInt(n)
		} else {
			v.SetInt(int64(r.IntN(200) - 100))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(300)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 1.5, -2e-9, 1e21, 123456789}[r.IntN(5)])
	case reflect.String:
		s := ""
		for range r.IntN(4) {
			s += pieces[r.IntN(len(pieces))]
		}
		v.SetString(s)
	case reflect.Pointer:
		if depth > 0 && r.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(r, v.Elem(), depth-1)
		}
	case reflect.Slice:
		if depth > 0 && r.IntN(4) > 0 {
			n := r.IntN(3)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fill(r, v.Index(i), depth-1)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(r, v.Index(i), depth)
		}
	case reflect.Map:
		if depth > 0 && r.IntN(4) > 0 {
			v.Set(reflect.MakeMap(v.Type()))
			for range r.IntN(4) {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fill(r, k, depth-1)
				fill(r, e, depth-1)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Interface:
		if depth > 0 && r.IntN(4) > 0 {
			var x any
			switch r.IntN(5) {
			case 0:
				x = pieces[r.IntN(len(pieces))]
			case 1:
				x = 1.25
			case 2:
				x = []any{"x", true, nil}
			case 3:
				x = map[string]any{"<k>": pieces[r.IntN(len(pieces))]}
			default:
				x = wire.Tag{Text: "#x", Indices: [2]int{1, 2}}
			}
			v.Set(reflect.ValueOf(x))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(r, f, depth)
			}
		}
	}
}

// pointerMarshaler marshals itself only through a pointer.
type pointerMarshaler struct{ N int }

func (p *pointerMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"n": %d}`, p.N)), nil
}

type Inner struct {
	A string `json:"a"`
	B int    `json:"b,omitempty"`
}

type inner struct {
	N json.Number `json:"n"`
	T wire.Time   `json:"t"`
}

type Exported struct {
	C bool `json:"c"`
}

// edges holds what the wire types do not, to check that it is written as
// encoding/json writes it.
type edges struct {
	Inner
	Exported    `json:"exported"`
	Skipped     string             `json:"-"`
	Float       float64            `json:"float,omitempty"`
	Byte        uint8              `json:"byte"`
	Bytes       []byte             `json:"bytes"`
	Array       [3]byte            `json:"array"`
	IntMap      map[int]string     `json:"int_map"`
	AnyMap      map[string]any     `json:"any_map,omitempty"`
	Any         any                `json:"any"`
	Anon        struct{ X, Y int } `json:"anon"`
	Marshaler   pointerMarshaler   `json:"marshaler"`
	MarshalerP  *pointerMarshaler  `json:"marshaler_p"`
	Number      json.Number        `json:"number"`
	Raw         json.RawMessage    `json:"raw,omitempty"`
	NoTag       string
	unexported  string
	Times       []wire.Time `json:"times"`
	TimePointer *wire.Time  `json:"time_pointer"`
}

// The structs encoding/json writes whole: a field quoted as a string, a
// name not plain, two fields of one name, an embedded pointer, an
// unexported embedded struct.
type (
	quoted struct {
		N int64 `json:"n,string"`
	}
	oddName struct {
		S string `json:"odd name"`
	}
	duplicate struct {
		Inner
		A string `json:"a"`
	}
	embeddedPointer struct {
		*Inner
		Z int `json:"z"`
	}
	unexportedEmbedded struct {
		inner
		Z int `json:"z"`
	}
)

// TestSameAsEncodingJSON: every wire type, and values beyond them, are
// written as encoding/json writes them.
func TestSameAsEncodingJSON(t *testing.T) {
	types := []reflect.Type{
		reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](), reflect.TypeFor[wire.TweetsPage[wire.FullPost]](),
		reflect.TypeFor[wire.TweetsPage[wire.HighlightPost]](), reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		reflect.TypeFor[wire.UsersPage[wire.Member]](), reflect.TypeFor[wire.ListsPage](), reflect.TypeFor[wire.UsersBody](),
		reflect.TypeFor[[]wire.FullPost](), reflect.TypeFor[wire.Space](), reflect.TypeFor[wire.ExtendedBio](),
		reflect.TypeFor[wire.Commented](), reflect.TypeFor[wire.Retweeted](), reflect.TypeFor[wire.Following](),
		reflect.TypeFor[wire.Balance](), reflect.TypeFor[wire.ErrorBody](), reflect.TypeFor[wire.StatusBody](),
		reflect.TypeFor[wire.MonitorBody](), reflect.TypeFor[wire.MonitorDetailsBody](), reflect.TypeFor[wire.MonitorsPage](),
		reflect.TypeFor[wire.Webhook](), reflect.TypeFor[wire.Event](), reflect.TypeFor[map[string]wire.Change](),
		reflect.TypeFor[edges](), reflect.TypeFor[quoted](), reflect.TypeFor[oddName](), reflect.TypeFor[duplicate](),
		reflect.TypeFor[embeddedPointer](), reflect.TypeFor[unexportedEmbedded](),
		reflect.TypeFor[[]any](), reflect.TypeFor[string](), reflect.TypeFor[*int](), reflect.TypeFor[struct{}](),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range types {
		if typ.Kind() == reflect.Struct && typ.PkgPath() == "github.com/roostapi/roost/client/wire" {
			if _, ok := structFields(typ, nil); !ok {
				t.Errorf("%v is left to encoding/json", typ)
			}
		}
		for range 200 {
			v := reflect.New(typ).Elem()
			fill(r, v, 4)
			same(t, v.Interface())
		}
	}
	same(t, nil)
	same(t, wire.Time{})
}

// FuzzString: a string is written as encoding/json writes it.
func FuzzString(f *testing.F) {
	for _, p := range pieces {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) { same(t, s) })
}

// TestCycle: a cycle is an error, as encoding/json's.
func TestCycle(t *testing.T) {
	type node struct {
		Next *node `json:"next"`
	}
	n := &node{}
	n.Next = n
	if _, err := Append(nil, n); err == nil {
		t.Error("a cycle encoded")
	}
}

// BenchmarkPage compares Append with encoding/json on a page of 20
// compact posts.
func BenchmarkPage(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	page := wire.TweetsPage[wire.CompactPost]{Tweets: make([]wire.CompactPost, 20)}
	for i := range page.Tweets {
		fill(r, reflect.ValueOf(&page.Tweets[i]).Elem(), 2)
	}
	b.Run("jsonenc", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = Append(buf[:0], page)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(page) //nolint:errcheck
		}
	})
}
