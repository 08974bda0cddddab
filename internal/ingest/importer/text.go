package importer

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// Text that no store can hold, a NUL byte or invalid UTF-8
// (social.CheckText), is repaired as it is read, not refused: each
// offending byte becomes U+FFFD, as encoding/json already reads invalid
// UTF-8 (a JSON "\u0000" decodes to a NUL byte, which PostgreSQL refuses
// and SQLite's searches cut at). The summary counts the repaired fields
// per file; Options.Strict refuses such a record instead, naming the file,
// the record and the field.

// textRepair is what repairText did to one record's values.
type textRepair struct {
	fields  int    // strings repaired
	first   string // the first one's place in the batch, e.g. Users[0].ScreenName
	problem error  // what was wrong with it (a *social.TextError)
}

// repairText repairs every string of b, at any depth, that no store can
// hold.
func repairText(b *social.Batch) textRepair {
	var r textRepair
	var path []pathStep
	r.walk(reflect.ValueOf(b).Elem(), &path)
	return r
}

// pathStep is field index of struct type typ or, when typ is nil, a
// slice index.
type pathStep struct {
	typ   reflect.Type
	index int
}

func (r *textRepair) walk(v reflect.Value, path *[]pathStep) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if err := social.CheckText(s); err != nil {
			if r.fields == 0 {
				r.first, r.problem = formatPath(*path), err
			}
			r.fields++
			v.SetString(social.RepairText(s))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			r.walk(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		if !holdsText(textPlan, v.Type().Elem()) {
			return // no text in any element (ids, times)
		}
		for i := range v.Len() {
			*path = append(*path, pathStep{index: i})
			r.walk(v.Index(i), path)
			*path = (*path)[:len(*path)-1]
		}
	case reflect.Struct:
		t := v.Type()
		for _, i := range textPlan[t] {
			*path = append(*path, pathStep{typ: t, index: i})
			r.walk(v.Field(i), path)
			*path = (*path)[:len(*path)-1]
		}
	}
}

func formatPath(path []pathStep) string {
	var b strings.Builder
	for _, s := range path {
		if s.typ == nil {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.typ.Field(s.index).Name)
	}
	return b.String()
}

// textPlan holds, by struct type reachable from social.Batch, the indices
// of its exported fields that hold text, directly or deeper (time.Time and
// relations of ids hold none). It is built once, before any import, and
// only read after: every struct type repairText meets is in it, so
// holdsText(textPlan, t) for a type inside a batch only reads it.
var textPlan = func() map[reflect.Type][]int {
	plan := map[reflect.Type][]int{}
	holdsText(plan, reflect.TypeFor[social.Batch]())
	return plan
}()

// holdsText reports whether a value of type t can hold a string that
// repairText reaches, entering the struct types it meets in plan. A map
// would hold text it cannot reach: none of the batch's types has one
// (TestRepairTextReachesEveryString).
func holdsText(plan map[reflect.Type][]int, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsText(plan, t.Elem())
	case reflect.Struct:
		if f, ok := plan[t]; ok {
			return len(f) > 0
		}
		plan[t] = nil // a type that holds itself adds nothing through itself
		var fields []int
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsText(plan, f.Type) {
				fields = append(fields, i)
			}
		}
		plan[t] = fields
		return len(fields) > 0
	}
	return false
}
