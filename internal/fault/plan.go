// Package fault is roost's sandbox that fails on request: a Plan, read
// from a request's X-Roost-Fault header or a key's stored setting, names
// the share of that key's requests answered 429 or 500, a delay added to
// a share of them, and after how many pages a Latest search stops giving
// cursors; Dice decide, request by request, what each one gets.
package fault

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Header is the request header that carries a plan for one request. It
// replaces the key's stored plan for that request; "none" turns faults
// off for it.
const Header = "X-Roost-Fault"

// Bounds of a plan.
const (
	// PerMille is what a share is counted in: shares are decimals from 0
	// to 1 with at most three decimals.
	PerMille = 1000
	// MaxDelay is the longest delay a plan may add.
	MaxDelay = 10 * time.Second
	// MaxRetryAfter is the longest Retry-After of an injected 429, in
	// seconds.
	MaxRetryAfter = 3600
	// DefaultRetryAfter is the Retry-After of an injected 429 unless the
	// plan says otherwise, in seconds.
	DefaultRetryAfter = 1
	// MaxCursorPages bounds latest_cursor_pages.
	MaxCursorPages = 1_000_000
	// MaxText bounds the text of a plan.
	MaxText = 256
)

// Plan is what a key's requests get. The zero Plan injects nothing.
type Plan struct {
	// TooMany and Failed are the per-mille shares of requests answered
	// 429 and 500 (together at most PerMille).
	TooMany, Failed int
	// Delay is added to DelayShare per mille of requests.
	Delay      time.Duration
	DelayShare int
	// RetryAfter is the Retry-After of an injected 429 in seconds.
	RetryAfter int
	// Seed, when Seeded, makes the sequence of outcomes deterministic:
	// every block of PerMille consecutive requests of the key holds
	// exactly the plan's shares (see Dice).
	Seed   uint64
	Seeded bool
	// LatestCursorPages, when above 0, is the last page of a Latest
	// search that carries a next_cursor plus one: page N has none.
	LatestCursorPages int
}

// None is the text of a plan that injects nothing.
const None = "none"

// Syntax is the plan language in one line, for errors and help.
const Syntax = "comma-separated items: 429=SHARE, 500=SHARE, delay=DURATION, delay_share=SHARE, " +
	"retry_after=SECONDS, seed=N, latest_cursor_pages=N (SHARE: 0 to 1, at most 3 decimals), or none"

// Error is a plan that cannot be read: Item names the part at fault.
type Error struct {
	Item    string
	Problem string
}

func (e *Error) Error() string {
	if e.Item == "" {
		return e.Problem
	}
	return e.Item + ": " + e.Problem
}

// Parse reads a plan. The empty text and "none" inject nothing. Items may
// come in any order, each at most once.
func Parse(text string) (Plan, error) {
	p := Plan{RetryAfter: DefaultRetryAfter}
	text = strings.TrimSpace(text)
	if text == "" || strings.EqualFold(text, None) {
		return p, nil
	}
	if len(text) > MaxText {
		return p, &Error{Problem: fmt.Sprintf("is longer than %d characters", MaxText)}
	}
	seen := map[string]bool{}
	delayShare := -1
	p.RetryAfter = -1
	for item := range strings.SplitSeq(text, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
		if !ok || name == "" {
			return Plan{}, &Error{Item: strings.TrimSpace(item), Problem: "want NAME=VALUE; " + Syntax}
		}
		if seen[name] {
			return Plan{}, &Error{Item: name, Problem: "is given twice"}
		}
		seen[name] = true
		var err error
		switch name {
		case "429":
			p.TooMany, err = share(value)
		case "500":
			p.Failed, err = share(value)
		case "delay_share":
			delayShare, err = share(value)
		case "delay":
			p.Delay, err = delay(value)
		case "retry_after":
			p.RetryAfter, err = number(value, 0, MaxRetryAfter)
		case "seed":
			p.Seed, err = strconv.ParseUint(value, 10, 64)
			if err != nil {
				err = errors.New("must be a whole number from 0 to 2^64-1")
			}
			p.Seeded = true
		case "latest_cursor_pages":
			p.LatestCursorPages, err = number(value, 1, MaxCursorPages)
		default:
			return Plan{}, &Error{Item: name, Problem: "is not a fault; " + Syntax}
		}
		if err != nil {
			return Plan{}, &Error{Item: name, Problem: fmt.Sprintf("%v, got %q", err, value)}
		}
	}
	if p.TooMany+p.Failed > PerMille {
		return Plan{}, &Error{Item: "429", Problem: "429 and 500 together must not exceed 1"}
	}
	switch {
	case delayShare >= 0 && p.Delay == 0:
		return Plan{}, &Error{Item: "delay_share", Problem: "needs a delay"}
	case delayShare >= 0:
		p.DelayShare = delayShare
	case p.Delay > 0:
		p.DelayShare = PerMille
	}
	if p.RetryAfter < 0 || p.TooMany == 0 {
		p.RetryAfter = DefaultRetryAfter // only an injected 429 has one
	}
	return p, nil
}

