package wire

import (
	"bytes"
	"fmt"
	"time"
)

// TimeLayout is how the API writes a timestamp: UTC with microseconds.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// Time is a timestamp as the API writes it: "2006-01-02T15:04:05.000000Z"
// or "2006-01-02T15:04:05+00:00" (the hosted service writes both). It
// encodes in the first form (TimeLayout).
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
		return fmt.Errorf("wire: time %s is not a string", b)
	}
	s := string(b[1 : len(b)-1])
	for _, l := range timeLayouts {
		if v, err := time.Parse(l, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return fmt.Errorf("wire: time %q is in no known form", s)
}

// MarshalJSON writes the time as the API does, the zero time included
// ("0001-01-01T00:00:00.000000Z", which UnmarshalJSON reads back as zero).
func (t Time) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(make([]byte, 0, len(TimeLayout)+8)), nil
}

// AppendJSON appends the time's JSON string to b.
func (t Time) AppendJSON(b []byte) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, TimeLayout)
	return append(b, '"')
}
