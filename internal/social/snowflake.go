package social

import "time"

// Snowflake ids hold the milliseconds since SnowflakeEpochMS above bit
// SnowflakeShift. Search turns since:/until: into id bounds while every
// stored post's id agrees with its time within TimeSlackMS; each engine
// keeps the posts for which that does not hold in a table
// search_time_outliers, and uses the bounds only while it is empty.
const (
	SnowflakeEpochMS = 1288834974657
	SnowflakeShift   = 22
	TimeSlackMS      = 1000
)

// SnowflakeFloor is the least snowflake id of millisecond ms, clamped to
// [0, MaxInt64].
func SnowflakeFloor(ms int64) int64 {
	d := ms - SnowflakeEpochMS
	switch {
	case d <= 0:
		return 0
	case d >= 1<<(63-SnowflakeShift):
		return 1<<63 - 1
	}
	return d << SnowflakeShift
}

// SinceID is an exclusive lower id bound of the posts created at or after
// t, for posts whose id agrees with their time.
func SinceID(t time.Time) int64 { return SnowflakeFloor(t.UnixMilli()-TimeSlackMS) - 1 }

// UntilID is an inclusive upper id bound of the posts created before t,
// for posts whose id agrees with their time.
func UntilID(t time.Time) int64 { return SnowflakeFloor(t.UnixMilli()+TimeSlackMS) - 1 }
