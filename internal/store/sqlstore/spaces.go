package sqlstore

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

// SpaceColumns are the columns of a space that ScanSpace reads.
const SpaceColumns = `id, creator_id, title, state, created_at, scheduled_start, started_at, ended_at, updated_at,
	listeners, replay_watched, replay`

// ScanSpace reads a row of SpaceColumns (without its participants).
func ScanSpace(row Rows) (social.Space, error) {
	var s social.Space
	var created, scheduled, started, ended, updated int64
	if err := row.Scan(&s.ID, &s.CreatorID, &s.Title, &s.State, &created, &scheduled, &started, &ended, &updated,
		&s.Listeners, &s.ReplayWatched, &s.Replay); err != nil {
		return s, fmt.Errorf("scan space: %w", err)
	}
	s.CreatedAt, s.ScheduledStart, s.StartedAt = FromMicros(created), FromMicros(scheduled), FromMicros(started)
	s.EndedAt, s.UpdatedAt = FromMicros(ended), FromMicros(updated)
	return s, nil
}

// Space participant roles as stored.
const (
	SpaceAdmin   = 0
	SpaceSpeaker = 1
)

// Space returns the audio space with this id, its participants included.
func (r Reader) Space(ctx context.Context, id string) (social.Space, error) {
	s, err := one(ctx, r.DB, "space", `SELECT `+SpaceColumns+` FROM spaces WHERE id = ?`, []any{id}, ScanSpace)
	if err != nil {
		return s, err
	}
	spaces := []social.Space{s}
	if err := participants(ctx, r.DB, spaces); err != nil {
		return s, err
	}
	return spaces[0], nil
}

// participants fills in the admins and speakers of spaces.
func participants(ctx context.Context, db DB, spaces []social.Space) error {
	byID := make(map[string]*social.Space, len(spaces))
	ids := make([]any, len(spaces))
	for i := range spaces {
		byID[spaces[i].ID] = &spaces[i]
		ids[i] = spaces[i].ID
	}
	type part struct {
		space      string
		role, user int64
	}
	parts, err := in(ctx, db, `SELECT space_id, role, user_id FROM space_participants WHERE space_id IN (%s)
		ORDER BY space_id, role, position`, ids, func(row Rows) (part, error) {
		var p part
		return p, row.Scan(&p.space, &p.role, &p.user)
	})
	if err != nil {
		return fmt.Errorf("space participants: %w", err)
	}
	for _, p := range parts {
		s := byID[p.space]
		if p.role == SpaceAdmin {
			s.Admins = append(s.Admins, p.user)
		} else {
			s.Speakers = append(s.Speakers, p.user)
		}
	}
	return nil
}

// CheckSpace refuses a space no engine can store: one without an id.
func CheckSpace(s *social.Space) error {
	if s.ID == "" {
		return fmt.Errorf("space without an id: %w", social.ErrInvalid)
	}
	return nil
}

// ParticipantRows are the space_participants rows of a space (space_id,
// role, position, user_id): the admins, then the speakers, each numbered
// from 0 in their order.
func ParticipantRows(s *social.Space) [][]any {
	rows := make([][]any, 0, len(s.Admins)+len(s.Speakers))
	for role, ids := range [][]int64{SpaceAdmin: s.Admins, SpaceSpeaker: s.Speakers} {
		for i, id := range ids {
			rows = append(rows, []any{s.ID, int64(role), int64(i), id})
		}
	}
	return rows
}
