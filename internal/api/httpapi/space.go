package httpapi

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// millis is t in Unix milliseconds, nil for the zero time.
func millis(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// serveSpace is GET /space/{space_id}, following the hosted service's
// example (wire.Space).
func serveSpace(ctx context.Context, s *server, a *args) (any, int, error) {
	sp, err := s.store.Space(ctx, a.name)
	if err != nil {
		return nil, 0, fmt.Errorf("space %s: %w", a.name, err)
	}
	ids := append(append([]int64{sp.CreatorID}, sp.Admins...), sp.Speakers...)
	users, err := s.store.UsersByIDs(ctx, ids)
	if err != nil {
		return nil, 0, fmt.Errorf("people of space %s: %w", a.name, err)
	}
	byID := make(map[int64]*social.User, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	people := func(ids []int64) []wire.Profile {
		out := make([]wire.Profile, 0, len(ids))
		for _, id := range ids {
			if u := byID[id]; u != nil {
				out = append(out, newProfile(u, true))
			}
		}
		return out
	}
	h := fnv.New64a()
	h.Write([]byte(sp.ID))
	out := wire.Space{ID: sp.ID, State: sp.State, Title: sp.Title,
		MediaKey:  "28_" + strconv.FormatUint(h.Sum64()>>1, 10),
		CreatedAt: millis(sp.CreatedAt), ScheduledStart: millis(sp.ScheduledStart), StartedAt: millis(sp.StartedAt),
		UpdatedAt: millis(sp.UpdatedAt), IsSpaceAvailableForReplay: sp.Replay,
		TotalReplayWatched: sp.ReplayWatched, TotalLiveListeners: sp.Listeners,
		Participants: wire.SpaceParticipants{Admins: people(sp.Admins), Speakers: people(sp.Speakers)}}
	if ms := millis(sp.EndedAt); ms != nil {
		e := strconv.FormatInt(*ms, 10)
		out.EndedAt = &e
	}
	if c := people([]int64{sp.CreatorID}); len(c) == 1 {
		out.Creator = &c[0]
	}
	out.Participants.Total = len(out.Participants.Admins) + len(out.Participants.Speakers)
	return out, 1, nil
}
