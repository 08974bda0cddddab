package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// openTest opens a fresh store, tuned as ROOST_SQLITE_TUNING says (every
// piece when it is unset).
func openTest(t *testing.T) *Store {
	t.Helper()
	tuning, err := TuningFromEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenOptions(context.Background(), filepath.Join(t.TempDir(), "roost.db"), Options{Tuning: tuning})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 123456000, time.UTC)

func smallBatch() *social.Batch {
	views := int64(99)
	return &social.Batch{
		Users: []social.User{
			{ID: 1, ScreenName: "alice", Name: "Alice", CreatedAt: t0, Verified: true},
			{ID: 2, ScreenName: "Bob", Name: "Bob", CreatedAt: t0, ShadowBanned: true},
			{ID: 3, Stub: true, ScreenName: "carol"},
		},
		Posts: []social.Post{
			{ID: 10, AuthorID: 1, CreatedAt: t0, Text: "hello world café @bob #Go", Lang: "en", Views: &views,
				Entities: social.Entities{
					Mentions: []social.Mention{{UserID: 2, ScreenName: "bob", Start: 18, End: 22}},
					Hashtags: []social.Tag{{Text: "Go", Start: 23, End: 26}}}},
			{ID: 11, AuthorID: 2, CreatedAt: t0.Add(time.Minute), Text: "reply to alice", InReplyToID: 10,
				InReplyToUserID: 1, InReplyToScreenName: "alice", ConversationID: 10},
			{ID: 12, AuthorID: 1, CreatedAt: t0.Add(2 * time.Minute), Text: "東京 タワー", RepostOfID: 0},
		},
		Follows: []social.Follow{{FollowerID: 1, FolloweeID: 2, CreatedAt: t0}, {FollowerID: 3, FolloweeID: 2, CreatedAt: t0.Add(time.Second)}},
	}
}

func TestWriteRead(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	st, err := s.Write(ctx, smallBatch())
	if err != nil {
		t.Fatal(err)
	}
	if st.PostsInserted != 3 || st.UsersInserted != 3 {
		t.Fatalf("stats %+v", st)
	}
	st, err = s.Write(ctx, smallBatch())
	if err != nil {
		t.Fatal(err)
	}
	if st.PostsInserted != 0 || st.PostsUpdated != 3 || st.UsersUpdated != 2 {
		t.Fatalf("second write stats %+v", st)
	}
	// A later copy without views keeps the known views.
	b := smallBatch()
	b.Posts[0].Views = nil
	b.Posts[0].FavoriteCount = 7
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	ps, err := s.Posts(ctx, []int64{10})
	if err != nil || len(ps) != 1 {
		t.Fatal(ps, err)
	}
	if ps[0].Views == nil || *ps[0].Views != 99 || ps[0].FavoriteCount != 7 || !ps[0].CreatedAt.Equal(t0) {
		t.Fatalf("post %+v", ps[0])
	}
	if len(ps[0].Entities.Mentions) != 1 || ps[0].Entities.Hashtags[0].Text != "Go" {
		t.Fatalf("entities %+v", ps[0].Entities)
	}
	u, err := s.UserByScreenName(ctx, "BOB")
	if err != nil || u.ID != 2 {
		t.Fatal(u, err)
	}
	if _, err := s.User(ctx, 404); !errors.Is(err, social.ErrNotFound) {
		t.Fatalf("missing user: %v", err)
	}
	page, err := s.UserPosts(ctx, 1, false, social.PageReq{Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != 12 || page.Next == nil {
		t.Fatalf("page %+v %v", page, err)
	}
	page, err = s.UserPosts(ctx, 1, false, social.PageReq{Limit: 1, After: page.Next})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != 10 || page.Next != nil {
		t.Fatalf("page 2 %+v %v", page, err)
	}
	m, err := s.Mentions(ctx, "BOB", social.PageReq{Limit: 20})
	if err != nil || len(m.Items) != 1 {
		t.Fatalf("mentions %+v %v", m, err)
	}
	th, err := s.Thread(ctx, 10, social.PageReq{Limit: 30})
	if err != nil || len(th.Items) != 2 || th.Items[0].ID != 10 {
		t.Fatalf("thread %+v %v", th, err)
	}
	fl, err := s.VerifiedFollowers(ctx, 2, social.PageReq{Limit: 20})
	if err != nil || len(fl.Items) != 1 || fl.Items[0].ID != 1 {
		t.Fatalf("verified followers %+v %v", fl, err)
	}
}

func TestSearchBasics(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.Write(ctx, smallBatch()); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		q    search.Query
		want []int64
	}{
		{"word accent-insensitive", search.Query{Root: search.Word{Text: "cafe"}}, []int64{10}},
		{"cjk phrase", search.Query{Root: search.Phrase{Words: []string{"東", "京"}}}, []int64{12}},
		{"from shadow-banned", search.Query{Root: search.From{User: "bob"}}, nil},
		{"from", search.Query{Root: search.From{User: "ALICE"}}, []int64{12, 10}},
		{"mention", search.Query{Root: search.Mention{User: "bob"}}, []int64{10}},
		{"hashtag", search.Query{Root: search.Hashtag{Tag: "go"}}, []int64{10}},
		{"not replies", search.Query{Root: search.Not{Child: search.Filter{Kind: search.FilterReplies}}}, []int64{12, 10}},
		{"word and not word", search.Query{Root: search.And{Children: []search.Node{search.Word{Text: "hello"}, search.Not{Child: search.Word{Text: "world"}}}}}, nil},
		{"quote in word is literal", search.Query{Root: search.Word{Text: `he"llo OR x`}}, nil},
		{"conversation", search.Query{Root: search.Ref{Kind: search.RefConversation, ID: 10}}, []int64{11, 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page, err := s.Search(ctx, &c.q, social.Latest, social.PageReq{Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, p := range page.Items {
				got = append(got, p.ID)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v want %v", got, c.want)
				}
			}
		})
	}
}

func TestDebitConcurrent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	k, err := s.CreateKey(ctx, social.APIKey{Name: "t", Prefix: "roost_x", Digest: [32]byte{1}}, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateKey(ctx, social.APIKey{Prefix: "roost_y", Digest: [32]byte{1}}, 1); !errors.Is(err, social.ErrConflict) {
		t.Fatalf("duplicate digest: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				_, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 300, Items: 1, Endpoint: "test"})
				if err == nil {
					mu.Lock()
					ok++
					mu.Unlock()
				} else if !errors.Is(err, social.ErrInsufficientBalance) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	k2, err := s.Key(ctx, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok != 33 || k2.Balance != 10_000-33*300 {
		t.Fatalf("ok=%d balance=%d", ok, k2.Balance)
	}
	led, err := s.Ledger(ctx, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, e := range led {
		if e.Kind == social.LedgerDebit {
			sum += e.Amount
		} else {
			sum -= e.Amount
		}
	}
	if -sum != k2.Balance {
		t.Fatalf("ledger says %d, balance %d", -sum, k2.Balance)
	}
}
