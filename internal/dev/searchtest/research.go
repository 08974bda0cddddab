package searchtest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/gen"
)

// researchQueries is how many random queries RunResearch checks.
const researchQueries = 60

// RunResearch checks s's social.Researcher against the brute force: s must
// be an empty store; RunResearch writes Network into it, then, for random
// queries (and a few fixed ones), compares
//   - SearchCounts by minute, hour and day with the matches counted by
//     period;
//   - SearchTop of every field, whole and by day, with the values counted
//     over the matches (each once per post; ties by key);
//   - SearchWalk, in small chunks and from a position, with the matches
//     in id order;
//   - SearchInteractions with what each match says.
func RunResearch(t *testing.T, s social.Store) {
	t.Helper()
	ctx := context.Background()
	m := newModel()
	if _, err := gen.Generate(ctx, recorder{w: s, m: m}, Network(), nil); err != nil {
		t.Fatalf("generate network: %v", err)
	}
	v := newValues(m)
	rng := rand.New(rand.NewPCG(uint64(Network().Seed), 14))
	texts := []string{"the", "include:nativeretweets", "filter:nativeretweets", "filter:hashtags", "filter:links",
		"filter:mentions", "filter:replies", "filter:quote", "the -the"}
	for len(texts) < researchQueries {
		texts = append(texts, v.query(rng))
	}
	ran := 0
	for i, text := range texts {
		q, err := search.Parse(text, Now)
		if err != nil {
			continue
		}
		ran++
		if !sampled(i) {
			continue
		}
		want := m.match(q, social.Latest)
		slices.Reverse(want) // id ascending
		if err := checkCounts(ctx, s, m, q, want); err != nil {
			t.Errorf("query %q: %v", text, err)
		}
		if err := checkTop(ctx, s, m, q, want, i); err != nil {
			t.Errorf("query %q: %v", text, err)
		}
		if err := checkWalk(ctx, s, q, want); err != nil {
			t.Errorf("query %q: %v", text, err)
		}
		if err := checkInteractions(ctx, s, m, q, want); err != nil {
			t.Errorf("query %q: %v", text, err)
		}
	}
	if ran < researchQueries/2 {
		t.Errorf("only %d of %d queries parsed", ran, len(texts))
	}
}

func checkCounts(ctx context.Context, s social.Store, m *model, q *search.Query, want []int64) error {
	for _, g := range []social.Granularity{social.Minute, social.Hour, social.Day} {
		got, err := s.SearchCounts(ctx, q, g)
		if err != nil {
			return fmt.Errorf("counts by %s: %w", g, err)
		}
		var brute []social.Bucket
		for _, id := range want {
			start := g.Start(m.posts[id].CreatedAt)
			if n := len(brute); n > 0 && brute[n-1].Start.Equal(start) {
				brute[n-1].Count++
				continue
			}
			brute = append(brute, social.Bucket{Start: start, Count: 1})
		}
		if len(got) != len(brute) {
			return fmt.Errorf("counts by %s: %d buckets, want %d", g, len(got), len(brute))
		}
		for i := range got {
			if !got[i].Start.Equal(brute[i].Start) || got[i].Count != brute[i].Count {
				return fmt.Errorf("counts by %s: bucket %d is %v × %d, want %v × %d", g, i,
					got[i].Start, got[i].Count, brute[i].Start, brute[i].Count)
			}
		}
	}
	return nil
}

// topValues are the brute-force values of one post for field: key and value.
func (m *model) topValues(p *social.Post, field social.TopField) []social.KeyedValue {
	user := func(id int64) []social.KeyedValue {
		name := ""
		if u := m.users[id]; u != nil {
			name = u.ScreenName
		}
		return []social.KeyedValue{{Key: fmt.Sprintf("%020d", id), TopValue: social.TopValue{Value: name, UserID: id}}}
	}
	switch field {
	case social.TopAuthors:
		return user(p.AuthorID)
	case social.TopLang:
		return []social.KeyedValue{{Key: p.Lang, TopValue: social.TopValue{Value: p.Lang}}}
	case social.TopSource:
		if n := social.SourceName(p.Source); n != "" {
			return []social.KeyedValue{{Key: n, TopValue: social.TopValue{Value: n}}}
		}
	case social.TopReplyTo:
		if p.InReplyToID != 0 && p.InReplyToUserID != 0 {
			return user(p.InReplyToUserID)
		}
	case social.TopQuotedUsers:
		if a, ok := m.AuthorOf(p.QuotedID); p.QuotedID != 0 && ok {
			return user(a)
		}
	default:
		return social.EntityValues(&p.Entities, field)
	}
	return nil
}

