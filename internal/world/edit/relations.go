package edit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world"
	"github.com/roostapi/roost/internal/world/fixture"
)

// Kind is a relation the world API adds and removes.
type Kind string

// Kinds, as the world API's paths name them.
const (
	Follows          Kind = "follows"
	Likes            Kind = "likes"
	ListMembers      Kind = "list-members"
	ListSubscribers  Kind = "list-subscribers"
	CommunityMembers Kind = "community-members"
)

// Pair is a relation's body: both its ends (follower and followee; user
// and post, list or community), the time it starts (added ones; wall
// clock when left out) and a community member's role (Member when left
// out).
type Pair struct {
	Follower  fixture.Ref  `json:"follower,omitempty"`
	Followee  fixture.Ref  `json:"followee,omitempty"`
	User      fixture.Ref  `json:"user,omitempty"`
	Post      fixture.Ref  `json:"post,omitempty"`
	List      fixture.Ref  `json:"list,omitempty"`
	Community fixture.Ref  `json:"community,omitempty"`
	Role      string       `json:"role,omitempty"`
	CreatedAt fixture.Time `json:"created_at,omitempty"`
}

// ends are the fields a kind's body names.
var ends = map[Kind][2]string{
	Follows: {"follower", "followee"}, Likes: {"user", "post"}, ListMembers: {"list", "user"},
	ListSubscribers: {"list", "user"}, CommunityMembers: {"community", "user"},
}

