package openapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/roostapi/roost/client/wire"
)

type dollars int64

func (dollars) OpenAPISchema() *Schema { return &Schema{Type: "string"} }

type inner struct {
	N int `json:"n"`
}

type node struct {
	inner
	Name   string     `json:"name"`
	Note   string     `json:"note,omitempty"`
	At     time.Time  `json:"at"`
	Gone   *time.Time `json:"gone"`
	Cost   dollars    `json:"cost"`
	Next   *node      `json:"next"`
	Skip   string     `json:"-"`
	hidden int
}

// TestOf: schemas follow encoding/json: embedded fields flattened,
// omitempty optional, times as date-time strings, pointers nullable,
// recursive types by $ref, and a Describer's own schema.
func TestOf(t *testing.T) {
	sc := NewSchemas()
	ref := sc.Of(reflect.TypeFor[node]())
	if ref.Ref != "#/components/schemas/Node" {
		t.Fatalf("ref %q", ref.Ref)
	}
	got, _ := json.Marshal(sc.Components()["Node"])
	want := `{"type":"object","properties":{"at":{"type":"string","format":"date-time"},` +
		`"cost":{"type":"string"},"gone":{"type":["string","null"],"format":"date-time"},"n":{"type":"integer","format":"int32"},` +
		`"name":{"type":"string"},"next":{"anyOf":[{"$ref":"#/components/schemas/Node"},{"type":"null"}]},` +
		`"note":{"type":"string"}},"required":["n","name","at","gone","cost","next"]}`
	if string(got) != want {
		t.Errorf("schema of node:\n got %s\nwant %s", got, want)
	}
	if o := sc.Components()["Node"].Order; !reflect.DeepEqual(o, []string{"n", "name", "note", "at", "gone", "cost", "next"}) {
		t.Errorf("order %v", o)
	}
}

type wired struct {
	At    wire.Time `json:"at"`
	Tag   *wire.Tag `json:"tag" wire:"nonnull"`
	Maybe *wire.Tag `json:"maybe"`
}

// TestWireTypes: a wire.Time is a string, a pointer tagged wire:"nonnull"
// is not null, and a named component keeps its name.
func TestWireTypes(t *testing.T) {
	sc := NewSchemas()
	sc.Name(reflect.TypeFor[wire.Tag](), "TagEntity")
	sc.Of(reflect.TypeFor[wired]())
	got, _ := json.Marshal(sc.Components()["Wired"])
	want := `{"type":"object","properties":{"at":{"type":"string"},` +
		`"maybe":{"anyOf":[{"$ref":"#/components/schemas/TagEntity"},{"type":"null"}]},` +
		`"tag":{"$ref":"#/components/schemas/TagEntity"}},"required":["at","tag","maybe"]}`
	if string(got) != want {
		t.Errorf("schema of wired:\n got %s\nwant %s", got, want)
	}
	if sc.Components()["TagEntity"] == nil {
		t.Errorf("components %v", sc.Components())
	}
}
