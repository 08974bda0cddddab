package gen

import "time"

// Snowflake layout: milliseconds since the network's epoch, a 10-bit worker
// and a 12-bit sequence.
const (
	snowflakeEpochMS = 1288834974657
	workerBits       = 10
	seqBits          = 12
	tsShift          = workerBits + seqBits
	maxWorker        = 1<<workerBits - 1
	maxSeq           = 1<<seqBits - 1
)

// The generated network's clock: posts fall in the year before windowEndMS
// (2026-06-01T00:00:00Z, fixed so that runs never depend on today).
const (
	windowEndMS   int64 = 1780272000000 // 2026-06-01T00:00:00Z
	windowStartMS int64 = 1748736000000 // 2025-06-01T00:00:00Z
	dayMS         int64 = 24 * 3600 * 1000
	// firstUserMS and lastUserMS bound account creation times.
	firstUserMS int64 = 1142899200000 // 2006-03-21
	lastUserMS  int64 = windowStartMS - 30*dayMS
	// snowflakeUsersMS is when user ids switched from counters to snowflakes.
	snowflakeUsersMS int64 = 1383264000000 // 2013-11-01
	// communitiesMS is the earliest community.
	communitiesMS int64 = 1631059200000 // 2021-09-08
)

// snowflake builds an id from a Unix millisecond time, worker and sequence.
func snowflake(ms, worker, seq int64) int64 {
	return (ms-snowflakeEpochMS)<<tsShift | (worker&maxWorker)<<seqBits | seq&maxSeq
}

// indexSnowflake gives the idx-th value created at ms an id unique among
// values of its kind (for idx < 2^22).
func indexSnowflake(ms int64, idx int) int64 {
	return snowflake(ms, int64(idx)&maxWorker, int64(idx>>workerBits))
}

// utc converts Unix milliseconds to a UTC time.
func utc(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// legacyUserID maps an account creation time before snowflakeUsersMS to the
// size of counter id the network handed out then.
func legacyUserID(ms int64) int64 {
	points := [...]struct{ ms, id int64 }{
		{1142899200000, 12},         // 2006-03-21
		{1199145600000, 10_000_000}, // 2008-01-01
		{1243814400000, 50_000_000}, // 2009-06-01
		{1293840000000, 250_000_000},
		{1325376000000, 500_000_000},
		{1356998400000, 1_100_000_000},
		{snowflakeUsersMS, 2_200_000_000},
	}
	if ms <= points[0].ms {
		return points[0].id
	}
	for i := 1; i < len(points); i++ {
		if ms <= points[i].ms {
			a, b := points[i-1], points[i]
			frac := float64(ms-a.ms) / float64(b.ms-a.ms)
			return a.id + int64(frac*float64(b.id-a.id))
		}
	}
	return points[len(points)-1].id
}
