package storetest

import (
	"testing"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// searchIDs runs a Latest search of root (native reposts left out) through
// pages of 2 and compares the ids with want.
func searchIDs(t *testing.T, s social.Store, name string, root search.Node, want []int64) {
	t.Helper()
	searchQuery(t, s, name, &search.Query{Root: root}, want)
}

func searchQuery(t *testing.T, s social.Store, name string, q *search.Query, want []int64) {
	t.Helper()
	ctx := ctxFor(t)
	read := func(p social.PageReq) (social.Page[social.Post], error) { return s.Search(ctx, q, social.Latest, p) }
	wantIDs(t, "search "+name, all(t, name, 2, read, postID), want)
}

var allPosts = []int64{111, 110, 109, 108, 107, 106, 104, 103, 102, 101} // every post but the repost 105

func testSearch(t *testing.T, open Opener) {
	s, ctx := withFixture(t, open)
	w := func(text string) search.Node { return search.Word{Text: text} }
	cases := []struct {
		name string
		root search.Node
		want []int64
	}{
		{"nothing", nil, allPosts},
		{"word", w("hello"), []int64{104, 102, 101}},
		{"word any case", w("HeLLo"), []int64{104, 102, 101}},
		{"word plus", search.Word{Text: "hello", Plus: true}, []int64{104, 102, 101}},
		{"accents in the text", w("cafe"), []int64{101}},
		{"accents in both", w("café"), []int64{101}},
		{"accents in the query", w("résumé"), []int64{111}},
		{"folded word", w("NAIVE"), []int64{111}},
		{"word is a whole token", w("hell"), nil},
		{"word of punctuation", w("!!!"), nil},
		{"word of two tokens", w("hello,world"), []int64{101}},
		{"cjk word", w("日本"), []int64{109}},
		{"cjk one char", w("語"), []int64{109}},
		{"cjk not adjacent", w("日語"), nil},
		{"phrase", search.Phrase{Words: []string{"quick", "fox"}}, []int64{107, 106}},
		{"phrase order", search.Phrase{Words: []string{"fox", "quick"}}, nil},
		{"phrase across punctuation", search.Phrase{Words: []string{"there", "world"}}, []int64{102}},
		{"phrase wildcard", search.Phrase{Words: []string{"quick", "*", "fox"}}, []int64{110, 103}},
		{"phrase two wildcards", search.Phrase{Words: []string{"the", "*", "*", "fox"}}, []int64{110, 103}},
		{"phrase wildcard is one token", search.Phrase{Words: []string{"quick", "*", "*", "fox"}}, nil},
		{"phrase cjk", search.Phrase{Words: []string{"日本語"}}, []int64{109}},
		{"and", search.And{Children: []search.Node{w("quick"), w("brown")}}, []int64{107, 103}},
		{"or", search.Or{Children: []search.Node{w("fox"), w("hello")}}, []int64{110, 107, 106, 104, 103, 102, 101}},
		{"not word", search.And{Children: []search.Node{w("hello"), search.Not{Child: w("world")}}}, []int64{104}},
		{"only not", search.Not{Child: w("fox")}, []int64{111, 109, 108, 104, 102, 101}},
		{"not empty word", search.Not{Child: w("!!!")}, allPosts},
		{"empty and", search.And{}, allPosts},
		{"hashtag", search.Hashtag{Tag: "go"}, []int64{101}},
		{"hashtag any case", search.Hashtag{Tag: "GO"}, []int64{101}},
		{"cashtag", search.Cashtag{Tag: "roost"}, []int64{107}},
		{"hashtag is not cashtag", search.Cashtag{Tag: "go"}, nil},
		{"from", search.From{User: "alice"}, []int64{110, 106, 103, 101}},
		{"from any case", search.From{User: "BOB"}, []int64{111, 107, 102}},
		{"from shadow-banned", search.From{User: "carol"}, nil},
		{"from nobody", search.From{User: "nobody"}, nil},
		{"not from shadow-banned", search.And{Children: []search.Node{w("hello"), search.Not{Child: search.From{User: "carol"}}}}, []int64{104, 102, 101}},
		{"to", search.To{User: "ALICE"}, []int64{103, 102}},
		{"mention", search.Mention{User: "alice"}, []int64{102}},
		{"mention any case", search.Mention{User: "carol"}, []int64{111}},
		{"mention not from", search.And{Children: []search.Node{search.Mention{User: "alice"}, search.Not{Child: search.From{User: "alice"}}}}, []int64{102}},
		{"url", search.URL{Sub: "example.com"}, []int64{106}},
		{"url underscore", search.URL{Sub: "some_path"}, []int64{106}},
		{"url not in text", search.URL{Sub: "t.co"}, nil},
		{"word is text only, not urls", w("example"), nil},
		{"url substring", search.URL{Sub: "xample.co"}, []int64{106}},
		{"url any case", search.URL{Sub: "EXAMPLE.COM/SOME"}, []int64{106}},
		{"url underscore is dash", search.URL{Sub: "example.com/some_pa"}, []int64{106}},
		{"url dash", search.URL{Sub: "some-path"}, []int64{106}},
		{"url dot is literal", search.URL{Sub: "some.path"}, nil},
		{"url scheme", search.URL{Sub: "https://"}, []int64{106}},
		{"url regexp characters are literal", search.URL{Sub: "exampl.*"}, nil},
		{"lang", search.Lang{Code: "fr"}, []int64{106}},
		{"lang und", search.Lang{Code: "und"}, []int64{108}},
		{"list", search.ListMembers{ListID: 700}, []int64{111, 108, 107, 102}},
		{"list unknown", search.ListMembers{ListID: 1}, nil},
		{"max_id", search.IDBound{Max: true, ID: 103}, []int64{103, 102, 101}},
		{"since_id", search.IDBound{ID: 108}, []int64{111, 110, 109}},
		{"time bounds", search.And{Children: []search.Node{search.TimeBound{Since: true, T: at(106)}, search.TimeBound{T: at(109)}}}, []int64{108, 107, 106}},
		{"conversation", search.Ref{Kind: search.RefConversation, ID: 101}, []int64{103, 102, 101}},
		{"quoted tweet", search.Ref{Kind: search.RefQuotedTweet, ID: 106}, []int64{107}},
		{"quoted user", search.Ref{Kind: search.RefQuotedUser, ID: alice}, []int64{107}},
		{"quoted user none", search.Ref{Kind: search.RefQuotedUser, ID: bob}, nil},
		{"in reply to", search.Ref{Kind: search.RefInReplyTo, ID: 101}, []int64{103, 102}},
		{"min faves", search.MinCount{Kind: search.Faves, N: 10}, []int64{106}},
		{"min retweets", search.MinCount{Kind: search.Retweets, N: 5}, []int64{110}},
		{"min replies", search.MinCount{Kind: search.Replies, N: 3}, []int64{110}},
		{"max faves", search.Not{Child: search.MinCount{Kind: search.Faves, N: 1}}, []int64{111, 110, 109, 108, 107, 104, 103, 102, 101}},
		{"filter replies", search.Filter{Kind: search.FilterReplies}, []int64{103, 102}},
		{"filter self threads", search.Filter{Kind: search.FilterSelfThreads}, []int64{103}},
		{"filter quote", search.Filter{Kind: search.FilterQuote}, []int64{107}},
		{"filter retweets", search.Filter{Kind: search.FilterRetweets}, []int64{108}},
		{"filter media", search.Filter{Kind: search.FilterMedia}, []int64{107, 106}},
		{"filter images", search.Filter{Kind: search.FilterImages}, []int64{106}},
		{"filter videos", search.Filter{Kind: search.FilterVideos}, []int64{107}},
		{"filter links", search.Filter{Kind: search.FilterLinks}, []int64{106}},
		{"filter mentions", search.Filter{Kind: search.FilterMentions}, []int64{111, 102}},
		{"filter hashtags", search.Filter{Kind: search.FilterHashtags}, []int64{101}},
		{"filter engagement", search.Filter{Kind: search.FilterHasEngagement}, []int64{110, 106}},
		{"filter verified", search.Filter{Kind: search.FilterVerified}, []int64{110, 106, 103, 101}},
		{"filter blue verified", search.Filter{Kind: search.FilterBlueVerified}, []int64{111, 107, 102}},
		{"from without replies", search.And{Children: []search.Node{search.From{User: "alice"}, search.Not{Child: search.Filter{Kind: search.FilterReplies}}}}, []int64{110, 106, 101}},
		{"nested", search.Or{Children: []search.Node{
			search.And{Children: []search.Node{w("fox"), search.Lang{Code: "fr"}}},
			search.And{Children: []search.Node{search.Hashtag{Tag: "go"}, search.Not{Child: w("nothing")}}},
		}}, []int64{106, 101}},
	}
	for _, c := range cases {
		searchIDs(t, s, c.name, c.root, c.want)
	}

	// Native reposts.
	searchQuery(t, s, "include reposts", &search.Query{Root: w("hello"), Reposts: search.RepostsIncluded}, []int64{105, 104, 102, 101})
	searchQuery(t, s, "only reposts", &search.Query{Root: search.Filter{Kind: search.FilterNativeReposts}, Reposts: search.RepostsIncluded}, []int64{105})
	searchQuery(t, s, "retweets with reposts", &search.Query{Root: search.Filter{Kind: search.FilterRetweets}, Reposts: search.RepostsIncluded}, []int64{108, 105})
	searchQuery(t, s, "everything", &search.Query{Reposts: search.RepostsIncluded}, []int64{111, 110, 109, 108, 107, 106, 105, 104, 103, 102, 101})

	// Top: by score, ties by id, across pages.
	q := &search.Query{Root: search.Or{Children: []search.Node{w("fox"), w("hello")}}}
	read := func(p social.PageReq) (social.Page[social.Post], error) { return s.Search(ctx, q, social.Top, p) }
	wantIDs(t, "search Top", all(t, "search Top", 2, read, postID), byScore(110, 107, 106, 104, 103, 102, 101))
	qa := &search.Query{}
	readAll := func(p social.PageReq) (social.Page[social.Post], error) { return s.Search(ctx, qa, social.Top, p) }
	wantIDs(t, "search Top of all", all(t, "search Top of all", 3, readAll, postID), byScore(allPosts...))

	// A node type no engine knows is refused, not ignored.
	_, err := s.Search(ctx, &search.Query{Root: search.Filter{Kind: search.FilterKind(999)}}, social.Latest, social.PageReq{Limit: 5})
	wantErr(t, "unknown filter", err, social.ErrInvalid)
}
