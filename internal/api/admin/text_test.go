package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/storetest/engines"
)

// hostileText are values no store can hold: NUL bytes and invalid UTF-8.
var hostileText = []string{"\x00", "ab\x00c", "\xff", "ab\xffc", "x\xed\xa0\x80"}

// adminTextCase is a request with one hostile text input and the message
// of its 422.
type adminTextCase struct {
	method, target, body, want string
}

// adminTextCases are, for every admin route, a request per text input
// (path value, query parameter, unknown parameter, parameter name, body
// field and body key) holding each hostile value; id is a key's id.
func adminTextCases(id int64) []adminTextCase {
	var out []adminTextCase
	for _, rt := range routes() {
		path := func(v string) string {
			out := rt.path
			for _, name := range pathNames(rt.path) {
				out = strings.ReplaceAll(out, "{"+name+"}", url.PathEscape(v))
			}
			return out
		}
		body := ""
		if rt.request != nil {
			body = "{}"
		}
		valid := path(fmt.Sprint(id))
		for _, v := range hostileText {
			problem := social.CheckText(v).Error()
			if names := pathNames(rt.path); len(names) > 0 {
				out = append(out, adminTextCase{rt.method, path(v), body, names[0] + " " + problem})
			}
			for _, q := range append(rt.query, queryParam{name: "unknown"}) {
				out = append(out, adminTextCase{rt.method, valid + "?" + q.name + "=" + url.QueryEscape(v), body, q.name + " " + problem})
			}
			out = append(out, adminTextCase{rt.method, valid + "?" + url.QueryEscape("a"+v) + "=1", body,
				fmt.Sprintf("query parameter name %q %v", "a"+v, social.CheckText("a"+v))})
			if rt.request == nil || !strings.Contains(v, "\x00") {
				continue // JSON reads invalid UTF-8 as U+FFFD
			}
			s, _ := json.Marshal(v)
			for _, f := range reflect.VisibleFields(rt.request) {
				if f.Anonymous {
					continue // its fields are the body's
				}
				field, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				out = append(out, adminTextCase{rt.method, valid, fmt.Sprintf(`{%q:%s}`, field, s), field + " " + problem})
			}
			k, _ := json.Marshal("a" + v)
			out = append(out, adminTextCase{rt.method, valid, fmt.Sprintf(`{%s:1}`, k),
				fmt.Sprintf("body field name %q %v", "a"+v, social.CheckText("a"+v))})
		}
	}
	return out
}

// TestAdminHostileText: every text input of every admin route holding a NUL
// byte or invalid UTF-8 is a 422 naming the input and the byte (as the
// document says), on both engines, and changes nothing; the service itself
// refuses such a key name or ledger endpoint (PostgreSQL failed them with
// SQLSTATE 22021).
func TestAdminHostileText(t *testing.T) {
	ctx := context.Background()
	for _, eng := range engines.All() {
		t.Run(eng.Name, func(t *testing.T) {
			st := eng.Open(t)
			svc := &Service{Store: st}
			_, k, err := svc.Create(ctx, "ops", 5_000_000, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			h, v := Handler(svc, token, nil), adminValidator(t)
			for _, c := range adminTextCases(k.ID) {
				r := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
				r.Header.Set("Authorization", "Bearer "+token)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				var got errorBody
				json.Unmarshal(w.Body.Bytes(), &got) //nolint:errcheck // checked below
				if w.Code != http.StatusUnprocessableEntity || got.Message != c.want {
					t.Errorf("%s %s %s: %d %s\nwant 422 %q", c.method, c.target, c.body, w.Code, strings.TrimSpace(w.Body.String()), c.want)
				}
				for _, m := range mismatches(v, httptest.NewRequest(c.method, c.target, nil), w) {
					t.Errorf("the OpenAPI document does not hold: %s", m)
				}
			}
			keys, err := svc.List(ctx)
			if err != nil || len(keys) != 1 || !reflect.DeepEqual(keys[0], k) {
				t.Errorf("keys changed: %+v, %v; want only %+v", keys, err, k)
			}
			for what, err := range map[string]error{
				"a name with a NUL":             third(svc.Create(ctx, "ab\x00c", 1, 0, "")),
				"a name with invalid UTF-8":     third(svc.Create(ctx, "ab\xffc", 1, 0, "")),
				"a ledger endpoint with a NUL":  second(svc.Ledger(ctx, social.LedgerFilter{KeyID: k.ID, Endpoint: "se\x00arch"})),
				"a usage endpoint with invalid": second(svc.Usage(ctx, social.UsageFilter{Endpoint: "\xff"})),
			} {
				var te *social.TextError
				if !errors.Is(err, social.ErrInvalid) || !errors.As(err, &te) {
					t.Errorf("%s: %v, want a TextError (ErrInvalid)", what, err)
				}
			}
		})
	}
}

// second and third are the error of a call.
func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }
