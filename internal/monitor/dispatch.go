package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// Webhook event names, as the hosted API sends them; EventUserDeleted is
// roost's own (the hosted monitors have no event for a deleted account).
const (
	EventNewTweet      = "new_tweet"
	EventNewFollowing  = "new_following"
	EventProfileUpdate = "profile_update"
	EventUserDeleted   = "user_deleted"
)

// dispatchBatch is how many changes one dispatch reads.
const dispatchBatch = 500

// unreadableAfter is how long a dispatch waits for what a change names to
// be readable (a read replica behind) before it makes no event of it.
const unreadableAfter = time.Minute

// DispatchOnce turns the changes after the dispatch position into events
// of the monitors they match and moves the position past them, in one
// transaction. It reports how many changes it consumed (0: none waiting,
// or another dispatcher took them first).
func (s *Service) DispatchOnce(ctx context.Context) (int, error) {
	from, err := s.store.Cursor(ctx)
	if err != nil {
		return 0, err
	}
	cs, err := s.store.Changes(ctx, from, dispatchBatch)
	if err != nil || len(cs) == 0 {
		return 0, err
	}
	events, snaps, err := s.eventsOf(ctx, cs)
	if err != nil {
		return 0, err
	}
	ok, err := s.store.Dispatch(ctx, from, cs[len(cs)-1].Seq, events, snaps)
	if err != nil || !ok {
		return 0, err
	}
	for _, e := range events {
		s.metrics.events.WithLabelValues(e.Event).Inc()
	}
	return len(cs), nil
}

// eventsOf makes the events of a run of changes, in change order, and
// the profile snapshots they move.
func (s *Service) eventsOf(ctx context.Context, cs []Change) ([]NewEvent, map[string][]byte, error) {
	var authors, followers, profiles, gone []int64
	// What the run deletes is not waited for (see below).
	deletedPosts, deletedUsers := map[int64]bool{}, map[int64]bool{}
	for _, c := range cs {
		switch c.Kind {
		case ChangePost:
			authors = append(authors, c.Subject)
		case ChangeFollow:
			followers = append(followers, c.Subject)
		case ChangeProfile:
			profiles = append(profiles, c.Subject)
		case ChangePostDeleted:
			deletedPosts[c.Object] = true
		case ChangeUserDeleted:
			deletedUsers[c.Subject] = true
			gone = append(gone, c.Subject)
		}
		// ChangeUnfollow, ChangePostDeleted: the hosted monitors have no
		// event for them.
	}
	watching := map[ChangeKind]map[int64][]Monitor{}
	for kind, q := range map[ChangeKind]struct {
		users []int64
		kind  string
	}{ChangePost: {authors, UserTweets}, ChangeFollow: {followers, UserFollowing},
		ChangeProfile: {profiles, UserProfile}, ChangeUserDeleted: {gone, UserProfile}} {
		ms, err := s.store.Watching(ctx, unique(q.users), q.kind)
		if err != nil {
			return nil, nil, err
		}
		by := map[int64][]Monitor{}
		for _, m := range ms {
			by[m.UserID] = append(by[m.UserID], m)
		}
		watching[kind] = by
	}
	var postIDs, userIDs []int64
	for _, c := range cs {
		if len(watching[c.Kind][c.Subject]) == 0 {
			continue
		}
		switch c.Kind {
		case ChangePost:
			postIDs = append(postIDs, c.Object)
		case ChangeFollow:
			userIDs = append(userIDs, c.Object)
		case ChangeProfile:
			userIDs = append(userIDs, c.Subject)
		}
	}
	posts, err := s.render.Posts(ctx, unique(postIDs))
	if err != nil {
		return nil, nil, fmt.Errorf("render posts: %w", err)
	}
	users := map[int64]*social.User{}
	if ids := unique(userIDs); len(ids) > 0 {
		us, err := s.data.UsersByIDs(ctx, ids)
		if err != nil {
			return nil, nil, fmt.Errorf("users of events: %w", err)
		}
		for i := range us {
			users[us[i].ID] = &us[i]
		}
	}
	// A post or user a change names is stored (its change committed with
	// it), but a read replica may not have it yet: the run waits for it,
	// for up to unreadableAfter, then goes on without it. One that a later
	// change of the run deletes is not waited for.
	for _, c := range cs {
		if len(watching[c.Kind][c.Subject]) == 0 || time.Since(c.At) > unreadableAfter ||
			deletedUsers[c.Subject] || deletedUsers[c.Object] || (c.Kind == ChangePost && deletedPosts[c.Object]) {
			continue
		}
		_, havePost := posts[c.Object]
		_, haveFollowed := users[c.Object]
		_, haveUser := users[c.Subject]
		if (c.Kind == ChangePost && !havePost) || (c.Kind == ChangeFollow && !haveFollowed) ||
			(c.Kind == ChangeProfile && !haveUser) {
			return nil, nil, fmt.Errorf("change %d: what it names is not readable yet", c.Seq)
		}
	}
	var events []NewEvent
	snaps := map[string][]byte{}
	for _, c := range cs {
		for _, m := range watching[c.Kind][c.Subject] {
			switch c.Kind {
			case ChangePost:
				if data, ok := posts[c.Object]; ok {
					events = append(events, NewEvent{MonitorID: m.ID, Event: EventNewTweet,
						Dedup: "post:" + strconv.FormatInt(c.Object, 10), Data: data})
				}
			case ChangeFollow:
				if u, ok := users[c.Object]; ok {
					events = append(events, NewEvent{MonitorID: m.ID, Event: EventNewFollowing, Data: s.render.User(u)})
				}
			case ChangeProfile:
				u, ok := users[c.Subject]
				if !ok {
					continue
				}
				before, seen := snaps[m.ID]
				if !seen {
					before = m.Snapshot
				}
				after := snapshotOf(u)
				extra := profileChanges(before, after)
				if extra == nil {
					continue
				}
				snaps[m.ID] = after
				events = append(events, NewEvent{MonitorID: m.ID, Event: EventProfileUpdate,
					Data: s.render.User(u), Extra: extra})
			case ChangeUserDeleted:
				snap, seen := snaps[m.ID]
				if !seen {
					snap = m.Snapshot
				}
				events = append(events, NewEvent{MonitorID: m.ID, Event: EventUserDeleted, Dedup: "user_deleted",
					Data: deletedUser(c.Subject, snap)})
			}
		}
	}
	return events, snaps, nil
}

