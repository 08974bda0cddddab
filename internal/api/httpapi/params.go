package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// args are a request's validated parameters.
type args struct {
	id    int64       // the path id, when the route has one
	id2   int64       // the second path id (social actions)
	name  string      // the path username without '@', a user path's text, or a space id
	after *social.Key // the decoded cursor; nil for the first page
	order social.Order
	query *search.Query
	ids   []int64        // tweets-by-ids, distinct, in request order
	names []string       // users-by-usernames, distinct (any case), in request order
	scope []byte         // names the results for cursors
	body  []byte         // the request body as read (POST routes)
	limit int            // page size
	key   *social.APIKey // the caller
	// research holds the research endpoints' own parameters.
	research researchArgs
	// queryText is the query as given (spaces collapsed).
	queryText string
	// plan is the caller's fault plan (the sandbox).
	plan fault.Plan
	// page is the number of the page that issued the cursor, when it
	// counts pages (0: the first page is asked for, or the cursor does not
	// count); cursorPages, when above 0, is the page from which on no
	// next_cursor is given (a Latest search under a plan's
	// latest_cursor_pages).
	page, cursorPages int
	// fields are a JSON object body's fields (bodyObject).
	fields map[string]json.RawMessage
	// monitorsPage is a page number (GET /monitors).
	monitorsPage int
}

// Body limits.
const (
	maxBodyBytes   = 1 << 20
	maxBatch       = 100
	maxScreenName  = 50 // generous: the network allows 15, imports keep older names
	maxQueryLength = 4096
)

