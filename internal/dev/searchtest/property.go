package searchtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// propertyQueries is how many random queries the property test runs.
const propertyQueries = 150

func runProperty(ctx context.Context, t *testing.T, s social.Store, m *model) {
	v := newValues(m)
	rng := rand.New(rand.NewPCG(uint64(Network().Seed), 7))
	ran := 0
	for i := 0; ran < propertyQueries && i < 20*propertyQueries; i++ {
		text := v.query(rng)
		q, err := search.Parse(text, Now)
		if err != nil {
			continue // a random combination the parser refuses (too long, …)
		}
		ran++
		if !sampled(ran) {
			continue
		}
		if err := check(ctx, s, m, q); err != nil {
			t.Errorf("query %q: %v", text, err)
		}
	}
	if ran < propertyQueries {
		t.Errorf("only %d of %d random queries parsed", ran, propertyQueries)
	}
}

// values are the operator values present in the model, to draw from.
type values struct {
	posts                          []*social.Post
	users                          []*social.User
	tags, cashtags, mentions, urls []string
	langs                          []string
	lists                          []int64
	replies, quotes                []*social.Post
	minT, maxT                     time.Time
}

func newValues(m *model) *values {
	v := &values{}
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	for _, id := range m.sortedIDs() {
		p := m.posts[id]
		v.posts = append(v.posts, p)
		for _, h := range p.Entities.Hashtags {
			add(&v.tags, h.Text)
		}
		for _, c := range p.Entities.Symbols {
			add(&v.cashtags, c.Text)
		}
		for _, mn := range p.Entities.Mentions {
			add(&v.mentions, mn.ScreenName)
		}
		for _, u := range p.Entities.URLs {
			add(&v.urls, u.ExpandedURL)
		}
		add(&v.langs, p.Lang)
		if p.InReplyToID != 0 {
			v.replies = append(v.replies, p)
		}
		if p.QuotedID != 0 {
			v.quotes = append(v.quotes, p)
		}
		if v.minT.IsZero() || p.CreatedAt.Before(v.minT) {
			v.minT = p.CreatedAt
		}
		if p.CreatedAt.After(v.maxT) {
			v.maxT = p.CreatedAt
		}
	}
	for _, u := range m.users {
		if u.ScreenName != "" && len(u.ScreenName) >= 2 {
			v.users = append(v.users, u)
		}
	}
	sort.Slice(v.users, func(i, j int) bool { return v.users[i].ID < v.users[j].ID })
	for id := range m.members {
		v.lists = append(v.lists, id)
	}
	sort.Slice(v.lists, func(i, j int) bool { return v.lists[i] < v.lists[j] })
	return v
}

func pick[T any](rng *rand.Rand, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[rng.IntN(len(xs))], true
}

// query is a random combination of one to four terms.
func (v *values) query(rng *rand.Rand) string {
	n := 1 + rng.IntN(4)
	var terms []string
	for len(terms) < n {
		t := v.term(rng)
		if t == "" {
			continue
		}
		switch r := rng.IntN(10); {
		case r < 2:
			t = "-" + t
		case r < 4:
			if u := v.term(rng); u != "" {
				t = "(" + t + " OR " + u + ")"
			}
		}
		terms = append(terms, t)
	}
	return strings.Join(terms, " ")
}

