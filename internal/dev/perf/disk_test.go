package perf

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkDiskFlush measures what a paid page's debit waits for on the
// disk under the directory ROOST_BENCH_DIR (default: the test's temporary
// directory): a commit of a debit batch (12 KiB appended to a log, then
// synced), every 300 µs for 4 s, alone and beside a writer standing in
// for the living world: a log appended every 50 ms without a sync (ticks
// commit with synchronous=NORMAL), and its pages copied to random places
// of a 1 GiB file then synced, either every second at once (as SQLite's
// checkpoints copy) or every 5 ms in small parts (paced). It reports the
// flush's p50 and p99 in µs:
//
//	go test ./internal/dev/perf -run X -bench DiskFlush -benchtime 1x
//
// On a disk whose write cache the kernel can only flush whole (no FUA, as
// a virtual disk: /sys/block/*/queue/fua), every sync waits for all
// the other writes the disk holds, so the debits' p99 grows with the
// world's writes and with their bursts.
func BenchmarkDiskFlush(b *testing.B) {
	dir := os.Getenv("ROOST_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for _, c := range []struct {
		kib   int // the world's writes a second
		paced bool
	}{{0, false}, {1024, false}, {1024, true}, {4096, false}, {4096, true}, {16384, false}, {16384, true}} {
		name := "alone"
		if c.kib > 0 {
			name = fmt.Sprintf("bursts-%dMiB/s", c.kib/1024)
			if c.paced {
				name = fmt.Sprintf("paced-%dMiB/s", c.kib/1024)
			}
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				p50, p99, err := flushWaits(dir, c.kib, c.paced, 4*time.Second)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
				b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// flushWaits times 12 KiB appends, each synced, for d beside a world
// writing kib KiB a second (see BenchmarkDiskFlush).
func flushWaits(dir string, kib int, paced bool, d time.Duration) (p50, p99 time.Duration, err error) {
	debits, err := os.Create(filepath.Join(dir, "debits"))
	if err != nil {
		return 0, 0, err
	}
	defer debits.Close()
	stop, done := make(chan struct{}), make(chan error, 1)
	if kib > 0 {
		go func() { done <- busyWorld(dir, kib, paced, stop) }()
	} else {
		done <- nil
	}
	batch := make([]byte, 12<<10)
	var waits []time.Duration
	var off int64
	for end := time.Now().Add(d); time.Now().Before(end); {
		if _, err := debits.WriteAt(batch, off%(4<<20)); err != nil {
			close(stop)
			return 0, 0, err
		}
		off += int64(len(batch))
		t := time.Now()
		if err := debits.Sync(); err != nil {
			close(stop)
			return 0, 0, err
		}
		waits = append(waits, time.Since(t))
		time.Sleep(300 * time.Microsecond)
	}
	close(stop)
	if err := <-done; err != nil {
		return 0, 0, err
	}
	slices.Sort(waits)
	return waits[len(waits)/2], waits[len(waits)*99/100], nil
}

// busyWorld appends kib KiB a second to a log in 50 ms steps and copies as
// many pages to random places of a 1 GiB file: every second at once then
// synced, or (paced) every 5 ms, synced each time.
func busyWorld(dir string, kib int, paced bool, stop chan struct{}) error {
	log, err := os.Create(filepath.Join(dir, "world-log"))
	if err != nil {
		return err
	}
	defer log.Close()
	db, err := os.Create(filepath.Join(dir, "world-db"))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Truncate(1 << 30); err != nil {
		return err
	}
	page := make([]byte, 4096)
	step, copyEvery := 50*time.Millisecond, 20
	if paced {
		step, copyEvery = 5*time.Millisecond, 1
	}
	perStep := max(1, kib/4*int(step/time.Millisecond)/1000)
	var logOff int64
	tick := time.NewTicker(step)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		for range perStep {
			if _, err := log.WriteAt(page, logOff); err != nil {
				return err
			}
			logOff = (logOff + 4096) % (64 << 20)
		}
		if n%copyEvery != 0 {
			continue
		}
		if err := log.Sync(); err != nil {
			return err
		}
		for range perStep * copyEvery {
			if _, err := db.WriteAt(page, rand.Int64N(1<<18)*4096); err != nil {
				return err
			}
		}
		if err := db.Sync(); err != nil {
			return err
		}
	}
}
