package sqlstore

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/world"
)

var _ world.Relations = World{}

// relationTables are the table and pair columns of each world.Relation.
var relationTables = map[world.Relation][3]string{
	world.Follow:          {"follows", "follower_id", "followee_id"},
	world.Like:            {"likes", "post_id", "user_id"},
	world.Repost:          {"reposts", "post_id", "user_id"},
	world.ListMember:      {"list_members", "list_id", "user_id"},
	world.ListSubscriber:  {"list_subscribers", "list_id", "user_id"},
	world.CommunityMember: {"community_members", "community_id", "user_id"},
}

// Related reports whether the pair (a, b) of relation r is stored.
func (w World) Related(ctx context.Context, r world.Relation, a, b int64) (bool, error) {
	t, ok := relationTables[r]
	if !ok {
		return false, fmt.Errorf("relation %d: unknown", r)
	}
	return exists(ctx, w.DB, `SELECT 1 FROM `+t[0]+` WHERE `+t[1]+` = ? AND `+t[2]+` = ?`, a, b)
}

// MaxUserID is the highest id of a stored user, stubs included (0: none).
func (w World) MaxUserID(ctx context.Context) (int64, error) {
	return one(ctx, w.DB, "users", `SELECT coalesce(max(id), 0) FROM users`, nil, scanID)
}
