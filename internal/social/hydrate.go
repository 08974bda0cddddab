package social

import (
	"context"
	"fmt"
)

// PostView is a post ready to serve: with its author and the posts it quotes
// or reposts (those two levels deep, so that a repost of a quote carries
// both).
type PostView struct {
	Post
	Author   User
	Quoted   *PostView
	RepostOf *PostView
	// Pinned is true when the post is its author's pinned post.
	Pinned bool
}

// MaxNesting is how deep quoted and reposted posts are resolved: a view
// at this depth has neither.
const MaxNesting = 2

// EntityReader is what Hydrate reads: posts and users by id.
type EntityReader interface {
	Posts(ctx context.Context, ids []int64) ([]Post, error)
	UsersByIDs(ctx context.Context, ids []int64) ([]User, error)
}

// Hydrate turns bare posts into views with a few batched reads: the posts
// they reference, then every author at once. A referenced post that is not
// stored is left nil; an author that is not stored is served as a bare user
// with only its id (writers store a stub for every author, so this is rare).
func Hydrate(ctx context.Context, r EntityReader, posts []Post) ([]PostView, error) {
	known := make(map[int64]*Post, len(posts))
	for i := range posts {
		known[posts[i].ID] = &posts[i]
	}
	level := posts
	for depth := 0; depth < MaxNesting && len(level) > 0; depth++ {
		var want []int64
		for i := range level {
			for _, id := range [2]int64{level[i].QuotedID, level[i].RepostOfID} {
				if id != 0 && known[id] == nil {
					want = append(want, id)
				}
			}
		}
		if len(want) == 0 {
			break
		}
		got, err := r.Posts(ctx, want)
		if err != nil {
			return nil, fmt.Errorf("hydrate referenced posts: %w", err)
		}
		for i := range got {
			known[got[i].ID] = &got[i]
		}
		level = got
	}
	authorIDs := make([]int64, 0, len(known))
	seen := make(map[int64]bool, len(known))
	for _, p := range known {
		if !seen[p.AuthorID] {
			seen[p.AuthorID] = true
			authorIDs = append(authorIDs, p.AuthorID)
		}
	}
	users, err := r.UsersByIDs(ctx, authorIDs)
	if err != nil {
		return nil, fmt.Errorf("hydrate authors: %w", err)
	}
	byID := make(map[int64]User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	var view func(p *Post, depth int) PostView
	view = func(p *Post, depth int) PostView {
		a, ok := byID[p.AuthorID]
		if !ok {
			a = User{ID: p.AuthorID, Stub: true}
		}
		v := PostView{Post: *p, Author: a, Pinned: a.PinnedPostID == p.ID}
		if depth < MaxNesting {
			if q := known[p.QuotedID]; p.QuotedID != 0 && q != nil {
				qv := view(q, depth+1)
				v.Quoted = &qv
			}
			if rp := known[p.RepostOfID]; p.RepostOfID != 0 && rp != nil {
				rv := view(rp, depth+1)
				v.RepostOf = &rv
			}
		}
		return v
	}
	out := make([]PostView, len(posts))
	for i := range posts {
		out[i] = view(&posts[i], 0)
	}
	return out, nil
}
