package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/roostapi/roost/client/wire"
)

// Schema is a JSON Schema (2020-12, as OpenAPI 3.1 uses it), as much of
// it as roost's documents need.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Type                 any                `json:"type,omitempty"` // a name, or names with "null"
	Format               string             `json:"format,omitempty"`
	Description          string             `json:"description,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	Minimum              *int               `json:"minimum,omitempty"`
	Maximum              *int               `json:"maximum,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	// Order is the order of Properties as the Go type declares them, for
	// a docs page (JSON objects keep no order).
	Order []string `json:"-"`
}

// Int points at n, for the bounds of a Schema.
func Int(n int) *int { return &n }

// Schemas turns Go types into JSON Schemas the way encoding/json writes
// them: named struct types become components (referenced by $ref, so
// that recursive shapes such as a post's quoted post terminate), fields
// follow their json tags, embedded structs are flattened, pointers may be
// null (but those tagged wire:"nonnull", see package wire), omitempty
// fields are optional and the others required. A wire.Time is a string.
type Schemas struct {
	components map[string]*Schema
	names      map[reflect.Type]string
	renamed    map[reflect.Type]string
}

// NewSchemas starts a set of components.
func NewSchemas() *Schemas {
	return &Schemas{components: map[string]*Schema{}, names: map[reflect.Type]string{}, renamed: map[reflect.Type]string{}}
}

// Name names the component of struct type t, in place of its Go name.
func (s *Schemas) Name(t reflect.Type, name string) { s.renamed[t] = name }

// Components are the named schemas made so far, by component name.
func (s *Schemas) Components() map[string]*Schema { return s.components }

var jsonNumber = reflect.TypeFor[json.Number]()

// Describer is a type whose JSON is not what its Go kind suggests (a
// custom UnmarshalJSON, say): it gives its own schema.
type Describer interface {
	OpenAPISchema() *Schema
}

var (
	describer = reflect.TypeFor[Describer]()
	timeType  = reflect.TypeFor[time.Time]()
	wireTime  = reflect.TypeFor[wire.Time]()
)

// Of is the schema of values of type t; it panics for a type JSON cannot
// hold (a channel, a function).
func (s *Schemas) Of(t reflect.Type) *Schema {
	switch {
	case t.Implements(describer):
		return reflect.Zero(t).Interface().(Describer).OpenAPISchema()
	case t == timeType: // encoding/json writes RFC 3339
		return &Schema{Type: "string", Format: "date-time"}
	case t == wireTime:
		return &Schema{Type: "string"}
	case t == jsonNumber:
		return &Schema{Type: "number"}
	case t.Kind() == reflect.Pointer:
		inner := s.Of(t.Elem())
		if inner.Ref != "" {
			return &Schema{AnyOf: []*Schema{inner, {Type: "null"}}}
		}
		inner.Type = []string{inner.Type.(string), "null"}
		return inner
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return &Schema{Type: "integer", Format: "int32"}
	case reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Slice, reflect.Array:
		return &Schema{Type: "array", Items: s.Of(t.Elem())}
	case reflect.Map:
		return &Schema{Type: "object", AdditionalProperties: s.Of(t.Elem())}
	case reflect.Interface:
		return &Schema{} // any JSON value
	case reflect.Struct:
		if t.Name() == "" { // an anonymous struct: inline
			obj := &Schema{Type: "object", Properties: map[string]*Schema{}}
			s.fields(t, obj)
			return obj
		}
		return s.ref(t)
	}
	panic("openapi: no JSON schema for " + t.String())
}

// ref is a $ref to the component of a struct type, made on first use.
func (s *Schemas) ref(t reflect.Type) *Schema {
	name, ok := s.names[t]
	if !ok {
		if name, ok = s.renamed[t]; !ok {
			name = componentName(t)
		}
		s.names[t] = name
		obj := &Schema{Type: "object", Properties: map[string]*Schema{}}
		s.components[name] = obj // before the fields: they may refer back
		s.fields(t, obj)
	}
	return &Schema{Ref: "#/components/schemas/" + name}
}

// fields adds the JSON fields of struct type t to obj.
func (s *Schemas) fields(t reflect.Type, obj *Schema) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			s.fields(f.Type, obj)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer && f.Tag.Get("wire") == "nonnull" {
			ft = ft.Elem()
		}
		obj.Properties[name] = s.Of(ft)
		obj.Order = append(obj.Order, name)
		if !strings.Contains(opts, "omitempty") {
			obj.Required = append(obj.Required, name)
		}
	}
}

// componentName names a type's component: its Go name with a capital,
// and for a generic page its element ("TweetsPageOfCompactPost").
func componentName(t reflect.Type) string {
	name := t.Name()
	if base, arg, ok := strings.Cut(name, "["); ok {
		arg = strings.TrimSuffix(arg, "]")
		arg = arg[strings.LastIndex(arg, ".")+1:]
		name = base + "Of" + capital(arg)
	}
	return capital(name)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
