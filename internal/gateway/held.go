package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
)

// By-id reads (tweets-by-ids, one post, users-by-ids, users-by-usernames,
// one user) are answered from the posts and users the gateway stored from
// upstream pages within their class's freshness (tweet for posts, profile
// for users), rendered as a local answer is; upstream is asked, in one
// call, only for the ones it does not hold, and its answer is merged in
// the order asked. A stored copy answers only when the page it came from
// carried everything the answer shows (a Shape, marked when the page was
// stored): a page of another shape overwrote the copy with less.

// byIDRoute is how a by-id route is answered from stored entities.
type byIDRoute struct {
	posts bool // posts in the full shape (else profiles)
	many  bool // a body of ids or names (else the one path id or name)
	dm    bool // profiles with can_dm (one user; users-by-* answer it null)
}

// byIDRoutes are the by-id routes of httpapi.
var byIDRoutes = map[string]byIDRoute{
	"tweets_by_ids":      {posts: true, many: true},
	"tweet":              {posts: true},
	"statuses_show":      {posts: true},
	"users_by_ids":       {many: true},
	"users_by_usernames": {many: true},
	"user":               {dm: true},
}

// asked is one entity a by-id read asks for: key names it in the answer
// (the id in decimal, or the lower-case screen name).
type asked struct {
	key  string
	id   int64
	name string
}

// heldItem is an entity answered from the store: its id and its item.
type heldItem struct {
	id   int64
	item json.RawMessage
}

// byID answers a by-id read: from the store when it holds every entity
// asked for, else with one upstream call for the others (a read of one
// entity: the request itself, as for any route), merged in the order
// asked. An entity upstream does not answer stays absent; when upstream
// has none of them and the store holds some, those are the answer.
func (g *Gateway) byID(ctx context.Context, req httpapi.UpstreamRequest, r byIDRoute, entry *ledger.Entry) ([]byte, int, error) {
	want := askedFor(req, r)
	held, err := g.held(ctx, r, want)
	if err != nil {
		return nil, 0, fmt.Errorf("%s from the store: %w", req.Route, err)
	}
	var missing []asked
	for _, a := range want {
		if _, ok := held[a.key]; !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) == 0 {
		items := make([]json.RawMessage, len(want))
		for i, a := range want {
			items[i] = held[a.key].item
		}
		body, err := httpapi.ByIDsBody(req.Route, items)
		if err != nil {
			return nil, 0, err
		}
		entry.CacheHit = true
		g.metrics.cache.WithLabelValues(req.Route, "hit").Inc()
		return body, len(items), nil
	}
	if !r.many {
		return g.page(ctx, req, entry)
	}
	sub, err := missingRequest(req, missing)
	if err != nil {
		return nil, 0, err
	}
	body, _, err := g.page(ctx, sub, entry)
	var an *httpapi.Answer
	if errors.As(err, &an) && an.Status == http.StatusNotFound && len(held) > 0 {
		body, err = nil, nil // upstream has none of the others
	}
	if err != nil {
		return nil, 0, err
	}
	items, err := merge(req.Route, want, held, body)
	if err != nil {
		return nil, 0, err
	}
	body, err = httpapi.ByIDsBody(req.Route, items)
	if err != nil {
		return nil, 0, err
	}
	return body, len(items), nil
}

// askedFor lists what req asks for, in order.
func askedFor(req httpapi.UpstreamRequest, r byIDRoute) []asked {
	ids, names := req.IDs, req.Names
	if !r.many {
		ids, names = nil, nil
		if req.ID != 0 {
			ids = []int64{req.ID} // a user path of digits is an id first
		} else {
			names = []string{req.Name}
		}
	}
	out := make([]asked, 0, len(ids)+len(names))
	for _, id := range ids {
		out = append(out, asked{key: strconv.FormatInt(id, 10), id: id})
	}
	for _, n := range names {
		out = append(out, asked{key: strings.ToLower(n), name: n})
	}
	return out
}

// held renders the entities of want that the store holds, by key.
func (g *Gateway) held(ctx context.Context, r byIDRoute, want []asked) (map[string]heldItem, error) {
	now := g.cfg.Now()
	var ids []int64
	var names []string
	for _, a := range want {
		if a.name != "" {
			names = append(names, a.name)
		} else {
			ids = append(ids, a.id)
		}
	}
	out := map[string]heldItem{}
	switch {
	case r.posts:
		return out, g.heldPosts(ctx, ids, now, out)
	case len(names) > 0:
		return out, g.heldUsersByName(ctx, names, r.dm, now, out)
	default:
		return out, g.heldUsersByID(ctx, ids, r.dm, now, out)
	}
}

// isFresh reports whether a mark of class taken at at is fresh at now.
func (g *Gateway) isFresh(at time.Time, class string, now time.Time) bool {
	return now.Sub(at) < g.fresh[class]
}

