package client

import (
	"bytes"
	"fmt"
	"time"
)

// Time is a timestamp as the API writes it: "2006-01-02T15:04:05.000000Z"
// or "2006-01-02T15:04:05+00:00" (both occur). It encodes in the first form.
type Time struct{ time.Time }

// timeLayouts are the forms Time reads, most common first.
var timeLayouts = [...]string{"2006-01-02T15:04:05.999999Z07:00", time.RFC3339Nano, time.RubyDate}

// UnmarshalJSON reads a JSON string in either form; null is the zero time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("client: time %s is not a string", b)
	}
	s := string(b[1 : len(b)-1])
	for _, l := range timeLayouts {
		if v, err := time.Parse(l, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return fmt.Errorf("client: time %q is in no known form", s)
}

// MarshalJSON writes the time as the API does.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format("2006-01-02T15:04:05.000000Z") + `"`), nil
}