// parse validates everything a route takes, in a fixed order: path
// parameter, type, query, cursor, body (as readBody read it, or why it
// could not). The first problem is the answer. In gateway mode cursors are
// upstream's: they are not decoded here but passed upstream verbatim.
func (rt *route) parse(r *http.Request, body []byte, bodyErr error, now time.Time, gateway bool) (*args, error) {
	a := &args{limit: rt.limit}
	scope := []string{rt.name}
	qs, err := queryValues(r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	if err := checkPath(r, rt.param, rt.param2); err != nil {
		return nil, err
	}
	value := r.PathValue(rt.param)
	if rt.inQuery {
		value = qs.Get(rt.param)
	}
	switch rt.param {
	case "":
	case paramUsername, paramUser:
		name := strings.TrimPrefix(value, "@")
		if name == "" || len(name) > maxScreenName || strings.ContainsAny(name, " /\t\r\n") {
			if rt.param == paramUser {
				return nil, invalid(paramUser, "must be a user id or a screen name")
			}
			return nil, invalid(paramUsername, "must be a screen name")
		}
		a.name = name
		if rt.param == paramUser {
			a.id, _ = parseID(name) // digits are an id first, then a name
		}
		scope = append(scope, strings.ToLower(name))
	case paramMonitorID:
		if !monitor.ValidID(value) {
			return nil, notFound(msgMonitorNotFound)
		}
		a.name = value
	case paramSpaceID:
		if !validSpaceID(value) {
			return nil, invalid(paramSpaceID, "must be 1 to 32 letters and digits")
		}
		a.name = value
	default:
		id, err := parseID(value)
		if err != nil {
			return nil, invalid(rt.param, err.Error())
		}
		a.id = id
		scope = append(scope, strconv.FormatInt(id, 10))
	}
	if rt.param2 != "" {
		id, err := parseID(r.PathValue(rt.param2))
		if err != nil {
			return nil, invalid(rt.param2, err.Error())
		}
		a.id2 = id
	}
	if rt.ordered {
		switch t := qs.Get("type"); {
		case t == "" || strings.EqualFold(t, "Latest"):
			a.order = social.Latest
		case strings.EqualFold(t, "Top"):
			a.order = social.Top
		default:
			return nil, invalid("type", "must be Latest or Top")
		}
		scope = append(scope, a.order.String())
	}
	if rt.query {
		text := strings.Join(strings.Fields(qs.Get("query")), " ")
		if rt.text {
			text = strings.TrimPrefix(text, "@")
		}
		if text == "" {
			return nil, invalid("query", "is required")
		}
		if len(text) > maxQueryLength {
			return nil, invalid("query", fmt.Sprintf("is longer than %d bytes", maxQueryLength))
		}
		if rt.text {
			a.name = text
		} else {
			q, err := parseQuery(text, now)
			if err != nil {
				return nil, invalid("query", queryProblem(err))
			}
			a.query, a.queryText = q, text
		}
		scope = append(scope, text)
	}
	a.scope = cursorScope(scope...)
	if rt.paged {
		switch c := qs.Get("cursor"); c {
		case "":
		case "null", "undefined":
			return nil, invalid("cursor", "is "+c+"; omit it (or send it empty) for the first page")
		default:
			if gateway {
				break
			}
			k, page, err := decodePageCursor(a.scope, c)
			if err != nil {
				return nil, invalid("cursor", "is not a cursor of this endpoint and query")
			}
			a.after, a.page = &k, page
		}
	}
	if rt.body != bodyNone {
		if err := a.parseBody(r, body, bodyErr, rt.body); err != nil {
			return nil, err
		}
	}
	if rt.params != nil {
		if err := rt.params(a, qs); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// queryValues parses a query string as url.ParseQuery does, except that a
// pair that cannot be decoded (a stray or bad % escape) is an error naming
// its parameter instead of a pair silently left out (a garbled cursor must
// not read as the first page), ';' is a plain character, and a name or
// value that no store can hold (social.CheckText) is an error naming it.
func queryValues(raw string) (url.Values, error) {
	v := url.Values{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			return nil, invalid("query string", fmt.Sprintf("parameter name %q is not valid percent-encoding", rawKey))
		}
		if err := social.CheckText(key); err != nil {
			return nil, invalid("query string", fmt.Sprintf("parameter name %q %v", key, err))
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return nil, invalid(key, "is not valid percent-encoding")
		}
		if err := checkText(key, value); err != nil {
			return nil, err
		}
		v[key] = append(v[key], value)
	}
	return v, nil
}

// checkText is the edge check of one text input: a NUL byte or invalid
// UTF-8 (social.CheckText) is a 422 naming param.
func checkText(param, value string) error {
	if err := social.CheckText(value); err != nil {
		return invalid(param, err.Error())
	}
	return nil
}

// checkPath checks the route's path values (text once their escapes are
// decoded), before any route reads them.
func checkPath(r *http.Request, params ...string) error {
	for _, p := range params {
		if p == "" {
			continue
		}
		if err := checkText(p, r.PathValue(p)); err != nil {
			return err
		}
	}
	return nil
}

// queryProblem says what is wrong with a query, without internals.
func queryProblem(err error) string {
	var se *search.Error
	if errors.As(err, &se) {
		return se.Error()
	}
	return "cannot be parsed"
}

// parseID reads a path id: decimal digits only, 1..2^63−1.
func parseID(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("is required")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errors.New("must be a decimal integer")
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, errors.New("must be between 1 and 9223372036854775807")
	}
	return id, nil
}

// validSpaceID reports whether s can be a space id: 1 to 32 ASCII letters
// and digits.
func validSpaceID(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// bodyKind names the JSON body a POST route takes.
type bodyKind int

const (
	bodyNone      bodyKind = iota
	bodyIDs                // {"ids": [...]}
	bodyUsernames          // {"usernames": [...]}
	bodyObject             // a JSON object whose fields the route reads
)

// Request bodies arrive within bodyGrace plus their length at bodyRate
// (bodyTime); one that comes slower is the client's doing (400).
const (
	bodyGrace = 5 * time.Second
	bodyRate  = 16 << 10 // bytes a second
)

// bodyTime is how long a body of n bytes may take to arrive (n < 0:
// unknown, as long as the longest body allowed).
func bodyTime(n int64) time.Duration {
	if n < 0 || n > maxBodyBytes {
		n = maxBodyBytes
	}
	return bodyGrace + time.Duration(n)*time.Second/bodyRate
}

// bodyDeadline is when a request's body must have arrived if its reading
// starts now: bodyTime of its length, or the server's ReadTimeout from now
// when that comes first.
func bodyDeadline(r *http.Request, now time.Time) time.Time {
	d := now.Add(bodyTime(r.ContentLength))
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
		if t := now.Add(srv.ReadTimeout); t.Before(d) {
			d = t
		}
	}
	return d
}

// jsonBody reports whether a request's body may be JSON: its Content-Type
// is application/json, or it has none. Another is 415 (parseBody).
func jsonBody(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// readBody reads a request body of at most maxBodyBytes: 413 beyond it,
// 400 for one that ended before its Content-Length or came too slowly.
func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge
		}
		// The body ended before its Content-Length, or came slower
		// than its deadline: the client's doing.
		return nil, badBody(err)
	}
	return data, nil
}