func checkTop(ctx context.Context, s social.Store, m *model, q *search.Query, want []int64, seed int) error {
	for fi, field := range social.TopFields() {
		g := social.NoGranularity
		if (fi+seed)%3 == 0 {
			g = social.Day
		}
		limit := []int{1, 3, 1000}[(fi+seed)%3]
		got, err := s.SearchTop(ctx, q, field, limit, g)
		if err != nil {
			return fmt.Errorf("top %s: %w", field, err)
		}
		type tallied struct {
			key string
			v   social.TopValue
		}
		by := map[time.Time]map[string]*tallied{}
		var starts []time.Time
		for _, id := range want {
			p := m.posts[id]
			start := time.Time{}
			if g != social.NoGranularity {
				start = g.Start(p.CreatedAt)
			}
			for _, kv := range m.topValues(p, field) {
				if by[start] == nil {
					by[start] = map[string]*tallied{}
					starts = append(starts, start)
				}
				x := by[start][kv.Key]
				if x == nil {
					x = &tallied{key: kv.Key, v: kv.TopValue}
					by[start][kv.Key] = x
				}
				x.v.Count++
				if x.v.UserID == 0 {
					x.v.UserID = kv.UserID
				}
			}
		}
		slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
		if len(got) != len(starts) {
			return fmt.Errorf("top %s by %s: %d periods, want %d", field, g, len(got), len(starts))
		}
		for i, start := range starts {
			var vs []*tallied
			for _, x := range by[start] {
				vs = append(vs, x)
			}
			slices.SortFunc(vs, func(a, b *tallied) int {
				if a.v.Count != b.v.Count {
					return cmp.Compare(b.v.Count, a.v.Count)
				}
				return cmp.Compare(a.key, b.key)
			})
			vs = vs[:min(len(vs), limit)]
			if !got[i].Start.Equal(start) || len(got[i].Values) != len(vs) {
				return fmt.Errorf("top %s by %s: period %d is %v with %d values, want %v with %d", field, g, i,
					got[i].Start, len(got[i].Values), start, len(vs))
			}
			for j, x := range vs {
				if got[i].Values[j] != x.v {
					return fmt.Errorf("top %s by %s (limit %d): period %v value %d is %+v, want %+v", field, g, limit,
						start, j, got[i].Values[j], x.v)
				}
			}
		}
	}
	return nil
}

func checkWalk(ctx context.Context, s social.Store, q *search.Query, want []int64) error {
	for _, c := range []struct {
		chunk int
		after int64
	}{{7, 0}, {1000, 0}, {5, middle(want)}} {
		var got []int64
		err := s.SearchWalk(ctx, q, c.after, c.chunk, func(ps []social.Post) error {
			if len(ps) == 0 || len(ps) > c.chunk {
				return fmt.Errorf("a chunk of %d posts", len(ps))
			}
			got = append(got, ids(ps)...)
			return nil
		})
		if err != nil {
			return fmt.Errorf("walk by %d after %d: %w", c.chunk, c.after, err)
		}
		w := want
		if c.after != 0 {
			i, _ := slices.BinarySearch(want, c.after+1)
			w = want[i:]
		}
		if err := sameIDs(fmt.Sprintf("walk by %d after %d", c.chunk, c.after), got, w); err != nil {
			return err
		}
	}
	return nil
}

// middle is an id halfway through ids (ascending), 0 when there are none.
func middle(ids []int64) int64 {
	if len(ids) == 0 {
		return 0
	}
	return ids[len(ids)/2]
}

func checkInteractions(ctx context.Context, s social.Store, m *model, q *search.Query, want []int64) error {
	got := map[int64]social.Interaction{}
	err := s.SearchInteractions(ctx, q, func(xs []social.Interaction) error {
		for _, x := range xs {
			if _, dup := got[x.PostID]; dup {
				return fmt.Errorf("post %d twice", x.PostID)
			}
			got[x.PostID] = x
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("interactions: %w", err)
	}
	if len(got) != len(want) {
		return fmt.Errorf("interactions of %d posts, want %d", len(got), len(want))
	}
	for _, id := range want {
		p := m.posts[id]
		w := social.Interaction{PostID: id, AuthorID: p.AuthorID, Mentions: p.Entities.Mentions}
		if p.InReplyToID != 0 {
			w.ReplyToUserID = p.InReplyToUserID
		}
		w.QuotedAuthorID, _ = m.AuthorOf(p.QuotedID)
		w.RepostAuthorID, _ = m.AuthorOf(p.RepostOfID)
		x := got[id]
		if x.AuthorID != w.AuthorID || x.ReplyToUserID != w.ReplyToUserID || x.QuotedAuthorID != w.QuotedAuthorID ||
			x.RepostAuthorID != w.RepostAuthorID || !slices.Equal(x.Mentions, w.Mentions) {
			return fmt.Errorf("post %d: interaction %+v, want %+v", id, x, w)
		}
	}
	return nil
}