// share reads a decimal from 0 to 1 with at most three decimals, in per
// mille.
func share(s string) (int, error) {
	bad := errors.New("must be a decimal from 0 to 1 with at most 3 decimals")
	whole, frac, _ := strings.Cut(s, ".")
	if (whole != "0" && whole != "1" && whole != "") || len(frac) > 3 || (whole == "" && frac == "") {
		return 0, bad
	}
	n := 0
	if whole == "1" {
		n = PerMille
	}
	for i := range 3 {
		d := 0
		if i < len(frac) {
			if frac[i] < '0' || frac[i] > '9' {
				return 0, bad
			}
			d = int(frac[i] - '0')
		}
		n += d * []int{100, 10, 1}[i]
	}
	if n > PerMille {
		return 0, bad
	}
	return n, nil
}

func delay(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > MaxDelay {
		return 0, fmt.Errorf("must be a duration from 0s to %s (e.g. 200ms)", MaxDelay)
	}
	return d, nil
}

func number(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be a whole number from %d to %d", lo, hi)
	}
	return n, nil
}

// Active reports whether the plan changes any answer.
func (p Plan) Active() bool { return p.Rolls() || p.LatestCursorPages > 0 }

// Rolls reports whether requests under the plan need the dice: it fails
// or delays a share of them.
func (p Plan) Rolls() bool { return p.TooMany > 0 || p.Failed > 0 || (p.Delay > 0 && p.DelayShare > 0) }

// String is the plan's canonical text (what Parse reads back to the same
// plan): items in a fixed order, defaults left out; "" for the zero Plan.
func (p Plan) String() string {
	var items []string
	if p.TooMany > 0 {
		items = append(items, "429="+shareText(p.TooMany))
	}
	if p.Failed > 0 {
		items = append(items, "500="+shareText(p.Failed))
	}
	if p.Delay > 0 {
		items = append(items, "delay="+p.Delay.String())
		if p.DelayShare != PerMille {
			items = append(items, "delay_share="+shareText(p.DelayShare))
		}
	}
	if p.RetryAfter != DefaultRetryAfter && p.TooMany > 0 {
		items = append(items, "retry_after="+strconv.Itoa(p.RetryAfter))
	}
	if p.Seeded {
		items = append(items, "seed="+strconv.FormatUint(p.Seed, 10))
	}
	if p.LatestCursorPages > 0 {
		items = append(items, "latest_cursor_pages="+strconv.Itoa(p.LatestCursorPages))
	}
	return strings.Join(items, ",")
}

// shareText writes a per-mille share as a decimal: 100 → "0.1".
func shareText(n int) string {
	if n == PerMille {
		return "1"
	}
	s := strings.TrimRight(fmt.Sprintf("%03d", n), "0")
	if s == "" {
		return "0"
	}
	return "0." + s
}
