package live

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxPerSecond bounds a rate: ticks closer together than 100 µs are more
// than a ticker keeps.
const MaxPerSecond = 10_000

// ParseRate reads a rate of ticks such as "5/s", "200/m" or "30/h" (a
// whole number of ticks per second, minute or hour) and returns the time
// between two ticks.
func ParseRate(s string) (time.Duration, error) {
	n, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	var per time.Duration
	switch strings.TrimSpace(unit) {
	case "s":
		per = time.Second
	case "m":
		per = time.Minute
	case "h":
		per = time.Hour
	}
	count, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
	if !ok || per == 0 || err != nil || count <= 0 {
		return 0, fmt.Errorf("rate %q: want N/s, N/m or N/h with N a whole number above 0 (e.g. 5/s, 200/m)", s)
	}
	if count > MaxPerSecond*int64(per/time.Second) {
		return 0, fmt.Errorf("rate %q: at most %d events a second", s, MaxPerSecond)
	}
	return per / time.Duration(count), nil
}
