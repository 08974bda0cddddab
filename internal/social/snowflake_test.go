package social

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestSnowflakeFloor(t *testing.T) {
	if got := SnowflakeFloor(SnowflakeEpochMS - 5); got != 0 {
		t.Errorf("before the epoch: %d", got)
	}
	if got := SnowflakeFloor(SnowflakeEpochMS + 1); got != 1<<SnowflakeShift {
		t.Errorf("epoch + 1 ms: %d", got)
	}
	if got := SnowflakeFloor(1 << 62); got != 1<<63-1 {
		t.Errorf("far future: %d", got)
	}
}

// TestTimeIDBounds: a post whose id agrees with its time within the slack
// lies within the id bounds of every since:/until: it satisfies, and out of
// those it fails by more than the slack.
func TestTimeIDBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	base := time.Date(2012, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 100000 {
		idMS := base.UnixMilli() + rng.Int64N(15*365*86400*1000)
		id := (idMS-SnowflakeEpochMS)<<SnowflakeShift | rng.Int64N(1<<SnowflakeShift)
		created := time.UnixMilli(idMS + rng.Int64N(2*TimeSlackMS+1) - TimeSlackMS)
		bound := created.Add(time.Duration(rng.Int64N(20000)-10000) * time.Millisecond)
		if !created.Before(bound) && id <= SinceID(bound) {
			t.Fatalf("id %d created %v: since %v excludes it (bound %d)", id, created, bound, SinceID(bound))
		}
		if created.Before(bound) && id > UntilID(bound) {
			t.Fatalf("id %d created %v: until %v excludes it (bound %d)", id, created, bound, UntilID(bound))
		}
	}
}