// deletedUser is the data of a user_deleted event: the account's id and
// the watched profile fields as the monitor last saw them (its snapshot),
// the account itself being gone.
func deletedUser(id int64, snapshot []byte) []byte {
	fields := map[string]any{}
	json.Unmarshal(snapshot, &fields) //nolint:errcheck // an empty snapshot is no fields
	fields["id"], fields["id_str"] = id, strconv.FormatInt(id, 10)
	out, _ := json.Marshal(fields) // strings and a number always encode
	return out
}

// profileFields are the profile fields whose change is a profile_update
// (the hosted API's list), by their names in the API.
func profileFields(u *social.User) [][2]string {
	return [][2]string{{"name", u.Name}, {"screen_name", u.ScreenName}, {"location", u.Location}, {"url", u.URL},
		{"description", u.Description}, {"profile_banner_url", u.BannerURL}, {"profile_image_url_https", u.ImageURL}}
}

// snapshotOf is the JSON object of a user's watched profile fields.
func snapshotOf(u *social.User) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range profileFields(u) {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f[0])
		v, _ := json.Marshal(f[1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// profileChanges is {"changes": {field: {before, after}}} for the fields
// that differ between two snapshots, nil when none does.
func profileChanges(before, after []byte) []byte {
	var b, a map[string]string
	json.Unmarshal(before, &b) //nolint:errcheck // an empty snapshot is no fields
	if err := json.Unmarshal(after, &a); err != nil {
		return nil
	}
	changed := map[string]wire.Change{}
	for k, v := range a {
		if old := b[k]; old != v {
			changed[k] = wire.Change{Before: old, After: v}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	out, _ := json.Marshal(map[string]any{"changes": changed})
	return out
}

func unique(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Search monitors' walk: at most searchPages pages of searchPageSize.
const (
	searchPages    = 5
	searchPageSize = 100
)

// searchWorkers is how many search monitors run at once: a run is a few
// reads and a transaction, mostly waiting for the database, and monitors
// due together (made together) would otherwise wait for each other.
const searchWorkers = 4

// SearchOnce runs the search monitors that are due, searchWorkers at a
// time: each searches the posts newer than its watermark (at most
// searchPages pages, newest first) and stores an event per new match with
// its next watermark and run, in one transaction. It reports how many
// monitors ran.
func (s *Service) SearchOnce(ctx context.Context) (int, error) {
	now := s.opt.Now()
	ms, err := s.store.SearchesDue(ctx, now, SearchQuery, SearchPumpFun)
	if err != nil || len(ms) == 0 {
		return 0, err
	}
	// The newest post when the round began: every run of the round looks
	// up to it, and the next round goes on from there.
	top, err := s.store.MaxPostID(ctx)
	if err != nil {
		return 0, err
	}
	var ran atomic.Int64
	var g errgroup.Group
	g.SetLimit(searchWorkers)
	for _, m := range ms {
		g.Go(func() error {
			if err := s.searchMonitor(ctx, m, top, now); err != nil {
				s.loopLog.warn("search monitor", err, "monitor", m.ID)
				return nil
			}
			ran.Add(1)
			return nil
		})
	}
	_ = g.Wait() // every run logs its own failure
	return int(ran.Load()), nil
}

// searchMonitor runs search monitor m over the posts after its watermark
// up to top.
func (s *Service) searchMonitor(ctx context.Context, m Monitor, top int64, now time.Time) error {
	next := nextRun(m, now)
	var found []social.Post
	if top > m.Watermark {
		q, err := search.Parse("("+m.Query+") since_id:"+strconv.FormatInt(m.Watermark, 10), now)
		if err != nil {
			return fmt.Errorf("query %q: %w", m.Query, err)
		}
		req := social.PageReq{Limit: searchPageSize}
		for page := 0; page < searchPages; page++ {
			pg, err := s.data.Search(ctx, q, social.Latest, req)
			if err != nil {
				return fmt.Errorf("search %q: %w", m.Query, err)
			}
			for _, p := range pg.Items {
				if p.ID > m.Watermark && p.ID <= top {
					found = append(found, p)
				}
			}
			if pg.Next == nil {
				break
			}
			req.After = pg.Next
		}
	}
	events, err := s.searchEvents(ctx, m, found)
	if err != nil {
		return err
	}
	ok, err := s.store.Searched(ctx, m.ID, m.Watermark, max(top, m.Watermark), next, events)
	if err == nil && ok {
		for _, e := range events {
			s.metrics.events.WithLabelValues(e.Event).Inc()
		}
	}
	return err
}

// nextRun is when a search monitor that ran at now runs next: a refresh
// after the run was due, so that runs keep their period however late in
// it each one starts (the service wakes when a run is due, and a run
// takes its time); a refresh after now when the monitor is a whole
// refresh behind (the service was down), so that missed runs are not
// made back to back.
func nextRun(m Monitor, now time.Time) time.Time {
	refresh := time.Duration(max(m.Refresh, 1)) * time.Second
	if next := m.NextRunAt.Add(refresh); next.After(now) {
		return next
	}
	return now.Add(refresh)
}

// searchEvents are a search monitor's events for its matches, oldest
// first; the pump.fun monitor keeps authors with enough followers who are
// not shadow-banned.
func (s *Service) searchEvents(ctx context.Context, m Monitor, found []social.Post) ([]NewEvent, error) {
	if len(found) == 0 {
		return nil, nil
	}
	if m.Kind == SearchPumpFun {
		authors := make([]int64, len(found))
		for i := range found {
			authors[i] = found[i].AuthorID
		}
		us, err := s.data.UsersByIDs(ctx, unique(authors))
		if err != nil {
			return nil, fmt.Errorf("pump.fun authors: %w", err)
		}
		ok := map[int64]bool{}
		for _, u := range us {
			ok[u.ID] = u.FollowersCount >= pumpFunFollowers && !u.ShadowBanned
		}
		kept := found[:0]
		for _, p := range found {
			if ok[p.AuthorID] {
				kept = append(kept, p)
			}
		}
		found = kept
	}
	ids := make([]int64, len(found))
	for i := range found {
		ids[len(found)-1-i] = found[i].ID // oldest first
	}
	posts, err := s.render.Posts(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("render posts: %w", err)
	}
	var events []NewEvent
	for _, id := range ids {
		if data, ok := posts[id]; ok {
			events = append(events, NewEvent{MonitorID: m.ID, Event: EventNewTweet,
				Dedup: "post:" + strconv.FormatInt(id, 10), Data: data})
		}
	}
	return events, nil
}
