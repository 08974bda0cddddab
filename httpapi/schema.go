package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// schema is a JSON Schema (2020-12, as OpenAPI 3.1 uses it), as much of
// it as roost's documents need.
type schema struct {
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
	Properties           map[string]*schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *schema            `json:"additionalProperties,omitempty"`
	Items                *schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	AnyOf                []*schema          `json:"anyOf,omitempty"`
	// order is the order of Properties as the Go type declares them, for
	// the docs page (JSON objects keep no order).
	order []string
}

func intp(n int) *int { return &n }

// schemas turns Go types into JSON Schemas the way encoding/json writes
// them: named struct types become components (referenced by $ref, so
// that recursive shapes such as a post's quoted post terminate), fields
// follow their json tags, embedded structs are flattened, pointers may be
// null, omitempty fields are optional and the others required.
type schemas struct {
	components map[string]*schema
	names      map[reflect.Type]string
}

func newSchemas() *schemas {
	return &schemas{components: map[string]*schema{}, names: map[reflect.Type]string{}}
}

var jsonNumber = reflect.TypeFor[json.Number]()

// of is the schema of values of type t.
func (s *schemas) of(t reflect.Type) *schema {
	switch {
	case t == jsonNumber:
		return &schema{Type: "number"}
	case t.Kind() == reflect.Pointer:
		inner := s.of(t.Elem())
		if inner.Ref != "" {
			return &schema{AnyOf: []*schema{inner, {Type: "null"}}}
		}
		inner.Type = []string{inner.Type.(string), "null"}
		return inner
	}
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return &schema{Type: "integer", Format: "int32"}
	case reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &schema{Type: "integer", Format: "int64"}
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}
	case reflect.String:
		return &schema{Type: "string"}
	case reflect.Slice, reflect.Array:
		return &schema{Type: "array", Items: s.of(t.Elem())}
	case reflect.Map:
		return &schema{Type: "object", AdditionalProperties: s.of(t.Elem())}
	case reflect.Interface:
		return &schema{} // any JSON value
	case reflect.Struct:
		if t.Name() == "" { // an anonymous struct: inline
			obj := &schema{Type: "object", Properties: map[string]*schema{}}
			s.fields(t, obj)
			return obj
		}
		return s.ref(t)
	}
	panic("httpapi: no JSON schema for " + t.String())
}

// ref is a $ref to the component of a struct type, made on first use.
func (s *schemas) ref(t reflect.Type) *schema {
	name, ok := s.names[t]
	if !ok {
		name = componentName(t)
		s.names[t] = name
		obj := &schema{Type: "object", Properties: map[string]*schema{}}
		s.components[name] = obj // before the fields: they may refer back
		s.fields(t, obj)
	}
	return &schema{Ref: "#/components/schemas/" + name}
}

// fields adds the JSON fields of struct type t to obj.
func (s *schemas) fields(t reflect.Type, obj *schema) {
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
		obj.Properties[name] = s.of(f.Type)
		obj.order = append(obj.order, name)
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
