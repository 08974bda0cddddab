package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdpnetwork "github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/research/graph"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// browserCtx starts a headless chromium for the test.
func browserCtx(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.NoFirstRun, chromedp.WindowSize(1280, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	return ctx
}

// TestSearchPage drives the search page in headless chromium over the
// generated network: sign in with a key, a query typed and sent with the
// keyboard, the posts the API returns, a page turn, Top, the chart and the
// top lists drawn, a CSV downloaded whole, the network downloaded as GEXF
// (every node and edge the store gathers), a bad query answered with HTTP
// 422 (read from the browser's network events) and shown in words. Each
// part shows what it cost (X-Roost-Charged-USD; the download by the
// balance), the header the balance after the charges, and the address the
// search, which a page opened with it runs again.
// Screenshots of the results and of the error go to the test's artifact
// directory (go test -artifacts keeps them).
func TestSearchPage(t *testing.T) {
	e, _ := genEnv(t, engines()[0])
	ctx := browserCtx(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	key, keyID := e.key(t, plenty, 0)
	downloads := t.TempDir()

	q, err := search.Parse("the", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	page1, err := e.store.Search(context.Background(), q, social.Latest, social.PageReq{Limit: pageSize})
	if err != nil || page1.Next == nil {
		t.Fatal(err)
	}
	page2, err := e.store.Search(context.Background(), q, social.Latest, social.PageReq{Limit: pageSize, After: page1.Next})
	if err != nil {
		t.Fatal(err)
	}
	top, err := e.store.Search(context.Background(), q, social.Top, social.PageReq{Limit: pageSize})
	if err != nil {
		t.Fatal(err)
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	eval := func(expr string, into any) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
			if err != nil {
				return err
			}
			return json.Unmarshal(raw, into)
		})
	}
	shown := func(into *[]string) chromedp.Action[chromedp.Void] {
		return eval(`Array.from(document.querySelectorAll('#posts > .post')).map(p => p.dataset.id)`, into)
	}
	poll := func(expr string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(30*time.Second)))
			return err
		})
	}
	var balance, page, afterSlash, alertText, address, addressTop string
	var costPosts, costChart, costTags, costUsers, spent string
	var p1, p2, pTop []string
	var bars, tags, users int
	nextDownload, stopDownloads := iter.Pull2(chromedp.Events(ctx, browser.DownloadProgress))
	defer stopDownloads()
	// downloaded waits for the next download to complete and reads it.
	downloaded := func() []byte {
		t.Helper()
		for {
			ev, err, ok := nextDownload()
			if err != nil || !ok {
				t.Fatalf("waiting for a download: %v", err)
			}
			if ev.State == browser.DownloadProgressStateCompleted {
				data, err := os.ReadFile(filepath.Join(downloads, ev.GUID))
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
		}
	}
	responses := chromedp.Events(ctx, cdpnetwork.ResponseReceived)
	err = chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			if _, err := chromedp.Call(ctx, cdpnetwork.Enable, cdpnetwork.EnableParams{}); err != nil {
				return err
			}
			_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: downloads, EventsEnabled: new(true)})
			return err
		}),
		chromedp.Navigate(srv.URL+"/ui"),
		chromedp.WaitVisible(css("#key")),
		chromedp.SendKeys(css("#key"), key+kb.Enter),
		chromedp.WaitVisible(css("#account")),
		eval(`document.getElementById('balance').textContent`, &balance),
		chromedp.SendKeys(css("#q"), "the"+kb.Enter),
		chromedp.WaitVisible(css("#posts > .post")),
		shown(&p1),
		chromedp.WaitVisible(css("#chart svg rect")),
		chromedp.WaitVisible(css("#top-hashtags li a")),
		chromedp.WaitVisible(css("#top-authors li a")),
		eval(`document.querySelectorAll('#chart svg rect').length`, &bars),
		eval(`document.querySelectorAll('#top-hashtags li').length`, &tags),
		eval(`document.querySelectorAll('#top-authors li').length`, &users),
		// What each part cost, and the search in the address.
		poll(`['cost-posts', 'cost-chart', 'cost-hashtags', 'cost-authors'].every(id => document.getElementById(id).textContent)`),
		eval(`document.getElementById('cost-posts').textContent`, &costPosts),
		eval(`document.getElementById('cost-chart').textContent`, &costChart),
		eval(`document.getElementById('cost-hashtags').textContent`, &costTags),
		eval(`document.getElementById('cost-authors').textContent`, &costUsers),
		eval(`document.getElementById('spent').textContent`, &spent),
		eval(`location.search`, &address),
		chromedp.Click(css("#next")),
		poll(`document.getElementById('page').textContent === 'Page 2' && !document.getElementById('next').disabled`),
		shown(&p2),
		eval(`document.getElementById('page').textContent`, &page),
		chromedp.Click(css(`input[name=order][value=Top]`)),
		poll(`document.getElementById('page').textContent === 'Page 1' && document.querySelector('#posts > .post').dataset.id === '`+
			strconv.FormatInt(top.Items[0].ID, 10)+`'`),
		shown(&pTop),
		eval(`location.search`, &addressTop),
		chromedp.WaitVisible(css("#chart svg rect")),
		chromedp.WaitVisible(css("#top-authors li a")),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err == nil {
				err = os.WriteFile(filepath.Join(t.ArtifactDir(), "search-results.png"), shot, 0o644)
			}
			return err
		}),
		// The keyboard: "/" from anywhere outside a field goes to the query.
		eval(`document.activeElement.blur(), true`, new(bool)),
		chromedp.KeyEvent("/"),
		eval(`document.activeElement.id`, &afterSlash),
		chromedp.Click(css("#dl-csv")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(balance, "Balance: ") {
		t.Errorf("balance shows %q", balance)
	}
	if !slices.Equal(p1, idStrings(page1.Items)) || !slices.Equal(p2, idStrings(page2.Items)) || !slices.Equal(pTop, idStrings(top.Items)) {
		t.Errorf("pages shown %v / %v / top %v, want %v / %v / %v", p1, p2, pTop, idStrings(page1.Items), idStrings(page2.Items), idStrings(top.Items))
	}
	if bars < 30 || tags == 0 || users == 0 || page != "Page 2" || afterSlash != "q" {
		t.Errorf("chart bars %d, top hashtags %d, top users %d, page %q, focus after / %q", bars, tags, users, page, afterSlash)
	}
	// Each part shows what it cost: a post, a period holding posts (the
	// empty ones free), a value, each one item.
	days, _ := e.store.SearchCounts(context.Background(), q, social.Day)
	matched := 0
	for _, b := range days {
		if b.Count > 0 {
			matched++
		}
	}
	usd := func(items int) string { return billing.FormatUSD(int64(items)*billing.DefaultPrice) + " USD" }
	for _, c := range []struct{ got, want string }{
		{costPosts, "Cost: " + usd(len(page1.Items)) + " for " + strconv.Itoa(len(page1.Items)) + " posts."},
		{costChart, "Cost: " + usd(matched) + " for " + strconv.Itoa(matched) + " periods with posts (the empty ones are free)."},
		{costTags, "Cost: " + usd(tags) + " for " + strconv.Itoa(tags) + " values."},
		{costUsers, "Cost: " + usd(users) + " for " + strconv.Itoa(users) + " values."},
		{spent, "This search has cost " + usd(len(page1.Items)+matched+tags+users) + " so far."},
	} {
		if c.got != c.want {
			t.Errorf("the page says %q, want %q", c.got, c.want)
		}
	}
	if address != "?query=the&type=Latest" || addressTop != "?query=the&type=Top" {
		t.Errorf("the address holds %q, then %q after Top", address, addressTop)
	}

	data := downloaded()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	var total int64
	buckets, _ := e.store.SearchCounts(context.Background(), q, social.Day)
	for _, b := range buckets {
		total += b.Count
	}
	if err != nil || int64(len(rows)-1) != total || rows[0][0] != "id" {
		t.Errorf("downloaded CSV: %d rows (%v), want %d posts", len(rows)-1, err, total)
	}

	// The network of the query, as GEXF: every edge kind, every node.
	var dlStatus string
	before := e.balance(t, keyID)
	err = chromedp.Do(ctx,
		chromedp.Click(css("#dl-gexf")),
		poll(`document.getElementById('dl-status').textContent.startsWith('Downloaded roost-network.gexf')`),
		eval(`document.getElementById('dl-status').textContent`, &dlStatus),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The header shows the balance after every charge; the download says
	// what it cost.
	after := e.balance(t, keyID)
	if !strings.Contains(dlStatus, "Cost: "+billing.FormatUSD(before-after)+" USD.") {
		t.Errorf("the network download says %q; it cost %d micro-USD", dlStatus, before-after)
	}
	if err := chromedp.Do(ctx, poll(`document.getElementById('balance').textContent === 'Balance: `+billing.FormatUSD(after)+` USD'`)); err != nil {
		t.Errorf("the header does not show the balance after the charges, %s USD: %v", billing.FormatUSD(after), err)
	}
	gexf := downloaded()
	g, err := graph.Build(context.Background(), e.store, q, "the", graph.Options{Kinds: graph.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"gexf"`
		Nodes   []struct {
			ID string `xml:"id,attr"`
		} `xml:"graph>nodes>node"`
		Edges []struct {
			Weight int64  `xml:"weight,attr"`
			Kind   string `xml:"kind,attr"`
		} `xml:"graph>edges>edge"`
	}
	if err := xml.Unmarshal(gexf, &doc); err != nil {
		t.Fatalf("downloaded GEXF: %v %.200s", err, gexf)
	}
	var weight, wantWeight int64
	for _, ed := range doc.Edges {
		weight += ed.Weight
	}
	for _, ed := range g.Edges {
		wantWeight += ed.Weight
	}
	if len(doc.Nodes) != len(g.Nodes) || len(doc.Edges) != len(g.Edges) || weight != wantWeight || len(g.Edges) == 0 ||
		!strings.Contains(dlStatus, strconv.Itoa(len(gexf))+" bytes") {
		t.Errorf("downloaded GEXF: %d nodes, %d edges of weight %d (%q); the store gathers %d, %d, %d",
			len(doc.Nodes), len(doc.Edges), weight, dlStatus, len(g.Nodes), len(g.Edges), wantWeight)
	}

	err = chromedp.Do(ctx,
		eval(`document.getElementById('q').value = '', true`, new(bool)),
		chromedp.SendKeys(css("#q"), "(the"+kb.Enter),
		chromedp.WaitVisible(css("#alert")),
		eval(`document.getElementById('alert').textContent`, &alertText),
	)
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(alertText, "Invalid query") || !strings.Contains(alertText, "query:") {
		t.Errorf("bad query shows %q", alertText)
	}
	// The answer to the bad query's search, as the browser received it.
	badStatus := int64(0)
	for ev, err := range responses {
		if err != nil {
			t.Fatal(err)
		}
		if u, err := url.Parse(ev.Response.URL); err == nil && u.Path == "/social/search" && u.Query().Get("query") == "(the" {
			badStatus = ev.Response.Status
			break
		}
	}
	if badStatus != http.StatusUnprocessableEntity {
		t.Errorf("the bad query's search answered HTTP %d, want 422", badStatus)
	}
	path := filepath.Join(t.ArtifactDir(), "search-error.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}

	// A bookmarked search: the page opened with its address runs it.
	tq, err := search.Parse("#golang", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tagTop, err := e.store.Search(context.Background(), tq, social.Top, social.PageReq{Limit: pageSize})
	if err != nil || len(tagTop.Items) == 0 {
		t.Fatalf("#golang, Top: %v %v", tagTop.Items, err)
	}
	var pTag []string
	var typed string
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/ui?query=%23golang&type=Top"),
		poll(`document.querySelector('#posts > .post') !== null && document.getElementById('q').value === '#golang'`),
		shown(&pTag),
		eval(`document.getElementById('q').value + ' ' + document.querySelector('input[name=order]:checked').value`, &typed),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pTag, idStrings(tagTop.Items)) || typed != "#golang Top" {
		t.Errorf("the bookmark shows %q: %v, want %v", typed, pTag, idStrings(tagTop.Items))
	}
	t.Logf("screenshots: %s", t.ArtifactDir())
}

func idStrings(ps []social.Post) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = strconv.FormatInt(p.ID, 10)
	}
	return out
}

// TestSearchPageServed: the page and its files come from the binary at /ui
// and /ui/, with a policy that allows only the page's own origin; no key is
// needed; other paths (/ too) stay unknown endpoints.
func TestSearchPageServed(t *testing.T) {
	e := newEnv(t, engines()[0], Config{}, nil)
	for _, c := range []struct{ path, want string }{
		{"/ui", "<title>roost search</title>"},
		{"/ui/app.js", "async function api(path)"}, {"/ui/app.css", ".posts"},
	} {
		w := e.do(call{path: c.path})
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), c.want) ||
			!strings.Contains(w.Header().Get("Content-Security-Policy"), "connect-src 'self'") {
			t.Errorf("%s: %d %q", c.path, w.Code, w.Header())
		}
	}
	for _, p := range []string{"/", "/ui/nope.js", "/index.html", "/ui/index.html"} {
		w := e.do(call{path: p})
		if p == "/ui/index.html" && w.Code == http.StatusMovedPermanently {
			continue
		}
		if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), msgUnknownEndpoint) {
			t.Errorf("%s: %d %s", p, w.Code, w.Body)
		}
	}
}
