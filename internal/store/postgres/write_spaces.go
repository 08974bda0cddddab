package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

var upsertSpace = &upsertSpec{
	stage: "stage_spaces", table: "spaces",
	cols: concat(cols("text", "id"), cols("bigint", "creator_id"), cols("text", "title", "state"),
		cols("bigint", "created_at", "scheduled_start", "started_at", "ended_at", "updated_at", "listeners",
			"replay_watched"), cols("boolean", "replay")),
	conflict: "ON CONFLICT (id) DO UPDATE SET " + setExcluded("creator_id", "title", "state", "created_at",
		"scheduled_start", "started_at", "ended_at", "updated_at", "listeners", "replay_watched", "replay"),
}

// insertParticipant stages role and position as bigint: the binary COPY
// encodes no smaller integers, and INSERT … SELECT narrows them.
var insertParticipant = &upsertSpec{
	stage: "stage_space_participants", table: "space_participants",
	cols:     concat(cols("text", "space_id"), cols("bigint", "role", "position", "user_id")),
	conflict: "ON CONFLICT (space_id, role, position) DO UPDATE SET user_id = excluded.user_id",
}

// writeSpaces upserts audio spaces (the last copy of a space in the batch
// wins) and replaces the participants of each as a whole.
func writeSpaces(ctx context.Context, tx pgx.Tx, ss []social.Space) error {
	if len(ss) == 0 {
		return nil
	}
	var parts [][]any // the participants of the copies kept
	rows := lastWins(len(ss), func(i int) string { return ss[i].ID }, func(i int) []any {
		s := &ss[i]
		parts = append(parts, sqlstore.ParticipantRows(s)...)
		return []any{s.ID, s.CreatorID, s.Title, s.State, sqlstore.Micros(s.CreatedAt), sqlstore.Micros(s.ScheduledStart),
			sqlstore.Micros(s.StartedAt), sqlstore.Micros(s.EndedAt), sqlstore.Micros(s.UpdatedAt), s.Listeners,
			s.ReplayWatched, s.Replay}
	})
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r[0].(string)
	}
	if err := upsertSpace.run(ctx, tx, rows); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM space_participants WHERE space_id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("postgres: write space_participants: %w", err)
	}
	return insertParticipant.run(ctx, tx, parts)
}