// Relate adds (add) or removes a relation of kind k named by tree, and
// reports whether that changed anything (adding a stored relation, or
// removing one that is not, changes nothing, but a community member's
// new role). The counts of both ends move as the living world's do.
func (e *Editor) Relate(ctx context.Context, k Kind, tree any, add bool) (bool, error) {
	names, ok := ends[k]
	if !ok {
		return false, fmt.Errorf("no relation %q: %w", k, social.ErrInvalid)
	}
	var body Pair
	if err := fixture.Decode("", tree, &body, e.now()); err != nil {
		return false, err
	}
	if m, _ := tree.(map[string]any); m != nil {
		for key := range m {
			if key != names[0] && key != names[1] && key != "created_at" && (key != "role" || k != CommunityMembers) {
				return false, fmt.Errorf("%s: not a field of %s (%s, %s): %w", key, k, names[0], names[1], social.ErrInvalid)
			}
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &relater{e: e, ctx: ctx, b: &social.Batch{}, at: e.now()}
	if body.CreatedAt.Set {
		r.at = body.CreatedAt.At
	}
	var changed bool
	var err error
	switch k {
	case Follows:
		changed, err = r.follow(body, add)
	case Likes:
		changed, err = r.like(body, add)
	case ListMembers, ListSubscribers:
		changed, err = r.list(body, k == ListMembers, add)
	default:
		changed, err = r.community(body, add)
	}
	if err != nil || !changed {
		return false, err
	}
	if _, err := e.w.Write(ctx, r.b); err != nil {
		return false, fmt.Errorf("write: %w", err)
	}
	return true, nil
}

// relater makes one relation's batch.
type relater struct {
	e   *Editor
	ctx context.Context
	b   *social.Batch
	at  time.Time
}

// user resolves a user end: a screen name or an id of a full profile.
func (r *relater) user(field string, ref fixture.Ref) (social.User, error) {
	if ref == "" {
		return social.User{}, fmt.Errorf("%s: required: a screen name or a user id: %w", field, social.ErrInvalid)
	}
	var us []social.User
	var err error
	if id, ok := ref.ID(); ok {
		us, err = r.e.look.UsersByIDs(r.ctx, []int64{id})
	} else {
		us, err = r.e.look.UsersByScreenNames(r.ctx, []string{string(ref)})
	}
	if err != nil {
		return social.User{}, err
	}
	for _, u := range us {
		if !u.Stub {
			return u, nil
		}
	}
	return social.User{}, fmt.Errorf("%s: no user %q: %w", field, ref, social.ErrInvalid)
}

// id reads an id end.
func id(field string, ref fixture.Ref) (int64, error) {
	n, ok := ref.ID()
	if !ok {
		return 0, fmt.Errorf("%s: want an id, not %q: %w", field, ref, social.ErrInvalid)
	}
	return n, nil
}

// related reports whether the pair is stored.
func (r *relater) related(rel world.Relation, a, b int64) (bool, error) {
	return r.e.look.Related(r.ctx, rel, a, b)
}

// step moves a count by one, never below 0.
func step(n *int64, add bool) {
	if add {
		*n++
	} else if *n > 0 {
		*n--
	}
}

func (r *relater) follow(body Pair, add bool) (bool, error) {
	a, err := r.user("follower", body.Follower)
	if err != nil {
		return false, err
	}
	b, err := r.user("followee", body.Followee)
	if err != nil {
		return false, err
	}
	if a.ID == b.ID {
		return false, fmt.Errorf("followee: %s cannot follow itself: %w", a.ScreenName, social.ErrInvalid)
	}
	if stored, err := r.related(world.Follow, a.ID, b.ID); err != nil || stored == add {
		return false, err
	}
	step(&a.FriendsCount, add)
	step(&b.FollowersCount, add)
	f := social.Follow{FollowerID: a.ID, FolloweeID: b.ID, CreatedAt: r.at}
	if add {
		r.b.Follows = []social.Follow{f}
	} else {
		r.b.Unfollows = []social.Follow{f}
	}
	r.b.Users = []social.User{a, b}
	return true, nil
}

func (r *relater) like(body Pair, add bool) (bool, error) {
	u, err := r.user("user", body.User)
	if err != nil {
		return false, err
	}
	pid, err := id("post", body.Post)
	if err != nil {
		return false, err
	}
	ps, err := r.e.look.Posts(r.ctx, []int64{pid})
	if err != nil {
		return false, err
	}
	if len(ps) == 0 {
		return false, fmt.Errorf("post: no post %d: %w", pid, social.ErrInvalid)
	}
	p := ps[0]
	if stored, err := r.related(world.Like, p.ID, u.ID); err != nil || stored == add {
		return false, err
	}
	step(&p.FavoriteCount, add)
	step(&u.FavouritesCount, add)
	l := social.Like{PostID: p.ID, UserID: u.ID, CreatedAt: r.at}
	if add {
		r.b.Likes = []social.Like{l}
	} else {
		r.b.Unlikes = []social.Like{l}
	}
	r.b.Users, r.b.Posts = []social.User{u}, []social.Post{p}
	return true, nil
}

func (r *relater) list(body Pair, member, add bool) (bool, error) {
	lid, err := id("list", body.List)
	if err != nil {
		return false, err
	}
	l, err := r.e.look.List(r.ctx, lid)
	if err != nil {
		return false, invalidIfMissing("list", err)
	}
	u, err := r.user("user", body.User)
	if err != nil {
		return false, err
	}
	rel := world.ListSubscriber
	if member {
		rel = world.ListMember
	}
	if stored, err := r.related(rel, l.ID, u.ID); err != nil || stored == add {
		return false, err
	}
	if member {
		step(&l.MemberCount, add)
		step(&u.ListedCount, add)
		r.b.Users = []social.User{u}
		m := social.ListMember{ListID: l.ID, UserID: u.ID, CreatedAt: r.at}
		if add {
			r.b.ListMembers = []social.ListMember{m}
		} else {
			r.b.ListRemovals = []social.ListMember{m}
		}
	} else {
		step(&l.SubscriberCount, add)
		s := social.ListSubscriber{ListID: l.ID, UserID: u.ID, CreatedAt: r.at}
		if add {
			r.b.ListSubscribers = []social.ListSubscriber{s}
		} else {
			r.b.ListUnsubscribes = []social.ListSubscriber{s}
		}
	}
	r.b.Lists = []social.List{l}
	return true, nil
}

func (r *relater) community(body Pair, add bool) (bool, error) {
	cid, err := id("community", body.Community)
	if err != nil {
		return false, err
	}
	c, err := r.e.look.Community(r.ctx, cid)
	if err != nil {
		return false, invalidIfMissing("community", err)
	}
	u, err := r.user("user", body.User)
	if err != nil {
		return false, err
	}
	role := body.Role
	if role == "" {
		role = social.RoleMember
	}
	switch role {
	case social.RoleAdmin, social.RoleModerator, social.RoleMember:
	default:
		return false, fmt.Errorf("role: %q: want Admin, Moderator or Member: %w", role, social.ErrInvalid)
	}
	stored, err := r.related(world.CommunityMember, c.ID, u.ID)
	if err != nil {
		return false, err
	}
	m := social.CommunityMember{CommunityID: c.ID, UserID: u.ID, Role: role, JoinedAt: r.at}
	switch {
	case !add && !stored:
		return false, nil
	case !add:
		r.b.CommunityLeaves = []social.CommunityMember{m}
	case stored:
		// A member again: only a new role changes anything.
		same, err := r.sameRole(c.ID, u.ID, role)
		if err != nil || same {
			return false, err
		}
		r.b.CommunityMembers = []social.CommunityMember{m}
		return true, nil
	default:
		r.b.CommunityMembers = []social.CommunityMember{m}
	}
	step(&c.MemberCount, add)
	r.b.Communities = []social.Community{c}
	return true, nil
}

// sameRole reports whether the member's stored role is role (the pages
// of members are read until it is found).
func (r *relater) sameRole(community, user int64, role string) (bool, error) {
	req := social.PageReq{Limit: 200}
	for {
		pg, err := r.e.look.CommunityMembers(r.ctx, community, req)
		if err != nil {
			return false, err
		}
		for _, m := range pg.Items {
			if m.User.ID == user {
				return m.Role == role, nil
			}
		}
		if pg.Next == nil {
			return false, nil
		}
		req.After = pg.Next
	}
}

// invalidIfMissing makes a missing end of a body a refused value.
func invalidIfMissing(field string, err error) error {
	if errors.Is(err, social.ErrNotFound) {
		return fmt.Errorf("%s: %w: %w", field, err, social.ErrInvalid)
	}
	return err
}
