package importer

import (
	"encoding/json"

	"slices"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// gqlAudioSpace is data.audioSpace of an AudioSpaceById response. Times are
// Unix milliseconds, as numbers or strings (ended_at is a string).
type gqlAudioSpace struct {
	Metadata *struct {
		RestID             string    `json:"rest_id"`
		State              string    `json:"state"`
		Title              string    `json:"title"`
		CreatedAt          flexInt   `json:"created_at"`
		ScheduledStart     flexInt   `json:"scheduled_start"`
		StartedAt          flexInt   `json:"started_at"`
		EndedAt            flexInt   `json:"ended_at"`
		UpdatedAt          flexInt   `json:"updated_at"`
		TotalLiveListeners flexInt   `json:"total_live_listeners"`
		TotalReplayWatched flexInt   `json:"total_replay_watched"`
		Replay             bool      `json:"is_space_available_for_replay"`
		CreatorResults     gqlResult `json:"creator_results"`
	} `json:"metadata"`
	Participants struct {
		Admins   []gqlParticipant `json:"admins"`
		Speakers []gqlParticipant `json:"speakers"`
	} `json:"participants"`
}

// gqlParticipant is a member of a space's roster: its user is named by
// user_results.rest_id (the result beside it holds no profile).
type gqlParticipant struct {
	TwitterScreenName string `json:"twitter_screen_name"`
	DisplayName       string `json:"display_name"`
	UserResults       struct {
		RestID flexInt `json:"rest_id"`
	} `json:"user_results"`
}

// space converts an audio space into one record: the space, its creator's
// profile and its admins and speakers as stubs. Listeners are not stored
// (only their count, total_live_listeners). The creator is the first admin,
// as the roster lists it; a roster that does not start with the creator
// gets the creator put first.
func (w *gqlWalker) space(raw []byte, path string) {
	a := w.at
	a.Path = path
	var g gqlAudioSpace
	if err := json.Unmarshal(raw, &g); err != nil {
		w.out = append(w.out, bad(a, "invalid audio space: %v", err))
		return
	}
	m := g.Metadata
	if m == nil || m.RestID == "" {
		w.out = append(w.out, bad(a, "audio space without metadata.rest_id"))
		return
	}
	sp := social.Space{ID: m.RestID, Title: m.Title, State: m.State, CreatedAt: msTime(m.CreatedAt),
		ScheduledStart: msTime(m.ScheduledStart), StartedAt: msTime(m.StartedAt), EndedAt: msTime(m.EndedAt),
		UpdatedAt: msTime(m.UpdatedAt), Listeners: int64(m.TotalLiveListeners),
		ReplayWatched: int64(m.TotalReplayWatched), Replay: m.Replay}
	var it item
	if len(m.CreatorResults.Result) > 0 {
		var gu gqlUser
		if err := json.Unmarshal(m.CreatorResults.Result, &gu); err != nil {
			w.out = append(w.out, bad(a, "audio space %s creator: %v", sp.ID, err))
			return
		}
		u, err := gu.toUser()
		if err != nil {
			w.out = append(w.out, bad(a, "audio space %s creator: %v", sp.ID, err))
			return
		}
		sp.CreatorID = u.ID
		it.batch.Users = append(it.batch.Users, u)
	}
	roster := func(ps []gqlParticipant) []int64 {
		var ids []int64
		for _, p := range ps {
			if id := int64(p.UserResults.RestID); id > 0 {
				ids = append(ids, id)
				it.batch.Users = append(it.batch.Users, social.User{ID: id, ScreenName: p.TwitterScreenName,
					Name: p.DisplayName, Stub: true})
			}
		}
		return ids
	}
	sp.Admins, sp.Speakers = roster(g.Participants.Admins), roster(g.Participants.Speakers)
	if sp.CreatorID == 0 && len(sp.Admins) > 0 {
		sp.CreatorID = sp.Admins[0]
	}
	if sp.CreatorID == 0 {
		w.out = append(w.out, bad(a, "audio space %s names no creator", sp.ID))
		return
	}
	if len(sp.Admins) == 0 || sp.Admins[0] != sp.CreatorID {
		sp.Admins = append([]int64{sp.CreatorID}, slices.DeleteFunc(sp.Admins, func(id int64) bool { return id == sp.CreatorID })...)
	}
	if sp.State == "" {
		w.out = append(w.out, bad(a, "audio space %s without a state", sp.ID))
		return
	}
	it.batch.Spaces = []social.Space{sp}
	w.out = append(w.out, it)
}

// msTime is a time in Unix milliseconds; zero (absent) is the zero time.
func msTime(ms flexInt) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}
