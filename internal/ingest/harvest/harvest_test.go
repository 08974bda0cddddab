package harvest_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/ingest/harvest"
	"github.com/roostapi/roost/internal/ingest/importer"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

// upstream is a roost over a small generated network, served over HTTP.
type upstream struct {
	url, key string
	store    social.Store
	ex       gen.Examples
}

var (
	upOnce sync.Once
	up     upstream
	upErr  error
)

func newUpstream(t testing.TB) upstream {
	t.Helper()
	upOnce.Do(func() {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "harvest-upstream")
		if err != nil {
			upErr = err
			return
		}
		st, err := sqlite.Open(ctx, filepath.Join(dir, "up.db"), nil)
		if err != nil {
			upErr = err
			return
		}
		sum, err := gen.Generate(ctx, st, gen.Config{Seed: 7, Users: 200, Posts: 6000}, nil)
		if err != nil {
			upErr = err
			return
		}
		key, digest, prefix := billing.NewKey()
		if _, err := st.CreateKey(ctx, social.APIKey{Name: "h", Prefix: prefix, Digest: digest}, 1_000_000_000_000); err != nil {
			upErr = err
			return
		}
		srv := httptest.NewServer(httpapi.New(httpapi.Config{RateLimit: -1}, st, nil, nil))
		up = upstream{url: srv.URL, key: key, store: st, ex: sum.Examples}
	})
	if upErr != nil {
		t.Fatal(upErr)
	}
	return up
}

