package searchtest

import (
	"context"
	"sort"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// model is what was written to the store under test, kept with the
// store's replace rules (social.Writer), for brute-force answers.
type model struct {
	posts   map[int64]*social.Post
	scores  map[int64]int64 // social.Score of the last written copy
	users   map[int64]*social.User
	members map[int64]map[int64]bool // list → users
	ids     []int64                  // post ids, descending
}

func newModel() *model {
	return &model{posts: map[int64]*social.Post{}, scores: map[int64]int64{}, users: map[int64]*social.User{},
		members: map[int64]map[int64]bool{}}
}

// recorder is a social.Writer that writes through to the store and records
// every batch in the model.
type recorder struct {
	w social.Writer
	m *model
}

func (r recorder) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	st, err := r.w.Write(ctx, b)
	if err == nil {
		r.m.add(b)
	}
	return st, err
}

func (m *model) add(b *social.Batch) {
	for i := range b.Users {
		u := b.Users[i]
		old := m.users[u.ID]
		switch {
		case !u.Stub || old == nil:
			m.users[u.ID] = &u
		case old.Stub && old.ScreenName == "" && u.ScreenName != "":
			old.ScreenName, old.Name = u.ScreenName, u.Name
		}
	}
	for i := range b.Posts {
		p := b.Posts[i]
		m.scores[p.ID] = social.Score(&p)
		if old := m.posts[p.ID]; old != nil && p.Views == nil {
			p.Views = old.Views
		}
		if p.ConversationID == 0 {
			p.ConversationID = p.ID
		}
		if m.posts[p.ID] == nil {
			m.ids = nil
		}
		m.posts[p.ID] = &p
	}
	for _, lm := range b.ListMembers {
		if m.members[lm.ListID] == nil {
			m.members[lm.ListID] = map[int64]bool{}
		}
		m.members[lm.ListID][lm.UserID] = true
	}
}

// InList implements World.
func (m *model) InList(listID, userID int64) bool { return m.members[listID][userID] }

// AuthorOf implements World.
func (m *model) AuthorOf(postID int64) (int64, bool) {
	p, ok := m.posts[postID]
	if !ok {
		return 0, false
	}
	return p.AuthorID, true
}

// sortedIDs returns every post id, descending.
func (m *model) sortedIDs() []int64 {
	if m.ids == nil {
		for id := range m.posts {
			m.ids = append(m.ids, id)
		}
		sort.Slice(m.ids, func(i, j int) bool { return m.ids[i] > m.ids[j] })
	}
	return m.ids
}

// match is the brute-force answer to q in order.
func (m *model) match(q *search.Query, order social.Order) []int64 {
	var out []int64
	for _, id := range m.sortedIDs() {
		p := m.posts[id]
		if Eval(q, p, m.users[p.AuthorID], m) {
			out = append(out, id)
		}
	}
	if order == social.Top {
		sort.SliceStable(out, func(i, j int) bool {
			si, sj := m.scores[out[i]], m.scores[out[j]]
			if si != sj {
				return si > sj
			}
			return out[i] > out[j]
		})
	}
	return out
}