// heldPosts renders into out the posts among ids that the store holds:
// each post and every post and author its full shape shows (its quoted
// and reposted posts, as social.Hydrate resolves them) stored whole from
// a page fetched within the freshness of its class. A post's is_pinned
// is what its page said when that page had the full shape; else, as a
// local answer, what the store holds of its author's pinned post.
func (g *Gateway) heldPosts(ctx context.Context, ids []int64, now time.Time, out map[string]heldItem) error {
	marks, err := g.cfg.Store.Fetched(ctx, ledger.KindPost, ids)
	if err != nil {
		return err
	}
	var candidates []int64
	for _, id := range ids {
		if m, ok := marks[id]; ok && m.Shape == ledger.ShapeWhole && g.isFresh(m.At, ClassTweet, now) {
			candidates = append(candidates, id)
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	posts, err := g.cfg.Reader.Posts(ctx, candidates)
	if err != nil || len(posts) == 0 {
		return err
	}
	views, err := social.Hydrate(ctx, g.cfg.Reader, posts)
	if err != nil {
		return err
	}
	// The marks of the posts the views embed and of their authors.
	var embedded, authors []int64
	seen := map[int64]bool{}
	seenAuthor := map[int64]bool{}
	var collect func(v *social.PostView)
	collect = func(v *social.PostView) {
		if _, ok := marks[v.ID]; !ok && !seen[v.ID] {
			seen[v.ID] = true
			embedded = append(embedded, v.ID)
		}
		if !seenAuthor[v.AuthorID] {
			seenAuthor[v.AuthorID] = true
			authors = append(authors, v.AuthorID)
		}
		for _, e := range [2]*social.PostView{v.Quoted, v.RepostOf} {
			if e != nil {
				collect(e)
			}
		}
	}
	for i := range views {
		collect(&views[i])
	}
	if len(embedded) > 0 {
		more, err := g.cfg.Store.Fetched(ctx, ledger.KindPost, embedded)
		if err != nil {
			return err
		}
		for id, m := range more {
			marks[id] = m
		}
	}
	users, err := g.cfg.Store.Fetched(ctx, ledger.KindUser, authors)
	if err != nil {
		return err
	}
	var whole func(v *social.PostView, depth int) bool
	whole = func(v *social.PostView, depth int) bool {
		need := ledger.ShapeWhole
		if depth == social.MaxNesting {
			need = ledger.ShapeAllBut // shown without what it reposts
		}
		m, ok := marks[v.ID]
		if !ok || m.Shape < need || !g.isFresh(m.At, ClassTweet, now) {
			return false
		}
		a, ok := users[v.AuthorID]
		if !ok || v.Author.Stub || a.Shape != ledger.ShapeWhole || !g.isFresh(a.At, ClassProfile, now) {
			return false
		}
		if m.Pinned != ledger.PinnedUnknown {
			v.Pinned = m.Pinned == ledger.PinnedYes
		}
		if depth == social.MaxNesting {
			return true // its quoted and reposted posts are not shown
		}
		// A post it embeds that is not stored may be one upstream has:
		// upstream answers.
		return (v.QuotedID == 0 || v.Quoted != nil && whole(v.Quoted, depth+1)) &&
			(v.RepostOfID == 0 || v.RepostOf != nil && whole(v.RepostOf, depth+1))
	}
	var keep []social.PostView
	for i := range views {
		if whole(&views[i], 0) {
			keep = append(keep, views[i])
		}
	}
	items, err := httpapi.FullPosts(keep)
	if err != nil {
		return err
	}
	for i := range keep {
		out[strconv.FormatInt(keep[i].ID, 10)] = heldItem{id: keep[i].ID, item: items[i]}
	}
	return nil
}

// needUser is the shape a stored profile needs to answer: with can_dm
// (one user, a post's author) whole, else (users-by-*) all but can_dm.
func needUser(dm bool) ledger.Shape {
	if dm {
		return ledger.ShapeWhole
	}
	return ledger.ShapeAllBut
}

// heldUser reports whether m marks a profile stored whole enough and
// fresh.
func (g *Gateway) heldUser(m ledger.Fetched, dm bool, now time.Time) bool {
	return m.Shape >= needUser(dm) && g.isFresh(m.At, ClassProfile, now)
}

// heldUsersByID renders into out the users among ids that the store
// holds.
func (g *Gateway) heldUsersByID(ctx context.Context, ids []int64, dm bool, now time.Time, out map[string]heldItem) error {
	marks, err := g.cfg.Store.Fetched(ctx, ledger.KindUser, ids)
	if err != nil {
		return err
	}
	var candidates []int64
	for _, id := range ids {
		if m, ok := marks[id]; ok && g.heldUser(m, dm, now) {
			candidates = append(candidates, id)
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	found, err := g.cfg.Reader.UsersByIDs(ctx, candidates)
	if err != nil {
		return err
	}
	var keep []social.User
	for _, u := range found {
		if !u.Stub {
			keep = append(keep, u)
		}
	}
	return putUsers(keep, dm, out, func(u *social.User) string { return strconv.FormatInt(u.ID, 10) })
}

// heldUsersByName renders into out the users named among names
// (case-insensitive) that the store holds; of two held under one name,
// the one fetched last.
func (g *Gateway) heldUsersByName(ctx context.Context, names []string, dm bool, now time.Time, out map[string]heldItem) error {
	found, err := g.cfg.Reader.UsersByScreenNames(ctx, names)
	if err != nil || len(found) == 0 {
		return err
	}
	ids := make([]int64, len(found))
	for i, u := range found {
		ids[i] = u.ID
	}
	marks, err := g.cfg.Store.Fetched(ctx, ledger.KindUser, ids)
	if err != nil {
		return err
	}
	best := map[string]int{}
	for i, u := range found {
		m, ok := marks[u.ID]
		if u.Stub || !ok || !g.heldUser(m, dm, now) {
			continue
		}
		name := strings.ToLower(u.ScreenName)
		if j, ok := best[name]; !ok || marks[found[j].ID].At.Before(m.At) {
			best[name] = i
		}
	}
	keep := make([]social.User, 0, len(best))
	for _, i := range best {
		keep = append(keep, found[i])
	}
	return putUsers(keep, dm, out, func(u *social.User) string { return strings.ToLower(u.ScreenName) })
}

// putUsers renders users into out under key.
func putUsers(users []social.User, dm bool, out map[string]heldItem, key func(*social.User) string) error {
	items, err := httpapi.Profiles(users, dm)
	if err != nil {
		return err
	}
	for i := range users {
		out[key(&users[i])] = heldItem{id: users[i].ID, item: items[i]}
	}
	return nil
}

// missingRequest is req asking only for missing: its body names them
// (ids as strings), and the most items it can cost is their number.
func missingRequest(req httpapi.UpstreamRequest, missing []asked) (httpapi.UpstreamRequest, error) {
	var v any
	if req.Route == "users_by_usernames" {
		names := make([]string, len(missing))
		for i, a := range missing {
			names[i] = a.name
		}
		req.IDs, req.Names = nil, names
		v = map[string][]string{"usernames": names}
	} else {
		ids := make([]int64, len(missing))
		strs := make([]string, len(missing))
		for i, a := range missing {
			ids[i], strs[i] = a.id, a.key
		}
		req.IDs, req.Names = ids, nil
		v = map[string][]string{"ids": strs}
	}
	body, err := json.Marshal(v)
	if err != nil {
		return req, fmt.Errorf("the request for what the store lacks: %w", err)
	}
	req.Body, req.MaxItems = body, len(missing)
	return req, nil
}

// merge puts held items and upstream's answer (body; nil: none) in the
// order asked, each entity once. An item of upstream's that answers
// nothing asked (a quirk of upstream) follows, in upstream's order: what
// upstream answered is never dropped.
func merge(route string, want []asked, held map[string]heldItem, body []byte) ([]json.RawMessage, error) {
	var up []json.RawMessage
	if body != nil {
		var err error
		if up, err = httpapi.ByIDsItems(route, body); err != nil {
			return nil, err
		}
	}
	byKey := make(map[string]int, len(up))
	fromUp := make(map[int64]bool, len(up))
	for i, item := range up {
		var v struct {
			IDStr      string `json:"id_str"`
			ScreenName string `json:"screen_name"`
		}
		if err := json.Unmarshal(item, &v); err != nil {
			return nil, fmt.Errorf("an item of upstream's %s answer: %w", route, err)
		}
		key := v.IDStr
		if route == "users_by_usernames" {
			key = strings.ToLower(v.ScreenName)
		}
		if _, dup := byKey[key]; !dup {
			byKey[key] = i
		}
		if id, err := strconv.ParseInt(v.IDStr, 10, 64); err == nil {
			fromUp[id] = true
		}
	}
	out := make([]json.RawMessage, 0, len(want)+len(up))
	placed := make([]bool, len(up))
	for _, a := range want {
		if h, ok := held[a.key]; ok {
			// A held user renamed upstream meanwhile comes with
			// upstream's answer, once.
			if !fromUp[h.id] {
				out = append(out, h.item)
			}
		} else if i, ok := byKey[a.key]; ok && !placed[i] {
			out = append(out, up[i])
			placed[i] = true
		}
	}
	for i, item := range up {
		if !placed[i] {
			out = append(out, item)
		}
	}
	return out, nil
}

// pageShape is what a route's page carries of its posts and users, and
// whether its posts say is_pinned.
type pageShape struct {
	posts, users ledger.Shape
	pinned       bool
}

// routeShapes are the shapes of the pages of every data route of httpapi
// (routeClass names them all). Compact posts (timelines, search, …) carry
// every field of the full shape but is_pinned, and a compact author every
// profile field; highlights carry no counters, entities or quoted posts;
// community members, list owners and spaces less than a profile.
var routeShapes = func() map[string]pageShape {
	compact := pageShape{posts: ledger.ShapeWhole, users: ledger.ShapeWhole}
	full := pageShape{posts: ledger.ShapeWhole, users: ledger.ShapeWhole, pinned: true}
	profiles := pageShape{users: ledger.ShapeWhole}
	part := pageShape{}
	m := map[string]pageShape{
		"tweets_by_ids": full, "tweet": full, "statuses_show": full, "thread": full,
		"highlights":         {users: ledger.ShapeWhole},
		"users_by_ids":       {users: ledger.ShapeAllBut},
		"users_by_usernames": {users: ledger.ShapeAllBut},
	}
	for _, r := range []string{"search", "user_tweets", "user_tweets_and_replies", "community_tweets", "list_tweets",
		"mentions", "tweet_comments", "tweet_quotes", "user_likes"} {
		m[r] = compact
	}
	for _, r := range []string{"user", "search_users", "retweeted_by", "affiliates", "verified_followers", "following",
		"followers", "followers_list", "friends_list", "list_members", "liking_users"} {
		m[r] = profiles
	}
	for _, r := range []string{"community_members", "user_lists", "list", "space", "extended_bio", "commented_by",
		"retweeted_by_user", "following_user"} {
		m[r] = part
	}
	return m
}()

// fetchedMarks are the marks of the posts and users of b, decoded from the
// page body of route fetched at at (a route not in routeShapes: part). A
// post the page shows only as deep as social.MaxNesting (a quote of a
// quoted post) is all but its repost link, which the page does not show.
func fetchedMarks(route string, body []byte, b *social.Batch, at time.Time) []ledger.Fetched {
	shape := routeShapes[route]
	var shown map[int64]pageView
	if shape.posts == ledger.ShapeWhole {
		shown = pagePosts(body)
	}
	marks := make([]ledger.Fetched, 0, len(b.Posts)+len(b.Users))
	for _, p := range b.Posts {
		m := ledger.Fetched{Kind: ledger.KindPost, ID: p.ID, At: at, Shape: shape.posts}
		switch v, ok := shown[p.ID]; {
		case !ok:
			m.Shape = ledger.ShapePart
		case v.deep:
			m.Shape = ledger.ShapeAllBut
		case shape.pinned && v.pinned != nil:
			m.Pinned = ledger.PinnedNo
			if *v.pinned {
				m.Pinned = ledger.PinnedYes
			}
		}
		marks = append(marks, m)
	}
	for _, u := range b.Users {
		if !u.Stub { // a stub never overwrites a stored profile
			marks = append(marks, ledger.Fetched{Kind: ledger.KindUser, ID: u.ID, At: at, Shape: shape.users})
		}
	}
	return marks
}

// pagePost is what pagePosts reads of a post of a page.
type pagePost struct {
	IDStr     string    `json:"id_str"`
	IsPinned  *bool     `json:"is_pinned"`
	Quoted    *pagePost `json:"quoted_status"`
	Retweeted *pagePost `json:"retweeted_status"`
}

// pageView is how a page shows a post: its is_pinned (nil: not said), and
// whether it is shown as deep as social.MaxNesting somewhere.
type pageView struct {
	pinned *bool
	deep   bool
}

// pagePosts reads how a page (an array of posts, one post, or a page of
// "tweets") shows each of its posts, embedded ones included, by id. A
// page it cannot read shows nothing.
func pagePosts(body []byte) map[int64]pageView {
	var posts []pagePost
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &posts) != nil {
			return nil
		}
	} else {
		var v struct {
			pagePost
			Tweets []pagePost `json:"tweets"`
		}
		if json.Unmarshal(b, &v) != nil {
			return nil
		}
		posts = append(v.Tweets, v.pagePost)
	}
	out := map[int64]pageView{}
	var read func(p *pagePost, depth int)
	read = func(p *pagePost, depth int) {
		id, err := strconv.ParseInt(p.IDStr, 10, 64)
		if err != nil {
			return
		}
		v := out[id]
		if p.IsPinned != nil {
			v.pinned = p.IsPinned
		}
		v.deep = v.deep || depth >= social.MaxNesting
		out[id] = v
		for _, e := range [2]*pagePost{p.Quoted, p.Retweeted} {
			if e != nil {
				read(e, depth+1)
			}
		}
	}
	for i := range posts {
		read(&posts[i], 0)
	}
	return out
}