func newClient(t *testing.T, u upstream, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(u.url, u.key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fileIDs reads the item ids of a harvest file, in order.
func fileIDs(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var ids []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var p struct {
			Tweets, Users []struct {
				IDStr string `json:"id_str"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		for _, it := range append(p.Tweets, p.Users...) {
			ids = append(ids, it.IDStr)
		}
	}
	return ids
}

// walkIDs is every item of an endpoint, walked through the client.
func walkIDs[T client.Tweet | client.User](t *testing.T, seq func(yield func(T, error) bool)) []string {
	t.Helper()
	var out []string
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		switch x := any(v).(type) {
		case client.Tweet:
			out = append(out, x.IDStr)
		case client.User:
			out = append(out, x.IDStr)
		}
	}
	return out
}

// crashingSink fails once, at a chosen write, before the write or after
// storing the first half (rounded up) of its pages: an interruption at
// that point, the checkpoint lagging behind what is stored.
type crashingSink struct {
	harvest.Sink
	at, n int
	after bool
}

var errCrash = errors.New("crash")

func (s *crashingSink) Write(ctx context.Context, pages []harvest.Page) error {
	s.n++
	if s.n != s.at {
		return s.Sink.Write(ctx, pages)
	}
	if s.after {
		if err := s.Sink.Write(ctx, pages[:(len(pages)+1)/2]); err != nil {
			return err
		}
	}
	return errCrash
}

// TestResumeExact interrupts harvests at random writes, before the write
// or after part of it is stored (the checkpoint then lags), and resumes
// each from its checkpoint on disk, with a random Ahead (serial, one page
// ahead, the default) each run after the first, until it ends: the file holds exactly the
// upstream's items in order, each once.
func TestResumeExact(t *testing.T) {
	u := newUpstream(t)
	ctx := context.Background()
	c := newClient(t, u)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		job  harvest.Job
		want []string
	}{
		{harvest.Job{Kind: "search", Arg: "the"}, walkIDs(t, c.SearchAll(ctx, "the", client.Latest))},
		{harvest.Job{Kind: "replies", Arg: strconv.FormatInt(u.ex.UserID, 10)}, walkIDs(t, c.UserTweetsAndRepliesAll(ctx, u.ex.UserID))},
		{harvest.Job{Kind: "followers", Arg: strconv.FormatInt(u.ex.UserID, 10)}, walkIDs(t, c.FollowersAll(ctx, u.ex.UserID))},
	} {
		for _, name := range []string{"out.jsonl", "out.jsonl.gz"} {
			t.Run(tc.job.Kind+"/"+name, func(t *testing.T) {
				if len(tc.want) < 41 {
					t.Fatalf("only %d items upstream", len(tc.want))
				}
				dir := t.TempDir()
				out, cpPath := filepath.Join(dir, name), filepath.Join(dir, "cp")
				save := func(cp *harvest.Checkpoint) error { return harvest.SaveCheckpoint(cpPath, cp) }
				crashes := 0
				for run := 0; ; run++ {
					cp := &harvest.Checkpoint{}
					resume := run > 0
					if resume {
						var err error
						if cp, err = harvest.LoadCheckpoint(cpPath); err != nil {
							if !errors.Is(err, os.ErrNotExist) {
								t.Fatal(err)
							}
							cp = &harvest.Checkpoint{}
						}
					}
					fs, err := harvest.OpenFile(out, resume, cp.Offset)
					if err != nil {
						t.Fatal(err)
					}
					sink := &crashingSink{Sink: fs, at: 1 + rng.IntN(3), after: rng.IntN(2) == 0}
					save := func(cp *harvest.Checkpoint) error { cp.Offset = fs.Offset; return save(cp) }
					job := tc.job
					if run > 0 { // the first run is serial: it has at least 3 writes
						job.Ahead = []int{0, 1, harvest.DefaultAhead}[rng.IntN(3)]
					}
					_, err = harvest.Run(ctx, c, job, cp, sink, save, nil, nil)
					fs.Close()
					if err == nil {
						break
					}
					if !errors.Is(err, errCrash) || run > 100 {
						t.Fatalf("run %d: %v", run, err)
					}
					crashes++
				}
				if got := fileIDs(t, out); !slices.Equal(got, tc.want) {
					t.Errorf("after %d crashes the file holds %d items, upstream %d", crashes, len(got), len(tc.want))
				}
				if crashes == 0 {
					t.Error("no crash was injected")
				}
			})
		}
	}
}

// TestHarvestIntoDatabase: a followers harvest written into a database
// serves the same followers in the same order, and its posts import
// exactly what the file held.
func TestHarvestIntoDatabase(t *testing.T) {
	u := newUpstream(t)
	ctx := context.Background()
	c := newClient(t, u)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := u.ex.UserID
	for _, job := range []harvest.Job{{Kind: "followers", Arg: strconv.FormatInt(id, 10), Ahead: harvest.DefaultAhead},
		{Kind: "timeline", Arg: strconv.FormatInt(id, 10), Ahead: harvest.DefaultAhead}} {
		if _, err := harvest.Run(ctx, c, job, &harvest.Checkpoint{}, harvest.StoreSink{W: st},
			func(*harvest.Checkpoint) error { return nil }, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := walkIDs(t, c.FollowersAll(ctx, id))
	var got []string
	req := social.PageReq{Limit: 20}
	for {
		p, err := st.Followers(ctx, id, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.Items {
			got = append(got, strconv.FormatInt(f.ID, 10))
		}
		if p.Next == nil {
			break
		}
		req.After = p.Next
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("harvested followers %v, upstream %v", got, want)
	}
	posts := walkIDs(t, c.UserTweetsAll(ctx, id))
	ids := make([]int64, len(posts))
	for i, s := range posts {
		ids[i], _ = strconv.ParseInt(s, 10, 64)
	}
	found, err := st.Posts(ctx, ids)
	if err != nil || len(found) != len(ids) {
		t.Errorf("the timeline's %d posts: %d stored (%v)", len(ids), len(found), err)
	}
}

// TestLimits: --max-items cuts the last page, --max-cost stops before a
// page that could cross it, also across a resume, and by-ids answers for
// every id, found or missing.
func TestLimits(t *testing.T) {
	u := newUpstream(t)
	ctx := context.Background()
	none := func(*harvest.Checkpoint) error { return nil }
	dir := t.TempDir()
	fs, err := harvest.OpenFile(filepath.Join(dir, "a.jsonl"), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := harvest.Run(ctx, newClient(t, u), harvest.Job{Kind: "search", Arg: "the", MaxItems: 45, Ahead: 3},
		&harvest.Checkpoint{}, fs, none, nil, nil)
	fs.Close()
	if err != nil || st.Items != 45 || len(fileIDs(t, filepath.Join(dir, "a.jsonl"))) != 45 || st.Stopped == "" {
		t.Errorf("max items: %+v %v", st, err)
	}
	budget := newClient(t, u, client.WithBudget(50*billing.DefaultPrice, billing.DefaultPrice))
	fs, _ = harvest.OpenFile(filepath.Join(dir, "b.jsonl"), false, 0)
	st, err = harvest.Run(ctx, budget, harvest.Job{Kind: "search", Arg: "the", Ahead: 3}, &harvest.Checkpoint{}, fs, none, nil, nil)
	fs.Close()
	if err != nil || st.Items != 40 || budget.Spent() != 40*billing.DefaultPrice || !strings.Contains(st.Stopped, "max-cost") {
		t.Errorf("budget: %+v spent %d %v", st, budget.Spent(), err)
	}
	// A run cut short by Ctrl-C after its first page, resumed under the
	// same --max-cost, spends what is left of it, not all of it again.
	const maxCost = 50 * billing.DefaultPrice
	job := harvest.Job{Kind: "search", Arg: "the"}
	cp := &harvest.Checkpoint{}
	cpPath := filepath.Join(dir, "d.checkpoint")
	fs, _ = harvest.OpenFile(filepath.Join(dir, "d.jsonl"), false, 0)
	save := func(cp *harvest.Checkpoint) error { cp.Offset = fs.Offset; return harvest.SaveCheckpoint(cpPath, cp) }
	cctx, cancel := context.WithCancel(ctx)
	first := newClient(t, u, client.WithBudget(cp.Left(maxCost), billing.DefaultPrice))
	if st, err = harvest.Run(cctx, first, job, cp, cancelSink{fs, cancel}, save, nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %+v %v", st, err)
	}
	fs.Close()
	if cp, err = harvest.LoadCheckpoint(cpPath); err != nil || cp.Stats.Items != 20 || cp.Stats.Spent != 20*billing.DefaultPrice {
		t.Fatalf("checkpoint after the cancel: %+v %v", cp, err)
	}
	fs, _ = harvest.OpenFile(filepath.Join(dir, "d.jsonl"), true, cp.Offset)
	resumed := newClient(t, u, client.WithBudget(cp.Left(maxCost), billing.DefaultPrice))
	st, err = harvest.Run(ctx, resumed, job, cp, fs, save, nil, nil)
	fs.Close()
	if err != nil || st.Items != 40 || st.Spent != 40*billing.DefaultPrice || resumed.Spent() != 20*billing.DefaultPrice ||
		!strings.Contains(st.Stopped, "max-cost") {
		t.Errorf("resumed under --max-cost %d: %+v, this run spent %d, %v", maxCost, st, resumed.Spent(), err)
	}
	ids := []int64{u.ex.PostID, 1, u.ex.ThreadID, 2}
	var answers []string
	fs, _ = harvest.OpenFile(filepath.Join(dir, "c.jsonl"), false, 0)
	st, err = harvest.Run(ctx, newClient(t, u), harvest.Job{Kind: "posts-by-ids", IDs: ids, Ahead: 3}, &harvest.Checkpoint{}, fs,
		none, nil, func(id int64, found bool) { answers = append(answers, fmt.Sprint(id, found)) })
	fs.Close()
	want := []string{fmt.Sprint(u.ex.PostID, true), "1 false", fmt.Sprint(u.ex.ThreadID, true), "2 false"}
	if err != nil || st.Found != 2 || st.Missing != 2 || !slices.Equal(answers, want) {
		t.Errorf("by ids: %+v answers %v, want %v; %v", st, answers, want, err)
	}
	sum, err := importer.Import(ctx, &countingWriter{}, []string{filepath.Join(dir, "c.jsonl")}, importer.Options{})
	if err != nil || sum.Read != 2 {
		t.Errorf("the by-ids file imports %d records (%v), want 2", sum.Read, err)
	}
}

type countingWriter struct{}

func (countingWriter) Write(context.Context, *social.Batch) (social.WriteStats, error) {
	return social.WriteStats{}, nil
}

// cancelSink cancels the harvest's context after its first write.
type cancelSink struct {
	harvest.Sink
	cancel context.CancelFunc
}

func (s cancelSink) Write(ctx context.Context, pages []harvest.Page) error {
	defer s.cancel()
	return s.Sink.Write(ctx, pages)
}

// TestCancel: a harvest whose context ends (Ctrl-C) while pages are
// fetched ahead returns the context's error, stores the pages it fetched
// and checkpoints them, and a resumed run ends with exactly upstream's
// items.
func TestCancel(t *testing.T) {
	u := newUpstream(t)
	c := newClient(t, u)
	want := walkIDs(t, c.SearchAll(context.Background(), "the", client.Latest))
	dir := t.TempDir()
	out, cpPath := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "cp")
	job := harvest.Job{Kind: "search", Arg: "the", Ahead: harvest.DefaultAhead}
	fs, err := harvest.OpenFile(out, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	save := func(cp *harvest.Checkpoint) error { cp.Offset = fs.Offset; return harvest.SaveCheckpoint(cpPath, cp) }
	ctx, cancel := context.WithCancel(context.Background())
	st, err := harvest.Run(ctx, c, job, &harvest.Checkpoint{}, cancelSink{fs, cancel}, save, nil, nil)
	fs.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %+v, %v; want context.Canceled", st, err)
	}
	cp, err := harvest.LoadCheckpoint(cpPath)
	if err != nil || cp.Done || cp.Stats.Items != st.Items || len(fileIDs(t, out)) != st.Items || st.Items == 0 {
		t.Fatalf("after the cancel: checkpoint %+v (%v), stats %+v, file %d items", cp, err, st, len(fileIDs(t, out)))
	}
	if fs, err = harvest.OpenFile(out, true, cp.Offset); err != nil {
		t.Fatal(err)
	}
	if _, err := harvest.Run(context.Background(), c, job, cp, fs, save, nil, nil); err != nil {
		t.Fatal(err)
	}
	fs.Close()
	if got := fileIDs(t, out); !slices.Equal(got, want) {
		t.Errorf("resumed after the cancel: %d items, upstream %d", len(got), len(want))
	}
}

// countingTransport counts the requests it sends.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// stuckSink is a StoreSink whose first write waits for release.
type stuckSink struct {
	harvest.StoreSink
	entered, release chan struct{}
	once             sync.Once
}

func (s *stuckSink) Write(ctx context.Context, pages []harvest.Page) error {
	s.once.Do(func() {
		close(s.entered)
		<-s.release
	})
	return s.StoreSink.Write(ctx, pages)
}

// TestAheadBound: while a write is stuck, the harvest fetches ahead, but
// no more than docs/harvesting.md says may be fetched and not stored (2×Ahead+4
// pages, those being written included), and the walk then ends whole.
func TestAheadBound(t *testing.T) {
	u := newUpstream(t)
	ctx := context.Background()
	out, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	tr := &countingTransport{}
	c := newClient(t, u, client.WithHTTPClient(&http.Client{Transport: tr}))
	const ahead = 3
	sink := &stuckSink{StoreSink: harvest.StoreSink{W: out}, entered: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	var items int
	go func() {
		st, err := harvest.Run(ctx, c, harvest.Job{Kind: "search", Arg: "the", MaxItems: 400, Ahead: ahead},
			&harvest.Checkpoint{}, sink, func(*harvest.Checkpoint) error { return nil }, nil, nil)
		items = st.Items
		done <- err
	}()
	<-sink.entered
	// Let the fetcher get ahead (a loaded machine, -race, can take a while),
	// then run into its bound, then check it holds.
	for deadline := time.Now().Add(30 * time.Second); tr.n.Load() <= ahead; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d pages fetched in 30 s while the first write was stuck; want more than %d", tr.n.Load(), ahead)
		}
	}
	for prev, still := tr.n.Load(), 0; still < 20; time.Sleep(25 * time.Millisecond) {
		if n := tr.n.Load(); n != prev {
			prev, still = n, 0
		} else {
			still++
		}
	}
	if n := tr.n.Load(); n > 2*ahead+4 {
		t.Errorf("%d pages fetched while the first write was stuck; want at most %d", n, 2*ahead+4)
	}
	close(sink.release)
	if err := <-done; err != nil || items != 400 {
		t.Fatalf("harvest: %v, %d items", err, items)
	}
}

// TestCheckpointCheck: a checkpoint names its harvest (base URL, kind,
// argument, the order where it applies, the ids of a by-ids file), and
// Check names what another harvest changes; a checkpoint of an earlier
// release, without the order and ids, is checked on what it holds.
func TestCheckpointCheck(t *testing.T) {
	const base = "http://up.example"
	search := harvest.Job{Kind: "search", Arg: "golang"}
	cp := harvest.NewCheckpoint(base, search)
	for _, tc := range []struct {
		base string
		job  harvest.Job
		want string // "" when it is the same harvest
	}{
		{base, search, ""},
		{base, harvest.Job{Kind: "search", Arg: "golang", Order: client.Latest, MaxItems: 9, Ahead: 2}, ""},
		{base, harvest.Job{Kind: "search", Arg: "golang", Order: client.Top}, `--type was "Latest", now "Top"`},
		{base, harvest.Job{Kind: "search", Arg: "rust"}, `ARG was "golang", now "rust"`},
		{base, harvest.Job{Kind: "mentions", Arg: "golang"}, `WHAT was "search", now "mentions"`},
		{"http://other.example", search, `--base-url was "http://up.example", now "http://other.example"`},
	} {
		err := cp.Check(tc.base, tc.job)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %+v: %v; want %q", tc.base, tc.job, err, tc.want)
		}
	}
	timeline := harvest.NewCheckpoint(base, harvest.Job{Kind: "timeline", Arg: "42"})
	if err := timeline.Check(base, harvest.Job{Kind: "timeline", Arg: "42", Order: client.Top}); err != nil {
		t.Errorf("--type does not change a timeline: %v", err)
	}
	byIDs := harvest.NewCheckpoint(base, harvest.Job{Kind: "posts-by-ids", Arg: "a.txt", IDs: []int64{1, 2, 3}})
	if err := byIDs.Check(base, harvest.Job{Kind: "posts-by-ids", Arg: "moved/a.txt", IDs: []int64{1, 2, 3}}); err != nil {
		t.Errorf("the same ids in a moved file: %v", err)
	}
	for _, ids := range [][]int64{{1, 2}, {1, 3, 2}, {1, 2, 3, 4}} {
		err := byIDs.Check(base, harvest.Job{Kind: "posts-by-ids", Arg: "a.txt", IDs: ids})
		if err == nil || !strings.Contains(err.Error(), "the ids of a.txt differ") {
			t.Errorf("ids %v: %v", ids, err)
		}
	}
	old := &harvest.Checkpoint{BaseURL: base, Kind: "posts-by-ids", Arg: "a.txt"}
	if err := old.Check(base, harvest.Job{Kind: "posts-by-ids", Arg: "a.txt", IDs: []int64{5}}); err != nil {
		t.Errorf("an earlier release's checkpoint of the same file: %v", err)
	}
	if err := old.Check(base, harvest.Job{Kind: "posts-by-ids", Arg: "b.txt", IDs: []int64{5}}); err == nil {
		t.Error("an earlier release's checkpoint of another file: no error")
	}
}
