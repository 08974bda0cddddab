// Package edit changes a world by hand, one entity or relation at a time
// (the admin world API): every change is one batch through the store's
// Write, the living world's write path, so that timelines, search,
// counts, the page cache and the monitors (through the change log written
// in the same transaction) see it at once. Entities are read from what is
// current (fixture.Lookup), and made as a fixture makes them: the same
// fields, references, times (relative to the wall clock) and ids.
package edit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/fixture"
)

// Editor changes one database's world. Its changes run one at a time, so
// that the ids it makes and the counts it moves never race each other;
// the living world writes beside it (its ids are never the ones made
// here: fixture.Snowflake).
type Editor struct {
	look fixture.Lookup
	w    social.Writer
	mu   sync.Mutex
	// Now is the clock of relative and left-out times (time.Now).
	Now func() time.Time
}

// New is an editor reading through look (the store's world, which reads
// what is current) and writing through w (the store).
func New(look fixture.Lookup, w social.Writer) *Editor {
	return &Editor{look: look, w: w, Now: time.Now}
}

func (e *Editor) now() time.Time { return e.Now().UTC() }

// compile compiles one document of the wall clock, made by f, and writes
// it.
func (e *Editor) compile(ctx context.Context, doc *fixture.Document) (*social.Batch, fixture.Result, error) {
	if !doc.Now.Set {
		doc.Now = fixture.Time{At: e.now(), Set: true}
	}
	b, res, err := fixture.Compile(ctx, []fixture.File{{Doc: doc}}, e.look)
	if err != nil {
		return nil, res, err
	}
	if _, err := e.w.Write(ctx, b); err != nil {
		return nil, res, fmt.Errorf("write: %w", err)
	}
	return b, res, nil
}

