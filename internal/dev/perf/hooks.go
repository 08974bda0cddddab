package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world"
)

// commits is the living world's writer as the bench sees it: it passes
// each batch, or group of ticks, to the store and notes, when the
// transaction has committed, what its batches added that a monitor
// watches.
type commits struct {
	w  social.Writer
	mu sync.Mutex
	// posts: the first commit of each post (a later tick rewrites a post
	// it replies to, quotes or reposts).
	posts map[int64]time.Time
	// follows and profiles: every commit of a follow (follower, followee)
	// and of a profile edit (a batch of users alone), in order.
	follows  map[[2]int64][]time.Time
	profiles map[int64][]time.Time
	ticks    int64 // batches written
	// writes are the time each transaction took, commit included.
	writes samples
}

func newCommits(w social.Writer) *commits {
	return &commits{w: w, posts: map[int64]time.Time{}, follows: map[[2]int64][]time.Time{},
		profiles: map[int64][]time.Time{}}
}

// Write writes b through the store and notes its commit time. A write
// started is finished even when the living world is stopped meanwhile:
// cut short, it might commit without the bench knowing.
func (c *commits) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	start := time.Now()
	st, err := c.w.Write(context.WithoutCancel(ctx), b)
	if err != nil {
		return st, err
	}
	c.note(start, b)
	return st, nil
}

// writer is the living world's writer: c, and with it the store's
// groups of ticks when the store writes them (world.TickWriter).
func (c *commits) writer() social.Writer {
	if tw, ok := c.w.(world.TickWriter); ok {
		return tickCommits{c, tw}
	}
	return c
}

// tickCommits is commits over a store that writes groups of ticks.
type tickCommits struct {
	*commits
	tw world.TickWriter
}

// WriteTicks writes a group of ticks in one transaction of the store,
// noting their commit when it commits.
func (c tickCommits) WriteTicks(ctx context.Context, fn func(world.Store, func(*social.Batch) error) error) error {
	start := time.Now()
	var batches []*social.Batch
	err := c.tw.WriteTicks(context.WithoutCancel(ctx), func(w world.Store, write func(*social.Batch) error) error {
		return fn(w, func(b *social.Batch) error {
			batches = append(batches, b)
			return write(b)
		})
	})
	if err != nil {
		return err
	}
	c.note(start, batches...)
	return nil
}

// note records batches committed now, in one transaction begun at start.
func (c *commits) note(start time.Time, bs ...*social.Batch) {
	if len(bs) == 0 {
		return
	}
	at := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ticks += int64(len(bs))
	c.writes.add(fmt.Sprintf("ticks %d-%d", bs[0].LiveTick, bs[len(bs)-1].LiveTick), at.Sub(start))
	for _, b := range bs {
		for _, p := range b.Posts {
			if _, ok := c.posts[p.ID]; !ok {
				c.posts[p.ID] = at
			}
		}
		for _, f := range b.Follows {
			k := [2]int64{f.FollowerID, f.FolloweeID}
			c.follows[k] = append(c.follows[k], at)
		}
		// Every tick writes its actor's profile (counts move); only a
		// profile edit writes users alone.
		if len(b.Posts) == 0 && len(b.Follows) == 0 && len(b.Unfollows) == 0 && len(b.Likes) == 0 {
			for _, u := range b.Users {
				c.profiles[u.ID] = append(c.profiles[u.ID], at)
			}
		}
	}
}

// written is how many batches committed.
func (c *commits) written() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ticks
}

// committed is the commit time of what a delivered event is about, and
// whether it is known: the post of a new_tweet, else the last commit of
// the follow or profile edit before the event arrived.
func (c *commits) committed(h hook) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var times []time.Time
	switch h.Event {
	case monitor.EventNewTweet:
		at, ok := c.posts[h.DataID]
		return at, ok
	case monitor.EventNewFollowing:
		times = c.follows[[2]int64{h.Monitored, h.DataID}]
	case monitor.EventProfileUpdate:
		times = c.profiles[h.Monitored]
	}
	i, _ := slices.BinarySearchFunc(times, h.At, func(t, at time.Time) int { return t.Compare(at) })
	if i == 0 {
		return time.Time{}, false
	}
	return times[i-1], true
}

// hook is one webhook POST as the receiver saw it.
type hook struct {
	At          time.Time // when the request reached the receiver
	EventID     string
	Event       string
	MonitorType string
	Monitored   int64 // meta.monitored_id_str (user monitors)
	DataID      int64 // data.id_str: the post, or the user followed or edited
}

// receiver is a webhook receiver: it answers 200 to every POST and keeps
// what arrived, checking each signature with the key's secret.
type receiver struct {
	secret string
	mu     sync.Mutex
	hooks  []hook
	badSig int
	last   time.Time
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var p struct {
		EventID string `json:"event_id"`
		Event   string `json:"event"`
		Data    struct {
			IDStr string `json:"id_str"`
		} `json:"data"`
		Meta struct {
			MonitorType    string `json:"monitor_type"`
			MonitoredIDStr string `json:"monitored_id_str"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := hook{At: at, EventID: p.EventID, Event: p.Event, MonitorType: p.Meta.MonitorType}
	h.Monitored, _ = strconv.ParseInt(p.Meta.MonitoredIDStr, 10, 64)
	h.DataID, _ = strconv.ParseInt(p.Data.IDStr, 10, 64)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !monitor.Verify(rc.secret, body, r.Header.Get(monitor.HeaderSignature)) {
		rc.badSig++
	}
	rc.hooks = append(rc.hooks, h)
	rc.last = at
}

func (rc *receiver) setSecret(secret string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = secret
}

// quietSince reports whether nothing arrived in the last d.
func (rc *receiver) quietSince(d time.Duration) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return time.Since(rc.last) >= d
}

// received returns what arrived, each event once (its first arrival),
// how many arrivals repeated an event and how many were badly signed.
func (rc *receiver) received() (hooks []hook, repeats, badSig int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	seen := map[string]bool{}
	for _, h := range rc.hooks {
		if seen[h.EventID] {
			repeats++
			continue
		}
		seen[h.EventID] = true
		hooks = append(hooks, h)
	}
	return hooks, repeats, rc.badSig
}
