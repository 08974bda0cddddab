package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/storetest/engines"
)

// eachString calls f with every string of v that repairText should reach:
// exported fields, slice and array elements, pointees. It fails t on a map,
// which repairText does not enter.
func eachString(t *testing.T, v reflect.Value, f func(reflect.Value)) {
	switch v.Kind() {
	case reflect.String:
		f(v)
	case reflect.Pointer:
		if !v.IsNil() {
			eachString(t, v.Elem(), f)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			eachString(t, v.Index(i), f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				eachString(t, v.Field(i), f)
			}
		}
	case reflect.Map:
		t.Fatalf("%s is a map: teach repairText to enter maps", v.Type())
	}
}

// grow gives every slice one element and every pointer a value, at any
// depth (a type is not grown inside itself); path holds the types being
// grown.
func grow(v reflect.Value, path map[reflect.Type]bool) {
	t := v.Type()
	if path[t] || t == reflect.TypeFor[time.Time]() {
		return
	}
	path[t] = true
	defer delete(path, t)
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		grow(v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(t, 1, 1))
		grow(v.Index(0), path)
	case reflect.Array:
		for i := range v.Len() {
			grow(v.Index(i), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				grow(v.Field(i), path)
			}
		}
	}
}

// TestRepairTextReachesEveryString: in a batch whose every string (at any
// depth) holds a NUL byte and invalid UTF-8, repairText repairs each one,
// whatever fields the types gain.
func TestRepairTextReachesEveryString(t *testing.T) {
	var b social.Batch
	grow(reflect.ValueOf(&b).Elem(), map[reflect.Type]bool{})
	n := 0
	eachString(t, reflect.ValueOf(&b).Elem(), func(v reflect.Value) {
		v.SetString("a\x00b\xff")
		n++
	})
	if n < 30 {
		t.Fatalf("only %d strings in a grown batch", n)
	}
	r := repairText(&b)
	if r.fields != n || r.first != "Users[0].ScreenName" || r.problem == nil || r.problem.Error() != "contains a NUL byte at byte 1" {
		t.Errorf("repaired %d of %d strings, first %q (%v)", r.fields, n, r.first, r.problem)
	}
	eachString(t, reflect.ValueOf(&b).Elem(), func(v reflect.Value) {
		if v.String() != "a\uFFFDb\uFFFD" {
			t.Errorf("a string is %q after the repair", v.String())
		}
	})
	if again := repairText(&b); again.fields != 0 {
		t.Errorf("a repaired batch was repaired again: %+v", again)
	}
}

// nulRecords is a v1.1 JSONL file whose second record holds "\u0000" in
// its text and its author's fields (five fields).
const nulRecords = `{"created_at":"Wed Mar 06 08:00:00 +0000 2024","id_str":"9000000000000000040","full_text":"clean","entities":{},"user":{"id_str":"9100000000000000040","screen_name":"clean","name":"Clean"}}
{"created_at":"Wed Mar 06 08:00:01 +0000 2024","id_str":"9000000000000000041","full_text":"hello\u0000world","entities":{},"user":{"id_str":"9100000000000000041","screen_name":"ab\u0000c","name":"N\u0000","description":"d\u0000\u0000","location":"\u0000"}}
`

func writeNULRecords(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "nul.jsonl")
	if err := os.WriteFile(p, []byte(nulRecords), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImportRepairsText: an import of records holding NUL bytes stores
// them with U+FFFD in their place and counts the repaired fields by file,
// on both engines (PostgreSQL refused the batch with SQLSTATE 22021; SQLite
// stored the NUL, which its searches cut at).
func TestImportRepairsText(t *testing.T) {
	ctx := context.Background()
	for _, eng := range engines.All() {
		t.Run(eng.Name, func(t *testing.T) {
			st := eng.Open(t)
			p := writeNULRecords(t)
			sum, err := Import(ctx, st, []string{p}, Options{})
			if err != nil {
				t.Fatalf("import: %v\n%s", err, sum)
			}
			if sum.PostsInserted != 2 || sum.Skipped != 0 || sum.Repaired[p] != 5 || len(sum.Repaired) != 1 {
				t.Errorf("summary: %+v, want 2 posts and 5 fields repaired in %s", sum, p)
			}
			if s := sum.String(); !strings.Contains(s, "repaired 5 text fields in "+p) {
				t.Errorf("the summary does not tell the repair:\n%s", s)
			}
			posts, err := st.Posts(ctx, []int64{9000000000000000041})
			if err != nil || len(posts) != 1 || posts[0].Text != "hello\uFFFDworld" {
				t.Errorf("stored post: %+v, %v", posts, err)
			}
			u, err := st.User(ctx, 9100000000000000041)
			if err != nil || u.ScreenName != "ab\uFFFDc" || u.Name != "N\uFFFD" || u.Description != "d\uFFFD\uFFFD" || u.Location != "\uFFFD" {
				t.Errorf("stored user: %+v, %v", u, err)
			}
			if found, err := st.UserByScreenName(ctx, "ab\uFFFDc"); err != nil || found.ID != u.ID {
				t.Errorf("the repaired screen name does not find its user: %+v, %v", found, err)
			}
		})
	}
}

// TestStrictRefusesUnstorableText: --strict refuses a record holding a NUL
// byte, naming the file, the line and the field, and writes nothing.
func TestStrictRefusesUnstorableText(t *testing.T) {
	rec := newRecorder()
	p := writeNULRecords(t)
	sum, err := Import(context.Background(), rec, []string{p}, Options{Strict: true})
	want := p + ":2: Users[0].ScreenName contains a NUL byte at byte 2"
	if !errors.Is(err, errStrict) || !strings.Contains(err.Error(), want) {
		t.Fatalf("strict import: %v, want errStrict naming %q", err, want)
	}
	if rec.writes != 0 || sum.Repaired != nil {
		t.Errorf("strict import wrote %d batches, repaired %v", rec.writes, sum.Repaired)
	}
}

// TestDecodePageRepairsText: a page read by harvest or the gateway with
// "\u0000" in it comes out repaired.
func TestDecodePageRepairsText(t *testing.T) {
	b, err := DecodePage([]byte(`{"tweets":[{"tweet_created_at":"2024-03-07T12:00:00.000000Z","id_str":"9000000000000000030",` +
		`"full_text":"a\u0000b","user":{"id_str":"9100000000000000030","name":"E","screen_name":"e\u0000"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := repairText(b); r.fields != 0 || len(b.Posts) != 1 || b.Posts[0].Text != "a\uFFFDb" {
		t.Errorf("page: %+v, still to repair: %+v", b, r)
	}
}
