package wire

import (
	"encoding/json"
	"testing"
	"time"
)

// TestTime: a time is written in the API's form, the zero time included,
// and both forms (and null) read back.
func TestTime(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600)), `"2024-01-02T02:04:05.000006Z"`},
		{time.Time{}, `"0001-01-01T00:00:00.000000Z"`},
	} {
		b, err := json.Marshal(Time{Time: tc.in})
		if err != nil || string(b) != tc.want {
			t.Errorf("%v: %s %v, want %s", tc.in, b, err, tc.want)
		}
		var back Time
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(tc.in) {
			t.Errorf("%s read back as %v (%v)", b, back, err)
		}
	}
	var tm Time
	if err := json.Unmarshal([]byte(`"2024-01-02T03:04:05+00:00"`), &tm); err != nil || tm.Hour() != 3 {
		t.Errorf("hosted form: %v %v", tm, err)
	}
	if err := json.Unmarshal([]byte(`null`), &tm); err != nil || !tm.IsZero() {
		t.Errorf("null: %v %v", tm, err)
	}
}

// TestFullPostReadsEveryShape: a compact post and a highlight decode into
// a FullPost, the ids they lack left 0.
func TestFullPostReadsEveryShape(t *testing.T) {
	for _, shape := range []any{
		CompactPost{IDStr: "7", User: CompactProfile{ProfileFields{IDStr: "9"}}},
		HighlightPost{ID: 7, IDStr: "7", User: &Profile{ID: 9, ProfileFields: ProfileFields{IDStr: "9"}}},
	} {
		b, _ := json.Marshal(shape)
		var p FullPost
		if err := json.Unmarshal(b, &p); err != nil || p.IDStr != "7" || p.User == nil || p.User.IDStr != "9" {
			t.Errorf("%T: %+v %v", shape, p, err)
		}
	}
}