// CreateUser makes a user from a body of the fixture's user fields
// (tree, decoded JSON) and returns it as stored: with the id it gives
// (none of a full profile stored), else the next after the highest.
func (e *Editor) CreateUser(ctx context.Context, tree any) (social.User, error) {
	var u fixture.User
	if err := fixture.Decode("", tree, &u, e.now()); err != nil {
		return social.User{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	id, _ := u.ID.ID()
	if id == 0 {
		id, _ = u.IDStr.ID()
	}
	if id != 0 {
		_, err := e.user(ctx, id)
		if err == nil {
			return social.User{}, fmt.Errorf("id: user %d exists (PATCH /admin/world/users/%d changes it): %w", id, id, social.ErrInvalid)
		}
		if !errors.Is(err, social.ErrNotFound) {
			return social.User{}, err
		}
	}
	b, _, err := e.compile(ctx, &fixture.Document{Users: []fixture.User{u}})
	if err != nil {
		return social.User{}, err
	}
	return b.Users[0], nil
}

// PatchUser changes the fields of user id that tree names (any of the
// fixture's user fields but the id) and returns the user as stored.
func (e *Editor) PatchUser(ctx context.Context, id int64, tree any) (social.User, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	stored, err := e.user(ctx, id)
	if err != nil {
		return social.User{}, err
	}
	if m, ok := tree.(map[string]any); ok && (m["id"] != nil || m["id_str"] != nil) {
		return social.User{}, fmt.Errorf("id: a user's id does not change: %w", social.ErrInvalid)
	}
	u := userFields(&stored)
	if err := fixture.Decode("", tree, &u, e.now()); err != nil {
		return social.User{}, err
	}
	b, _, err := e.compile(ctx, &fixture.Document{Users: []fixture.User{u}})
	if err != nil {
		return social.User{}, err
	}
	return b.Users[0], nil
}

// user reads a full profile: social.ErrNotFound for a missing user or a
// stub.
func (e *Editor) user(ctx context.Context, id int64) (social.User, error) {
	us, err := e.look.UsersByIDs(ctx, []int64{id})
	if err != nil {
		return social.User{}, err
	}
	for _, u := range us {
		if u.ID == id && !u.Stub {
			return u, nil
		}
	}
	return social.User{}, fmt.Errorf("no user %d: %w", id, social.ErrNotFound)
}

// userFields is a stored user in the fixture's fields, counts given.
func userFields(u *social.User) fixture.User {
	n := func(v int64) *int64 { return &v }
	f := fixture.User{ID: fixture.Ref(fmt.Sprint(u.ID)), ScreenName: u.ScreenName, Name: u.Name, Location: u.Location,
		URL: u.URL, Description: u.Description, Protected: u.Protected, Verified: u.Verified, BlueVerified: u.BlueVerified,
		ShadowBanned: u.ShadowBanned, CanDM: &u.CanDM, FollowersCount: n(u.FollowersCount), FriendsCount: n(u.FriendsCount),
		ListedCount: n(u.ListedCount), FavouritesCount: n(u.FavouritesCount), StatusesCount: n(u.StatusesCount),
		MediaCount: n(u.MediaCount), CreatedAt: fixture.Time{At: u.CreatedAt, Set: true}, BannerURL: u.BannerURL,
		ImageURL: u.ImageURL, ProfessionalType: u.ProfessionalType, ExtendedBio: u.ExtendedBio}
	if u.PinnedPostID != 0 {
		f.PinnedPost = fixture.Ref(fmt.Sprint(u.PinnedPostID))
	}
	return f
}

// CreatePost makes a post from a body of the fixture's post fields and
// returns its id; the counts of the posts it names and of its author move
// as the living world's do.
func (e *Editor) CreatePost(ctx context.Context, tree any) (int64, error) {
	var p fixture.Post
	if err := fixture.Decode("", tree, &p, e.now()); err != nil {
		return 0, err
	}
	if p.Ref != "" {
		return 0, fmt.Errorf("ref: refs name posts within a fixture (POST /admin/world/fixtures): %w", social.ErrInvalid)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if id, ok := p.ID.ID(); ok {
		if ps, err := e.look.Posts(ctx, []int64{id}); err != nil || len(ps) > 0 {
			return 0, cmpErr(err, fmt.Errorf("id: post %d exists; PATCH changes it: %w", id, social.ErrInvalid))
		}
	}
	b, _, err := e.compile(ctx, &fixture.Document{Posts: []fixture.Post{p}})
	if err != nil {
		return 0, err
	}
	return b.Posts[0].ID, nil
}

// PostPatch is what PATCH changes of a post: its text (whose entities
// follow), language and counts.
type PostPatch struct {
	FullText *string `json:"full_text,omitempty"`
	Lang     *string `json:"lang,omitempty"`
	fixture.PostCounts
}

// PatchPost changes the text, language or counts of post id.
func (e *Editor) PatchPost(ctx context.Context, id int64, tree any) error {
	var patch PostPatch
	if err := fixture.Decode("", tree, &patch, e.now()); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ps, err := e.look.Posts(ctx, []int64{id})
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return fmt.Errorf("no post %d: %w", id, social.ErrNotFound)
	}
	p := ps[0]
	if patch.FullText != nil {
		if *patch.FullText == "" {
			return fmt.Errorf("full_text: must not be empty: %w", social.ErrInvalid)
		}
		p.Text = *patch.FullText
		if p.Entities, err = e.entities(ctx, p.Text); err != nil {
			return err
		}
	}
	if patch.Lang != nil {
		p.Lang = *patch.Lang
	}
	for _, c := range []struct {
		v   *int64
		dst *int64
	}{{patch.QuoteCount, &p.QuoteCount}, {patch.ReplyCount, &p.ReplyCount}, {patch.RetweetCount, &p.RetweetCount},
		{patch.FavoriteCount, &p.FavoriteCount}, {patch.BookmarkCount, &p.BookmarkCount}} {
		if c.v != nil {
			*c.dst = *c.v
		}
	}
	if patch.ViewsCount != nil {
		p.Views = patch.ViewsCount
	}
	_, err = e.w.Write(ctx, &social.Batch{Posts: []social.Post{p}})
	return err
}

// entities are a text's entities as a fixture's post gets them.
func (e *Editor) entities(ctx context.Context, text string) (social.Entities, error) {
	return fixture.Entities(ctx, e.look, text)
}

// cmpErr is err when there is one, else alt.
func cmpErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}