// parseBody checks a JSON body as readBody read it (or the error it met).
// A Content-Type other than application/json is 415; a missing
// Content-Type is accepted when the body parses as JSON.
func (a *args) parseBody(r *http.Request, data []byte, readErr error, kind bodyKind) error {
	if !jsonBody(r) {
		return errUnsupported
	}
	if readErr != nil {
		return readErr
	}
	a.body = data
	if err := checkBodyText(data); err != nil {
		return err
	}
	if kind == bodyObject {
		if err := strictUnmarshal(data, &a.fields); err != nil || a.fields == nil {
			return invalid("body", "must be a JSON object")
		}
		return nil
	}
	field := "ids"
	if kind == bodyUsernames {
		field = "usernames"
	}
	var body map[string]json.RawMessage
	if err := strictUnmarshal(data, &body); err != nil || body == nil {
		return invalid("body", "must be a JSON object")
	}
	raw, ok := body[field]
	if !ok || string(raw) == "null" {
		return invalid(field, "is required")
	}
	var entries []json.RawMessage
	if err := strictUnmarshal(raw, &entries); err != nil {
		return invalid(field, "must be an array")
	}
	if len(entries) < 1 || len(entries) > maxBatch {
		return invalid(field, fmt.Sprintf("must have 1 to %d entries, not %d", maxBatch, len(entries)))
	}
	var err error
	if kind == bodyIDs {
		a.ids, err = parseBatchIDs(entries)
	} else {
		a.names, err = parseBatchNames(entries)
	}
	return err
}

// checkBodyText refuses a body holding a string that no store can hold
// (social.CheckJSONText), naming the top-level field it sits in ("body"
// for a top-level key, or a body that is not an object).
func checkBodyText(data []byte) error {
	field, err := social.CheckJSONText(data)
	if err == nil {
		return nil
	}
	if field == "" {
		field = "body"
	}
	return invalid(field, err.Error())
}

// strictUnmarshal decodes exactly one JSON value, numbers kept as text.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// parseBatchIDs reads ids given as JSON numbers or strings, mixed; each
// once, in the order given.
func parseBatchIDs(entries []json.RawMessage) ([]int64, error) {
	ids := make([]int64, 0, len(entries))
	seen := make(map[int64]bool, len(entries))
	for i, e := range entries {
		var v any
		if err := strictUnmarshal(e, &v); err != nil {
			return nil, invalid("ids", fmt.Sprintf("entry %d is not JSON", i))
		}
		var text string
		switch x := v.(type) {
		case json.Number:
			text = x.String()
		case string:
			text = x
		default:
			return nil, invalid("ids", fmt.Sprintf("entry %d must be an id, as a number or a string", i))
		}
		id, err := parseID(text)
		if err != nil {
			return nil, invalid("ids", fmt.Sprintf("entry %d %s", i, err))
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// parseBatchNames reads screen names, '@' stripped; each once (any case),
// in the order given.
func parseBatchNames(entries []json.RawMessage) ([]string, error) {
	names := make([]string, 0, len(entries))
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		var name string
		if err := json.Unmarshal(e, &name); err != nil {
			return nil, invalid("usernames", fmt.Sprintf("entry %d must be a string", i))
		}
		name = strings.TrimPrefix(strings.TrimSpace(name), "@")
		if name == "" || len(name) > maxScreenName {
			return nil, invalid("usernames", fmt.Sprintf("entry %d must be a screen name", i))
		}
		if k := strings.ToLower(name); !seen[k] {
			seen[k] = true
			names = append(names, name)
		}
	}
	return names, nil
}
