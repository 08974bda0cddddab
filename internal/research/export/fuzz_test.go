package export

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/roostapi/roost/internal/social"
)

// FuzzCSVFields: whatever a post's text and its author's name and bio
// hold, a CSV export reads back with a CSV reader as one row of every
// column, each field intact (a CSV reader turns "\r\n" inside a field into
// "\n", and bare "\r" is kept).
func FuzzCSVFields(f *testing.F) {
	for _, s := range []string{"plain", "a,b", `say "hi"`, "line\nbreak", "emoji 🏳️‍🌈", "עברית \u202e", " lead", "\"\n,\r\n\""} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		if !utf8.ValidString(text) || !utf8.ValidString(name) {
			return // stored text is valid UTF-8: the writers take it as JSON
		}
		v := social.PostView{Post: social.Post{ID: 1, AuthorID: 2, Text: text, CreatedAt: time.Unix(1e9, 0)},
			Author: social.User{ID: 2, Name: name, Description: text + name}}
		var buf bytes.Buffer
		w, err := NewWriter(FormatCSV, &buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(Chunk{Views: []social.PostView{v}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatalf("%q: %v", buf.String(), err)
		}
		if len(rows) != 2 || len(rows[1]) != len(CSVColumns) {
			t.Fatalf("%d rows; %q", len(rows), buf.String())
		}
		col := func(name string) string {
			for i, c := range CSVColumns {
				if c == name {
					return rows[1][i]
				}
			}
			t.Fatalf("no column %s", name)
			return ""
		}
		folded := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
		if col("text") != folded(text) || col("author.name") != folded(name) || col("author.description") != folded(text+name) ||
			col("id") != "1" || col("author.id") != "2" {
			t.Errorf("fields changed: %q", rows[1])
		}
	})
}
