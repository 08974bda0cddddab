package sqlite

import (
	"fmt"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// spaces upserts a batch's audio spaces in batch order (a later copy of a
// space replaces an earlier one). Each write of a space replaces its
// participants as a whole.
func (w *batchWriter) spaces(ss []social.Space) error {
	for i := range ss {
		s := &ss[i]
		if err := sqlstore.CheckSpace(s); err != nil {
			return fmt.Errorf("sqlite: write: %w", err)
		}
		if err := w.exec(`INSERT INTO spaces (`+sqlstore.SpaceColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET creator_id = excluded.creator_id, title = excluded.title,
			state = excluded.state, created_at = excluded.created_at, scheduled_start = excluded.scheduled_start,
			started_at = excluded.started_at, ended_at = excluded.ended_at, updated_at = excluded.updated_at,
			listeners = excluded.listeners, replay_watched = excluded.replay_watched, replay = excluded.replay`,
			s.ID, s.CreatorID, s.Title, s.State, sqlstore.Micros(s.CreatedAt), sqlstore.Micros(s.ScheduledStart),
			sqlstore.Micros(s.StartedAt), sqlstore.Micros(s.EndedAt), sqlstore.Micros(s.UpdatedAt),
			s.Listeners, s.ReplayWatched, b2i(s.Replay)); err != nil {
			return err
		}
		if err := w.exec(`DELETE FROM space_participants WHERE space_id = ?`, s.ID); err != nil {
			return err
		}
		var flat []any
		for _, r := range sqlstore.ParticipantRows(s) {
			flat = append(flat, r...)
		}
		if err := w.execRows(`INSERT INTO space_participants (space_id, role, position, user_id) VALUES `,
			"(?,?,?,?)", "", 4, relationChunk, flat); err != nil {
			return err
		}
	}
	return nil
}
