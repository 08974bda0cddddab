package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// WorldData is what the /admin/world routes need of the data: its
// readers and the one write path.
type WorldData interface {
	social.Reader
	social.Writer
}

// worldDeleteRoutes delete a post or a user of the world as the network
// deletes them (docs/api.md, "Deleted posts and accounts").
func worldDeleteRoutes() []route {
	return []route{
		{"DELETE", "/admin/world/posts/{tweet_id}", "Delete a post, with its native reposts, likes and everything " +
			"keyed by it; the counts of the posts it replied to, quoted and reposted move (204; 404 when it is not " +
			"stored, and nothing is written)", (*handler).deleteWorldPost, nil, 204, nil, nil, []int{404, 422}, "", 0},
		{"DELETE", "/admin/world/users/{user_id}", "Delete a user (an account deleted or suspended), with its posts, " +
			"follows both ways, likes, reposts, lists, memberships and spaces (204; 404 when it is not stored)",
			(*handler).deleteWorldUser, nil, 204, nil, nil, []int{404, 422}, "", 0},
	}
}

// DeletePost deletes a stored post (social.Batch.DeletePosts): its id is
// tombstoned and never stored again. A post that is not stored is
// social.ErrNotFound, and nothing is written (no tombstone).
func (s *Service) DeletePost(ctx context.Context, id int64) error {
	if err := s.worldData(); err != nil {
		return err
	}
	found, err := s.Data.Posts(ctx, []int64{id})
	if err != nil {
		return fmt.Errorf("post %d: %w", id, err)
	}
	if len(found) == 0 {
		return fmt.Errorf("post %d: %w", id, social.ErrNotFound)
	}
	if _, err := s.Data.Write(ctx, &social.Batch{DeletePosts: []int64{id}}); err != nil {
		return fmt.Errorf("delete post %d: %w", id, err)
	}
	return nil
}

// DeleteUser deletes a stored user (social.Batch.DeleteUsers), as
// DeletePost deletes a post.
func (s *Service) DeleteUser(ctx context.Context, id int64) error {
	if err := s.worldData(); err != nil {
		return err
	}
	if _, err := s.Data.User(ctx, id); err != nil {
		return fmt.Errorf("user %d: %w", id, err)
	}
	if _, err := s.Data.Write(ctx, &social.Batch{DeleteUsers: []int64{id}}); err != nil {
		return fmt.Errorf("delete user %d: %w", id, err)
	}
	return nil
}

func (s *Service) worldData() error {
	if s.Data == nil {
		return errors.New("admin: no world data to change (Service.Data is not set)")
	}
	return nil
}

func (h *handler) deleteWorldPost(w http.ResponseWriter, r *http.Request) {
	h.deleteWorld(w, r, "tweet_id", "Tweet not found", h.svc.DeletePost)
}

func (h *handler) deleteWorldUser(w http.ResponseWriter, r *http.Request) {
	h.deleteWorld(w, r, "user_id", "User not found", h.svc.DeleteUser)
}

// deleteWorld answers 204 when del deleted the id of the path parameter
// param, 404 with notFound when it is not stored.
func (h *handler) deleteWorld(w http.ResponseWriter, r *http.Request, param, notFound string,
	del func(context.Context, int64) error) {
	id, err := strconv.ParseInt(r.PathValue(param), 10, 64)
	if err != nil || id < 1 {
		writeError(w, http.StatusUnprocessableEntity, param+" must be a positive integer")
		return
	}
	switch err := del(r.Context(), id); {
	case errors.Is(err, social.ErrNotFound):
		writeError(w, http.StatusNotFound, notFound)
	case err != nil:
		h.fail(w, r, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
