package fault

import (
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		text, canonical string
		want            Plan
	}{
		{"", "", Plan{RetryAfter: 1}},
		{" NONE ", "", Plan{RetryAfter: 1}},
		{"retry_after=0", "", Plan{RetryAfter: 1}},
		{"429=0.1", "429=0.1", Plan{TooMany: 100, RetryAfter: 1}},
		{"500=.05, 429=0", "500=0.05", Plan{Failed: 50, RetryAfter: 1}},
		{"429=1", "429=1", Plan{TooMany: 1000, RetryAfter: 1}},
		{"429=0.125,500=0.875", "429=0.125,500=0.875", Plan{TooMany: 125, Failed: 875, RetryAfter: 1}},
		{"delay=200ms", "delay=200ms", Plan{Delay: 200 * time.Millisecond, DelayShare: 1000, RetryAfter: 1}},
		{"delay=1.5s,delay_share=0.25", "delay=1.5s,delay_share=0.25",
			Plan{Delay: 1500 * time.Millisecond, DelayShare: 250, RetryAfter: 1}},
		{"retry_after=0,429=0.2,seed=7", "429=0.2,retry_after=0,seed=7",
			Plan{TooMany: 200, RetryAfter: 0, Seed: 7, Seeded: true}},
		{"seed=0", "seed=0", Plan{Seeded: true, RetryAfter: 1}},
		{"latest_cursor_pages=3", "latest_cursor_pages=3", Plan{LatestCursorPages: 3, RetryAfter: 1}},
	} {
		got, err := Parse(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.text, got, err, tc.want)
			continue
		}
		if s := got.String(); s != tc.canonical {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.text, s, tc.canonical)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("Parse(%q) read back %+v, %v", got.String(), back, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, item, problem string }{
		{"429=0.1234", "429", "at most 3 decimals"},
		{"429=1.5", "429", "from 0 to 1"},
		{"429=-0.1", "429", "from 0 to 1"},
		{"429=abc", "429", "from 0 to 1"},
		{"500=10%", "500", "from 0 to 1"},
		{"429=0.6,500=0.5", "429", "must not exceed 1"},
		{"429=0.1,429=0.2", "429", "given twice"},
		{"delay=fast", "delay", "duration"},
		{"delay=11s", "delay", "10s"},
		{"delay=-1ms", "delay", "duration"},
		{"delay_share=0.5", "delay_share", "needs a delay"},
		{"retry_after=3601", "retry_after", "0 to 3600"},
		{"seed=-1", "seed", "whole number"},
		{"latest_cursor_pages=0", "latest_cursor_pages", "1 to"},
		{"503=0.1", "503", "is not a fault"},
		{"429", "429", "NAME=VALUE"},
		{strings.Repeat("seed=1,", 50), "", "longer than"},
	} {
		_, err := Parse(tc.text)
		var fe *Error
		if !errors.As(err, &fe) || fe.Item != tc.item || !strings.Contains(fe.Problem, tc.problem) {
			t.Errorf("Parse(%q) = %v; want item %q, problem with %q", tc.text, err, tc.item, tc.problem)
		}
	}
}

// TestSeededExact: with a seed every block of 1,000 requests of a key holds
// exactly the plan's shares, the same sequence on every run, another seed
// gives another order, and keys are counted apart.
func TestSeededExact(t *testing.T) {
	p, err := Parse("429=0.1,500=0.05,delay=1ms,delay_share=0.2,seed=42")
	if err != nil {
		t.Fatal(err)
	}
	roll := func(d *Dice, key int64, n int, p Plan) []Outcome {
		out := make([]Outcome, n)
		for i := range out {
			out[i] = d.Roll(key, p)
		}
		return out
	}
	d := NewDice()
	first := roll(d, 1, 3000, p)
	for b := range 3 {
		c := count(first[b*1000 : (b+1)*1000])
		if c.tooMany != 100 || c.failed != 50 || c.delayed != 200 {
			t.Errorf("block %d: %+v, want 100 429s, 50 500s, 200 delays", b, c)
		}
	}
	if again := roll(NewDice(), 1, 3000, p); !slices.Equal(first, again) {
		t.Error("the same seed gave another sequence")
	}
	other := p
	other.Seed = 43
	if slices.Equal(first[:1000], roll(NewDice(), 1, 1000, other)) {
		t.Error("another seed gave the same sequence")
	}
	// Key 2 starts its own count; key 1 goes on where it was.
	if !slices.Equal(roll(d, 2, 1000, p), first[:1000]) {
		t.Error("a second key did not start its own count")
	}
	if !slices.Equal(roll(d, 1, 1000, p), roll(NewDice(), 1, 4000, p)[3000:]) {
		t.Error("the first key's count did not go on")
	}
	// A change of plan starts the key's count again.
	changed := p
	changed.Failed = 60
	c := count(roll(d, 1, 1000, changed))
	if c.failed != 60 || c.tooMany != 100 {
		t.Errorf("after a change of plan: %+v", c)
	}
}

// TestUnseededRates: without a seed, draws are independent; over 100,000
// requests each count is within 5 standard deviations of its expectation
// (a false alarm about once in 3.5 million runs).
func TestUnseededRates(t *testing.T) {
	p, err := Parse("429=0.1,500=0.05,delay=1ms,delay_share=0.3")
	if err != nil {
		t.Fatal(err)
	}
	const n = 100_000
	d := NewDice()
	out := make([]Outcome, n)
	for i := range out {
		out[i] = d.Roll(9, p)
	}
	c := count(out)
	for _, tc := range []struct {
		name  string
		got   int
		share float64
	}{{"429", c.tooMany, 0.1}, {"500", c.failed, 0.05}, {"delay", c.delayed, 0.3}} {
		want, sigma := n*tc.share, math.Sqrt(n*tc.share*(1-tc.share))
		if math.Abs(float64(tc.got)-want) > 5*sigma {
			t.Errorf("%s: %d of %d, want %.0f ± %.0f", tc.name, tc.got, n, want, 5*sigma)
		}
	}
	if len(d.keys) != 0 {
		t.Error("unseeded plans keep per-key state")
	}
	if (Outcome{}) != d.Roll(9, Plan{LatestCursorPages: 2}) {
		t.Error("a plan without failures or delays changed an outcome")
	}
}

type counts struct{ tooMany, failed, delayed int }

func count(out []Outcome) counts {
	var c counts
	for _, o := range out {
		switch o.Status {
		case http.StatusTooManyRequests:
			c.tooMany++
		case http.StatusInternalServerError:
			c.failed++
		}
		if o.Delay > 0 {
			c.delayed++
		}
	}
	return c
}
