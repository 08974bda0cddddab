package gen

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/roostapi/roost/internal/social"
)

// checkLikes checks that every post of w has min(favorites, likeCap,
// users-1) likes, from distinct users other than its author, after it was
// created.
func checkLikes(t *testing.T, cfg Config, w *world, sum Summary) {
	t.Helper()
	byPost := map[int64][]social.Like{}
	for _, l := range w.likes {
		byPost[l.PostID] = append(byPost[l.PostID], l)
	}
	for id, p := range w.posts {
		ls := byPost[id]
		if want := min(p.FavoriteCount, likeCap, int64(cfg.Users-1)); int64(len(ls)) != want {
			t.Errorf("%+v: post %d with %d favorites has %d likes, want %d", cfg, id, p.FavoriteCount, len(ls), want)
		}
		seen := map[int64]bool{}
		for _, l := range ls {
			if _, ok := w.users[l.UserID]; !ok || l.UserID == p.AuthorID || seen[l.UserID] {
				t.Errorf("%+v: post %d liked by %d (author %d, seen %v)", cfg, id, l.UserID, p.AuthorID, seen[l.UserID])
			}
			seen[l.UserID] = true
			if !l.CreatedAt.After(p.CreatedAt) || l.CreatedAt.Sub(p.CreatedAt) > time.Duration(likeWindowMS)*time.Millisecond {
				t.Errorf("%+v: post %d of %v liked at %v", cfg, id, p.CreatedAt, l.CreatedAt)
			}
		}
		delete(byPost, id)
	}
	if len(byPost) > 0 {
		t.Errorf("%+v: likes of %d posts that were never written", cfg, len(byPost))
	}
	if sum.Likes != int64(len(w.likes)) {
		t.Errorf("%+v: summary counts %d likes, %d written", cfg, sum.Likes, len(w.likes))
	}
}

func TestLikesFollowFavorites(t *testing.T) {
	w, sum := smallWorld(t)
	checkLikes(t, smallConfig, w, sum)
	if sum.Likes < int64(len(w.posts))/5 {
		t.Errorf("%d likes for %d posts", sum.Likes, len(w.posts))
	}
	// Two users: a liker is found even when the draws keep picking the
	// author.
	for _, cfg := range []Config{{Users: 2, Posts: 300, BatchSize: 7}, {Users: 1, Posts: 50}} {
		w, sum := buildWorld(t, cfg)
		checkLikes(t, cfg, w, sum)
	}
}

func TestSpaces(t *testing.T) {
	cfg := Config{Seed: 9, Users: 1000, Posts: 2000}
	w, sum := buildWorld(t, cfg)
	if len(w.spaces) != 5 || sum.Spaces != 5 {
		t.Fatalf("%d spaces written, summary %d; want 5 (one per %d users)", len(w.spaces), sum.Spaces, usersPerSpace)
	}
	states := map[string]int{}
	ids := map[string]bool{}
	end := utc(windowEndMS)
	for _, sp := range w.spaces {
		states[sp.State]++
		if len(sp.ID) != 13 || sp.ID[0] != '1' || strings.Trim(sp.ID, base62) != "" || ids[sp.ID] {
			t.Errorf("space id %q", sp.ID)
		}
		ids[sp.ID] = true
		if len(sp.Admins) == 0 || sp.Admins[0] != sp.CreatorID || len(sp.Admins) > 4 || len(sp.Speakers) > 10 {
			t.Errorf("space %s: host %d, admins %v, speakers %v", sp.ID, sp.CreatorID, sp.Admins, sp.Speakers)
		}
		seen := map[int64]bool{}
		for _, u := range append(append([]int64{}, sp.Admins...), sp.Speakers...) {
			if _, ok := w.users[u]; !ok || seen[u] {
				t.Errorf("space %s: participant %d unknown or twice", sp.ID, u)
			}
			seen[u] = true
		}
		if sp.Title == "" || sp.CreatedAt.IsZero() || sp.UpdatedAt.Before(sp.CreatedAt) {
			t.Errorf("space %s: title %q, created %v, updated %v", sp.ID, sp.Title, sp.CreatedAt, sp.UpdatedAt)
		}
		switch sp.State {
		case social.SpaceEnded:
			if !sp.CreatedAt.Before(sp.StartedAt) || !sp.StartedAt.Before(sp.EndedAt) || sp.EndedAt.After(sp.UpdatedAt) ||
				sp.UpdatedAt.After(end) || (!sp.ScheduledStart.IsZero() && sp.ScheduledStart.Before(sp.CreatedAt)) {
				t.Errorf("ended space %s: times %+v", sp.ID, sp)
			}
		case social.SpaceRunning:
			if !sp.StartedAt.Before(end) || !sp.EndedAt.IsZero() || sp.Replay || sp.StartedAt.Before(sp.CreatedAt) {
				t.Errorf("running space %s: %+v", sp.ID, sp)
			}
		case social.SpaceScheduled:
			if !sp.ScheduledStart.After(end) || !sp.StartedAt.IsZero() || len(sp.Speakers) > 0 || sp.Listeners != 0 || sp.Replay {
				t.Errorf("scheduled space %s: %+v", sp.ID, sp)
			}
		default:
			t.Errorf("space %s: state %q", sp.ID, sp.State)
		}
		if !sp.Replay && sp.ReplayWatched != 0 {
			t.Errorf("space %s: replayed %d times without a replay", sp.ID, sp.ReplayWatched)
		}
	}
	if states[social.SpaceEnded] != 3 || states[social.SpaceRunning] != 1 || states[social.SpaceScheduled] != 1 {
		t.Errorf("states %v", states)
	}
	var ex *social.Space
	for i := range w.spaces {
		if w.spaces[i].ID == sum.Examples.SpaceID {
			ex = &w.spaces[i]
		}
	}
	if ex == nil || ex.State != social.SpaceEnded || len(ex.Speakers) == 0 {
		t.Errorf("example space %q: %+v", sum.Examples.SpaceID, ex)
	}
	if _, sum := buildWorld(t, Config{Users: 1, Posts: 5}); sum.Spaces != 1 || sum.Examples.SpaceID == "" {
		t.Errorf("a one-user network: %d spaces, example %q", sum.Spaces, sum.Examples.SpaceID)
	}
}

func TestExtendedBios(t *testing.T) {
	w, sum := smallWorld(t)
	var with int64
	for _, u := range w.users {
		if u.ExtendedBio == "" {
			continue
		}
		with++
		paras := strings.Split(u.ExtendedBio, "\n")
		if len(paras) > 4 {
			t.Errorf("user %d: %d paragraphs", u.ID, len(paras))
		}
		for _, p := range paras {
			if p == "" || utf8.RuneCountInString(p) > bioMaxParagraph || !utf8.ValidString(p) {
				t.Errorf("user %d: paragraph %q", u.ID, p)
			}
		}
	}
	if with != sum.ExtendedBios || with < int64(len(w.users))/20 || with > int64(len(w.users))/6 {
		t.Errorf("%d of %d users have an extended bio, summary %d; want about 10%%", with, len(w.users), sum.ExtendedBios)
	}
	if w.bioChanges > 0 {
		t.Errorf("%d later copies of a user changed the extended bio", w.bioChanges)
	}
	var ex social.User
	for _, u := range w.users {
		if u.ScreenName == sum.Examples.ExtendedBioUsername {
			ex = u
		}
	}
	if ex.ExtendedBio == "" || ex.Protected || ex.ShadowBanned {
		t.Errorf("example %q: %+v", sum.Examples.ExtendedBioUsername, ex)
	}
}
