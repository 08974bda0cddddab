package httpapi

import (
	"context"
	"fmt"
	"strconv"

	"github.com/roostapi/roost/client/wire"
)

// The social-action checks answer a yes or no about one pair (wire.Commented,
// wire.Retweeted, wire.Following); each costs one item. The deprecated
// *_checked_count fields are null, as hosted.

const statusSuccess = "success"

// postAndUser checks that the post a.id and the user a.id2 exist.
func postAndUser(ctx context.Context, s *server, a *args) error {
	if err := postExists(ctx, s, a.id); err != nil {
		return orNotFound(err, msgTweetNotFound)
	}
	return orNotFound(userExists(ctx, s, a.id2), msgUserNotFound)
}

// orNotFound is err, or the 404 answer msg when err is a missing entity.
func orNotFound(err error, msg string) error {
	if errorsIsNotFound(err) {
		return notFound(msg)
	}
	return err
}

// serveCommentedBy is GET /tweets/{tweet_id}/commented_by/{user_id}: the
// user's direct replies to the post.
func serveCommentedBy(ctx context.Context, s *server, a *args) (any, int, error) {
	if err := postAndUser(ctx, s, a); err != nil {
		return nil, 0, err
	}
	ids, err := s.store.ReplyIDs(ctx, a.id, a.id2)
	if err != nil {
		return nil, 0, fmt.Errorf("replies of %d to %d: %w", a.id2, a.id, err)
	}
	out := wire.Commented{Status: statusSuccess, IsCommented: len(ids) > 0, CommentIDs: make([]string, len(ids))}
	for i, id := range ids {
		out.CommentIDs[i] = strconv.FormatInt(id, 10)
	}
	return out, 1, nil
}

// serveRetweetedBy is GET /tweets/{tweet_id}/retweeted_by/{user_id}.
func serveRetweetedBy(ctx context.Context, s *server, a *args) (any, int, error) {
	if err := postAndUser(ctx, s, a); err != nil {
		return nil, 0, err
	}
	ok, err := s.store.Reposted(ctx, a.id, a.id2)
	if err != nil {
		return nil, 0, fmt.Errorf("repost of %d by %d: %w", a.id, a.id2, err)
	}
	return wire.Retweeted{Status: statusSuccess, IsRetweeted: ok, SourceUserID: strconv.FormatInt(a.id2, 10),
		TargetTweetID: strconv.FormatInt(a.id, 10)}, 1, nil
}

// serveFollowingCheck is GET /user/{source_user_id}/following/{target_user_id}.
func serveFollowingCheck(ctx context.Context, s *server, a *args) (any, int, error) {
	for _, id := range [2]int64{a.id, a.id2} {
		if err := userExists(ctx, s, id); err != nil {
			return nil, 0, orNotFound(err, msgUserNotFound)
		}
	}
	ok, err := s.store.Follows(ctx, a.id, a.id2)
	if err != nil {
		return nil, 0, fmt.Errorf("follow of %d by %d: %w", a.id2, a.id, err)
	}
	return wire.Following{Status: statusSuccess, IsFollowing: ok, SourceUserID: strconv.FormatInt(a.id, 10),
		TargetUserID: strconv.FormatInt(a.id2, 10)}, 1, nil
}