// term is one random operator or text term ("" when the data has no value
// for the kind drawn).
func (v *values) term(rng *rand.Rand) string {
	p, _ := pick(rng, v.posts)
	switch rng.IntN(22) {
	case 0, 1, 2:
		toks := strings.Fields(search.IndexText(p.Text))
		w, _ := pick(rng, toks)
		return w
	case 3:
		toks := strings.Fields(search.IndexText(p.Text))
		if len(toks) < 3 {
			return ""
		}
		i := rng.IntN(len(toks) - 2)
		ph := toks[i : i+2+rng.IntN(2)]
		if len(ph) == 3 && rng.IntN(2) == 0 {
			ph = []string{ph[0], "*", ph[2]}
		}
		return `"` + strings.Join(ph, " ") + `"`
	case 4:
		u, ok := pick(rng, v.users)
		if !ok {
			return ""
		}
		return "from:" + randomCase(rng, u.ScreenName)
	case 5:
		if r, ok := pick(rng, v.replies); ok && len(r.InReplyToScreenName) >= 2 {
			return "to:" + r.InReplyToScreenName
		}
	case 6:
		if s, ok := pick(rng, v.mentions); ok && len(s) >= 2 {
			return "@" + randomCase(rng, s)
		}
	case 7:
		if s, ok := pick(rng, v.tags); ok {
			return "#" + randomCase(rng, s)
		}
	case 8:
		if s, ok := pick(rng, v.cashtags); ok {
			return "$" + s
		}
	case 9:
		if s, ok := pick(rng, v.urls); ok {
			return urlTerm(rng, s)
		}
	case 10:
		if s, ok := pick(rng, v.langs); ok && s != "" {
			return "lang:" + s
		}
	case 11:
		if id, ok := pick(rng, v.lists); ok {
			return fmt.Sprintf("list:%d", id)
		}
	case 12:
		t := v.minT.Add(time.Duration(rng.Int64N(int64(v.maxT.Sub(v.minT)) + 1)))
		op := [...]string{"since:", "until:"}[rng.IntN(2)]
		if rng.IntN(2) == 0 {
			return op + t.Format("2006-01-02")
		}
		return fmt.Sprintf("%s_time:%d", strings.TrimSuffix(op, ":"), t.Unix())
	case 13:
		return fmt.Sprintf("%s:%d", [...]string{"since_id", "max_id"}[rng.IntN(2)], p.ID)
	case 14:
		if r, ok := pick(rng, v.replies); ok {
			return fmt.Sprintf("conversation_id:%d", r.ConversationID)
		}
	case 15:
		if r, ok := pick(rng, v.replies); ok {
			return fmt.Sprintf("in_reply_to_tweet_id:%d", r.InReplyToID)
		}
	case 16:
		if q, ok := pick(rng, v.quotes); ok {
			return fmt.Sprintf("quoted_tweet_id:%d", q.QuotedID)
		}
	case 17:
		if q, ok := pick(rng, v.quotes); ok {
			for _, x := range v.posts {
				if x.ID == q.QuotedID {
					return fmt.Sprintf("quoted_user_id:%d", x.AuthorID)
				}
			}
		}
	case 18:
		n, _ := pick(rng, []int{0, 1, 2, 5, 10, 50, 100, 1000})
		return fmt.Sprintf("%s:%d", [...]string{"min_faves", "min_retweets", "min_replies"}[rng.IntN(3)], n)
	case 19, 20:
		f, _ := pick(rng, []string{"replies", "self_threads", "quote", "nativeretweets", "retweets", "media",
			"images", "videos", "links", "mentions", "hashtags", "has_engagement", "verified", "blue_verified"})
		return [...]string{"filter:", "exclude:"}[rng.IntN(2)] + f
	case 21:
		return "include:nativeretweets"
	}
	return ""
}

// urlTerm is url: with a random piece of an expanded URL, '-' written as
// '_' at random.
func urlTerm(rng *rand.Rand, u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	if len(u) < 3 {
		return ""
	}
	i := rng.IntN(len(u) - 2)
	j := i + 2 + rng.IntN(min(len(u)-i-2, 12)+1)
	sub := u[i:j]
	if strings.ContainsAny(sub, " \"()") {
		return ""
	}
	if rng.IntN(2) == 0 {
		sub = strings.ReplaceAll(sub, "-", "_")
	}
	if rng.IntN(3) == 0 {
		sub = strings.ToUpper(sub)
	}
	return "url:" + sub
}

func randomCase(rng *rand.Rand, s string) string {
	if rng.IntN(3) != 0 {
		return s
	}
	return strings.ToUpper(s)
}
