package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	validator "github.com/pb33f/libopenapi-validator"

	"github.com/roostapi/roost/internal/api/openapi/openapitest"
)

var (
	validatorOnce sync.Once
	validatorOf   validator.Validator
	validatorErr  error
)

// adminValidator validates the document the admin listener serves
// (against the OpenAPI 3.1 schema) and returns a validator of answers.
func adminValidator(t testing.TB) validator.Validator {
	t.Helper()
	validatorOnce.Do(func() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, documentPath, nil)
		r.Header.Set("Authorization", "Bearer "+token)
		Handler(&Service{}, token, nil).ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			validatorErr = fmt.Errorf("GET %s: %d", documentPath, w.Code)
			return
		}
		validatorOf, validatorErr = openapitest.NewValidator(w.Body.Bytes())
	})
	if validatorErr != nil {
		t.Fatal(validatorErr)
	}
	return validatorOf
}

// mismatches are what the validator finds wrong with one answer.
func mismatches(v validator.Validator, req *http.Request, w *httptest.ResponseRecorder) []string {
	return openapitest.Mismatches(v, req, w.Code, w.Header(), w.Body.Bytes())
}

// TestAdminDocument: the admin listener's document is valid OpenAPI 3.1,
// holds every admin route with its method, and catches an answer that
// does not fit it.
func TestAdminDocument(t *testing.T) {
	v := adminValidator(t)
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, documentPath, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	Handler(&Service{}, token, nil).ServeHTTP(w, r)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, rt := range routes() {
		if doc.Paths[rt.path][strings.ToLower(rt.method)] == nil {
			t.Errorf("%s %s is not in the document", rt.method, rt.path)
		}
	}
	if n := len(doc.Paths); n != 24 {
		t.Errorf("%d paths in the document; want the 9 paths of the key routes, the 11 of the world routes, the 3 of the "+
			"snapshots and the document's own", n)
	}
	// Answers that break it: a balance as an object, an undocumented
	// status, an error without its message.
	bad := []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", "/admin/keys/1", 200, `{"id":1,"name":"a","prefix":"p","balance_usd":{},"rate_limit":0,"created_at":"2026-01-01T00:00:00Z","revoked_at":null}`},
		{"GET", "/admin/keys", 418, `{"status":"error","message":"teapot"}`},
		{"GET", "/admin/usage", 422, `{"status":"error"}`},
	}
	for _, c := range bad {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", "application/json; charset=utf-8")
		rec.WriteHeader(c.code)
		rec.WriteString(c.body)
		if len(mismatches(v, httptest.NewRequest(c.method, c.path, nil), rec)) == 0 {
			t.Errorf("%s %s → %d %s passed the check", c.method, c.path, c.code, c.body)
		}
	}
}
