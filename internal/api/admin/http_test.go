package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

const token = "admin-token-0123456789"

type fixture struct {
	t      *testing.T
	store  social.Store
	admin  http.Handler
	public http.Handler
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := gen.DefaultConfig()
	cfg.Users, cfg.Posts = 100, 1000
	if _, err := gen.Generate(ctx, st, cfg, nil); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, store: st, admin: Handler(&Service{Store: st}, token, nil),
		public: httpapi.New(httpapi.Config{RateLimit: -1}, st, nil, nil)}
}

// call sends one request to h and decodes a JSON answer into out.
func (f *fixture) call(h http.Handler, method, path, auth, body string, out any) int {
	f.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if auth != "" {
		r.Header.Set("Authorization", "Bearer "+auth)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if h == f.admin && auth == token { // every answer to a real admin call fits the document
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		for _, m := range mismatches(adminValidator(f.t), req, w) {
			f.t.Errorf("the OpenAPI document does not hold: %s", m)
		}
	}
	if out != nil {
		dec := json.NewDecoder(w.Body)
		dec.UseNumber()
		if err := dec.Decode(out); err != nil {
			f.t.Fatalf("%s %s: %d, not JSON: %v", method, path, w.Code, err)
		}
	}
	return w.Code
}

func TestAdminRefusesWithoutToken(t *testing.T) {
	f := newFixture(t)
	for _, auth := range []string{"", "wrong-token-0123456789", token + "x"} {
		for _, p := range []string{"GET /admin/keys", "POST /admin/keys", "GET /admin/usage", "POST /admin/keys/1/rotate", "GET /nope"} {
			method, path, _ := strings.Cut(p, " ")
			var e struct{ Status, Message string }
			if code := f.call(f.admin, method, path, auth, `{"credits_usd":"1"}`, &e); code != 401 || e.Message != "Admin token required" {
				t.Errorf("%s with %q: %d %+v", p, auth, code, e)
			}
		}
	}
	keys, _ := f.store.Keys(t.Context())
	if len(keys) != 0 {
		t.Errorf("a refused request made a key")
	}
	// The public API knows no admin path, with or without the token.
	for _, auth := range []string{"", token} {
		var e struct{ Message string }
		if code := f.call(f.public, "GET", "/admin/keys", auth, "", &e); code != 404 || e.Message != "Unknown endpoint" {
			t.Errorf("public /admin/keys: %d %+v", code, e)
		}
	}
}

type accountJSON struct {
	ID         int64
	Name       string
	Prefix     string
	BalanceUSD json.Number `json:"balance_usd"`
	RateLimit  int         `json:"rate_limit"`
	RevokedAt  *time.Time  `json:"revoked_at"`
}

func TestAdminKeyLifecycle(t *testing.T) {
	f := newFixture(t)
	var made struct {
		Key     string
		Account accountJSON
	}
	if code := f.call(f.admin, "POST", "/admin/keys", token, `{"name":"team","credits_usd":"1.5","rate_limit":40}`, &made); code != 201 {
		t.Fatalf("create: %d", code)
	}
	a := made.Account
	if a.Name != "team" || a.BalanceUSD != "1.5" || a.RateLimit != 40 || !strings.HasPrefix(made.Key, a.Prefix) {
		t.Fatalf("created %+v", made)
	}
	path := "/admin/keys/" + jsonInt(a.ID)
	var got accountJSON
	if code := f.call(f.admin, "POST", path+"/topup", token, `{"credits_usd":0.25}`, &got); code != 200 || got.BalanceUSD != "1.75" {
		t.Errorf("topup: %d %+v", code, got)
	}
	if code := f.call(f.admin, "PUT", path+"/rate-limit", token, `{"rate_limit":0}`, &got); code != 200 || got.RateLimit != 0 {
		t.Errorf("rate limit: %d %+v", code, got)
	}
	var e struct{ Message string }
	for _, bad := range []struct{ method, path, body, msg string }{
		{"POST", path + "/topup", `{"credits_usd":"-1"}`, "credits_usd"},
		{"POST", path + "/topup", `{"credits_usd":"0"}`, "credits must be more than 0"},
		{"PUT", path + "/rate-limit", `{"rate_limit":-3}`, "rate limit must not be negative"},
		{"PUT", path + "/rate-limit", `{}`, "rate_limit is required"},
		{"POST", "/admin/keys/999/topup", `{"credits_usd":"1"}`, "Key not found"},
		{"GET", "/admin/keys/x", ``, "positive integer"},
		{"GET", path + "/ledger?since=yesterday", ``, "since must be"},
		{"GET", path + "/ledger?limit=5000", ``, "limit must be 1 to 1000"},
	} {
		if code := f.call(f.admin, bad.method, bad.path, token, bad.body, &e); code < 400 || code >= 500 || !strings.Contains(e.Message, bad.msg) {
			t.Errorf("%s %s %s: %d %q, want 4xx with %q", bad.method, bad.path, bad.body, code, e.Message, bad.msg)
		}
	}
	// The key works on the public API; rotated, only the new secret does.
	if code := f.call(f.public, "GET", "/user/balance", made.Key, "", nil); code != 200 {
		t.Fatalf("new key on the public API: %d", code)
	}
	var rotated struct {
		Key     string
		Account accountJSON
	}
	if code := f.call(f.admin, "POST", path+"/rotate", token, "", &rotated); code != 200 || rotated.Key == made.Key ||
		rotated.Account.BalanceUSD != "1.75" {
		t.Fatalf("rotate: %d %+v", code, rotated)
	}
	if code := f.call(f.public, "GET", "/user/balance", made.Key, "", nil); code != 401 {
		t.Errorf("old secret after rotation: %d", code)
	}
	if code := f.call(f.public, "GET", "/user/balance", rotated.Key, "", nil); code != 200 {
		t.Errorf("new secret after rotation: %d", code)
	}
	if code := f.call(f.admin, "POST", path+"/revoke", token, "", &got); code != 200 || got.RevokedAt == nil {
		t.Errorf("revoke: %d %+v", code, got)
	}
	if code := f.call(f.public, "GET", "/user/balance", rotated.Key, "", nil); code != 401 {
		t.Errorf("revoked key: %d", code)
	}
	if code := f.call(f.admin, "POST", path+"/rotate", token, "", &e); code != 422 {
		t.Errorf("rotating a revoked key: %d %+v", code, e)
	}
	var list struct{ Keys []accountJSON }
	if code := f.call(f.admin, "GET", "/admin/keys", token, "", &list); code != 200 || len(list.Keys) != 1 || list.Keys[0].RevokedAt == nil {
		t.Errorf("list: %d %+v", code, list)
	}
}

func jsonInt(v int64) string { b, _ := json.Marshal(v); return string(b) }

// TestAdminLedgerAndUsage: ledger pages and usage totals equal what the
// public requests did.
func TestAdminLedgerAndUsage(t *testing.T) {
	f := newFixture(t)
	var made struct {
		Key     string
		Account accountJSON
	}
	f.call(f.admin, "POST", "/admin/keys", token, `{"credits_usd":"10"}`, &made)
	paths := []string{"/social/search?query=the", "/social/search?query=a", "/user/balance"}
	items := map[string]int64{}
	for i := range 9 {
		var p struct {
			Tweets []json.RawMessage
		}
		path := paths[i%len(paths)]
		if code := f.call(f.public, "GET", path, made.Key, "", &p); code != 200 {
			t.Fatalf("%s: %d", path, code)
		}
		if path != "/user/balance" {
			items["search"] += int64(len(p.Tweets))
		}
	}
	base := "/admin/keys/" + jsonInt(made.Account.ID) + "/ledger"
	var rows []map[string]any
	cursor := ""
	for range 20 {
		var page struct {
			Entries    []map[string]any
			NextCursor *string `json:"next_cursor"`
		}
		if code := f.call(f.admin, "GET", base+"?limit=2&cursor="+cursor, token, "", &page); code != 200 {
			t.Fatalf("ledger page: %d", code)
		}
		rows = append(rows, page.Entries...)
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	debits := 0
	for _, r := range rows {
		if r["kind"] == "debit" {
			debits++
		}
	}
	if len(rows) != 1+debits || debits == 0 || debits > 6 {
		t.Errorf("ledger: %d rows, %d debits, want the credit and one debit per paid page", len(rows), debits)
	}
	var only struct{ Entries []map[string]any }
	f.call(f.admin, "GET", base+"?endpoint=search&until="+time.Now().Add(time.Minute).UTC().Format(time.RFC3339), token, "", &only)
	if len(only.Entries) != debits {
		t.Errorf("search rows %d, want %d", len(only.Entries), debits)
	}
	var usage struct {
		Usage []struct {
			KeyID     int64 `json:"key_id"`
			Endpoint  string
			Day       string
			Requests  int64
			Items     int64
			AmountUSD json.Number `json:"amount_usd"`
		}
	}
	if code := f.call(f.admin, "GET", "/admin/usage?key_id="+jsonInt(made.Account.ID), token, "", &usage); code != 200 || len(usage.Usage) != 1 {
		t.Fatalf("usage: %d %+v", code, usage)
	}
	u := usage.Usage[0]
	if u.Endpoint != "search" || u.Items != items["search"] || u.Requests != int64(debits) ||
		u.AmountUSD.String() != billing.FormatUSD(items["search"]*200) ||
		u.Day != time.Now().UTC().Format(time.DateOnly) {
		t.Errorf("usage %+v; served %d search items in %d pages", u, items["search"], debits)
	}
}

// TestAdminFault: a key's fault plan is set at creation and by PUT
// /admin/keys/{id}/fault, stored in its canonical form, shown in the
// account, turned off by "none", refused with 422 naming the item at
// fault, and obeyed at once by the public API.
func TestAdminFault(t *testing.T) {
	f := newFixture(t)
	var made struct {
		Key     string
		Account struct {
			ID    int64
			Fault string
		}
	}
	if code := f.call(f.admin, "POST", "/admin/keys", token, `{"credits_usd":"1","fault":"500=1, 429=0"}`, &made); code != 201 ||
		made.Account.Fault != "500=1" {
		t.Fatalf("create with a fault: %d %+v", code, made)
	}
	if code := f.call(f.public, "GET", "/user/balance", made.Key, "", nil); code != 500 {
		t.Errorf("a key made with 500=1: %d, want 500", code)
	}
	path := "/admin/keys/" + jsonInt(made.Account.ID) + "/fault"
	var got struct{ Fault string }
	if code := f.call(f.admin, "PUT", path, token, `{"fault":"seed=9,429=.25,retry_after=2"}`, &got); code != 200 ||
		got.Fault != "429=0.25,retry_after=2,seed=9" {
		t.Errorf("set fault: %d %+v", code, got)
	}
	if k, _ := f.store.Key(t.Context(), made.Account.ID); k.Fault != "429=0.25,retry_after=2,seed=9" {
		t.Errorf("stored fault %q", k.Fault)
	}
	if code := f.call(f.admin, "PUT", path, token, `{"fault":"none"}`, &got); code != 200 || got.Fault != "" {
		t.Errorf("fault none: %d %+v", code, got)
	}
	if code := f.call(f.public, "GET", "/user/balance", made.Key, "", nil); code != 200 {
		t.Errorf("a key whose fault is none: %d", code)
	}
	var e struct{ Message string }
	for _, bad := range []struct{ method, path, body, msg string }{
		{"PUT", path, `{"fault":"500=abc"}`, `fault 500: must be a decimal from 0 to 1 with at most 3 decimals, got "abc"`},
		{"PUT", path, `{"fault":"delay=2m"}`, "fault delay: must be a duration from 0s to 10s"},
		{"PUT", path, `{"fault":"teapot=1"}`, "fault teapot: is not a fault"},
		{"PUT", path, `{}`, "fault is required"},
		{"PUT", "/admin/keys/999/fault", `{"fault":"429=1"}`, "Key not found"},
		{"POST", "/admin/keys", `{"credits_usd":"1","fault":"429=0.5,500=0.6"}`, "must not exceed 1"},
	} {
		if code := f.call(f.admin, bad.method, bad.path, token, bad.body, &e); code < 400 || code >= 500 || !strings.Contains(e.Message, bad.msg) {
			t.Errorf("%s %s %s: %d %q, want 4xx with %q", bad.method, bad.path, bad.body, code, e.Message, bad.msg)
		}
	}
	if keys, _ := f.store.Keys(t.Context()); len(keys) != 1 {
		t.Errorf("a refused create made a key: %d keys", len(keys))
	}
}
