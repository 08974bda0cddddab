package admin

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
)

// Handler is the admin HTTP API over svc, for its own listener (never
// the public one). Every request must carry `Authorization: Bearer
// <token>`; the token is compared in constant time and never logged.
func Handler(svc *Service, token string, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handler{svc: svc, digest: sha256.Sum256([]byte(token)), log: log, mux: http.NewServeMux()}
	for _, rt := range routes() {
		h.mux.HandleFunc(rt.method+" "+rt.path, func(w http.ResponseWriter, r *http.Request) {
			if problem := textProblem(r, rt); problem != "" {
				writeError(w, http.StatusUnprocessableEntity, problem)
				return
			}
			rt.handle(h, w, r)
		})
	}
	doc, err := json.Marshal(Document())
	if err != nil { // the document's types are fixed: only a broken build fails here
		panic("admin: encode the OpenAPI document: " + err.Error())
	}
	h.mux.HandleFunc("GET "+documentPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(append(doc, '\n')) //nolint:errcheck // the client went away
	})
	return h
}

type handler struct {
	svc    *Service
	digest [32]byte
	log    *slog.Logger
	mux    *http.ServeMux
}

// maxBody bounds an admin request body.
const maxBody = 64 << 10

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		h.log.Info("admin request", "method", r.Method, "path", r.URL.Path, "status", rec.code(),
			"duration", time.Since(start))
	}()
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], h.digest[:]) != 1 {
		rec.Header().Set("WWW-Authenticate", "Bearer")
		writeError(rec, http.StatusUnauthorized, "Admin token required")
		return
	}
	if _, pattern := h.mux.Handler(r); pattern == "" {
		writeError(rec, http.StatusNotFound, "Unknown endpoint")
		return
	}
	h.mux.ServeHTTP(rec, r)
}

// textProblem checks a request's text inputs, before its route reads
// them: its path values, query parameters (names and values) and JSON
// body (every string, at any depth). What no store can hold (a NUL byte,
// invalid UTF-8: social.CheckText) is named with the input; "" when all
// can be stored. The body read is put back for the route.
func textProblem(r *http.Request, rt route) string {
	for _, name := range pathNames(rt.path) {
		if err := social.CheckText(r.PathValue(name)); err != nil {
			return name + " " + err.Error()
		}
	}
	q, _ := url.ParseQuery(r.URL.RawQuery) // a pair that cannot be decoded is left out, as by r.URL.Query
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if err := social.CheckText(name); err != nil {
			return fmt.Sprintf("query parameter name %q %v", name, err)
		}
		for _, v := range q[name] {
			if err := social.CheckText(v); err != nil {
				return name + " " + err.Error()
			}
		}
	}
	if rt.request == nil || rt.body == "raw" {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, rt.limit()))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), r.Body))
	if err != nil {
		return "" // the route's decoding meets the failure
	}
	field, err := social.CheckJSONText(data)
	switch {
	case err == nil:
		return ""
	case field == "":
		field = "body"
	}
	return field + " " + err.Error()
}

// limit is the most a route reads of a request's body.
func (rt route) limit() int64 {
	if rt.maxBody > 0 {
		return rt.maxBody
	}
	return maxBody
}

// statusRecorder remembers the status of a response for the log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// account is a key as the admin API shows it: never its secret or digest.
type account struct {
	ID         int64       `json:"id"`
	Name       string      `json:"name"`
	Prefix     string      `json:"prefix"`
	BalanceUSD json.Number `json:"balance_usd"`
	RateLimit  int         `json:"rate_limit"` // requests per minute; 0: the server's default
	Fault      string      `json:"fault"`      // the sandbox's fault plan; "": none
	CreatedAt  time.Time   `json:"created_at"`
	RevokedAt  *time.Time  `json:"revoked_at"`
}

func accountOf(k social.APIKey) account {
	return account{ID: k.ID, Name: k.Name, Prefix: k.Prefix, BalanceUSD: usd(k.Balance), RateLimit: k.RateLimit,
		Fault: k.Fault, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt}
}

func usd(micros int64) json.Number { return json.Number(billing.FormatUSD(micros)) }

// withSecret is a key made or rotated: the secret is shown this once.
type withSecret struct {
	Key     string  `json:"key"`
	Account account `json:"account"`
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	keys, err := h.svc.List(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := keysBody{Keys: make([]account, 0, len(keys))}
	for _, k := range keys {
		out.Keys = append(out.Keys, accountOf(k))
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	var in createRequest
	if !h.decode(w, r, &in) {
		return
	}
	secret, k, err := h.svc.Create(r.Context(), in.Name, int64(in.CreditsUSD), in.RateLimit, in.Fault)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, withSecret{Key: secret, Account: accountOf(k)})
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	h.withID(w, r, func(id int64) (social.APIKey, error) { return h.svc.Get(r.Context(), id) })
}

func (h *handler) topUp(w http.ResponseWriter, r *http.Request) {
	var in topUpRequest
	if h.decode(w, r, &in) {
		h.withID(w, r, func(id int64) (social.APIKey, error) { return h.svc.TopUp(r.Context(), id, int64(in.CreditsUSD)) })
	}
}

func (h *handler) rateLimit(w http.ResponseWriter, r *http.Request) {
	var in rateLimitRequest
	if !h.decode(w, r, &in) {
		return
	}
	if in.RateLimit == nil {
		writeError(w, http.StatusUnprocessableEntity, "rate_limit is required")
		return
	}
	h.withID(w, r, func(id int64) (social.APIKey, error) { return h.svc.SetRateLimit(r.Context(), id, *in.RateLimit) })
}

func (h *handler) fault(w http.ResponseWriter, r *http.Request) {
	var in faultRequest
	if !h.decode(w, r, &in) {
		return
	}
	if in.Fault == nil {
		writeError(w, http.StatusUnprocessableEntity, "fault is required (\"\" or \"none\" turns faults off)")
		return
	}
	h.withID(w, r, func(id int64) (social.APIKey, error) { return h.svc.SetFault(r.Context(), id, *in.Fault) })
}

func (h *handler) revoke(w http.ResponseWriter, r *http.Request) {
	h.withID(w, r, func(id int64) (social.APIKey, error) { return h.svc.Revoke(r.Context(), id) })
}

func (h *handler) rotate(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	secret, k, err := h.svc.Rotate(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, withSecret{Key: secret, Account: accountOf(k)})
}

// entry is a ledger row as the admin API shows it.
type entry struct {
	ID              int64       `json:"id"`
	Kind            string      `json:"kind"`
	RequestID       string      `json:"request_id"`
	Endpoint        string      `json:"endpoint"`
	Items           int         `json:"items"`
	AmountUSD       json.Number `json:"amount_usd"`
	BalanceAfterUSD json.Number `json:"balance_after_usd"`
	CreatedAt       time.Time   `json:"created_at"`
}

func (h *handler) ledger(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	f := social.LedgerFilter{KeyID: id, Endpoint: q.Get("endpoint")}
	var err error
	if f.Since, f.Until, err = timeRange(q.Get("since"), q.Get("until")); err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	if c := q.Get("cursor"); c != "" {
		if f.AfterID, err = strconv.ParseInt(c, 10, 64); err != nil || f.AfterID < 0 {
			writeError(w, http.StatusUnprocessableEntity, "cursor must be a next_cursor of this API")
			return
		}
	}
	if l := q.Get("limit"); l != "" {
		if f.Limit, err = strconv.Atoi(l); err != nil || f.Limit < 1 {
			writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("limit must be 1 to %d", MaxLedgerPage))
			return
		}
	}
	page, err := h.svc.Ledger(r.Context(), f)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := ledgerPage{Entries: make([]entry, 0, len(page.Items))}
	for _, l := range page.Items {
		out.Entries = append(out.Entries, entry{ID: l.ID, Kind: l.Kind, RequestID: l.RequestID, Endpoint: l.Endpoint,
			Items: l.Items, AmountUSD: usd(l.Amount), BalanceAfterUSD: usd(l.BalanceAfter), CreatedAt: l.CreatedAt})
	}
	if page.Next != nil {
		c := strconv.FormatInt(page.Next.ID, 10)
		out.NextCursor = &c
	}
	writeJSON(w, http.StatusOK, out)
}

// usageRow is one key's spending on one endpoint in one UTC day.
type usageRow struct {
	KeyID     int64       `json:"key_id"`
	Endpoint  string      `json:"endpoint"`
	Day       string      `json:"day"` // YYYY-MM-DD, UTC
	Requests  int64       `json:"requests"`
	Items     int64       `json:"items"`
	AmountUSD json.Number `json:"amount_usd"`
}

func (h *handler) usage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := social.UsageFilter{Endpoint: q.Get("endpoint")}
	var err error
	if f.Since, f.Until, err = timeRange(q.Get("since"), q.Get("until")); err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	if k := q.Get("key_id"); k != "" {
		if f.KeyID, err = strconv.ParseInt(k, 10, 64); err != nil || f.KeyID < 1 {
			writeError(w, http.StatusUnprocessableEntity, "key_id must be a key's id")
			return
		}
	}
	rows, err := h.svc.Usage(r.Context(), f)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := usageBody{Usage: make([]usageRow, 0, len(rows))}
	for _, u := range rows {
		out.Usage = append(out.Usage, usageRow{KeyID: u.KeyID, Endpoint: u.Endpoint, Day: u.Day.Format(time.DateOnly),
			Requests: u.Requests, Items: u.Items, AmountUSD: usd(u.Amount)})
	}
	writeJSON(w, http.StatusOK, out)
}

// timeRange reads since and until, RFC 3339 times or YYYY-MM-DD (UTC
// midnight); either may be empty.
func timeRange(since, until string) (time.Time, time.Time, error) {
	var out [2]time.Time
	for i, v := range []string{since, until} {
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			t, err = time.Parse(time.DateOnly, v)
		}
		if err != nil {
			return out[0], out[1], fmt.Errorf("%s must be an RFC 3339 time or YYYY-MM-DD", [2]string{"since", "until"}[i])
		}
		out[i] = t
	}
	return out[0], out[1], nil
}

// withID answers with the account that do returns for the path's key id.
func (h *handler) withID(w http.ResponseWriter, r *http.Request, do func(id int64) (social.APIKey, error)) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	k, err := do(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, accountOf(k))
}

func pathID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		writeError(w, http.StatusUnprocessableEntity, "the key id must be a positive integer")
		return 0, false
	}
	return id, true
}

// decode reads a JSON body into v, answering 400 when it is not one.
func (h *handler) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ue *usdError
		if errors.As(err, &ue) {
			writeError(w, http.StatusUnprocessableEntity, ue.Error())
			return false
		}
		writeError(w, http.StatusBadRequest, "the body must be a JSON object of this endpoint: "+err.Error())
		return false
	}
	return true
}

// fail answers a service error: 404 for a missing key, 422 for a value
// refused, 409 for a conflict, else 500 with the cause in the log only.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, social.ErrNotFound):
		writeError(w, http.StatusNotFound, "Key not found")
	case errors.Is(err, social.ErrInvalid):
		writeError(w, http.StatusUnprocessableEntity, strings.TrimSuffix(err.Error(), ": "+social.ErrInvalid.Error()))
	case errors.Is(err, social.ErrConflict):
		writeError(w, http.StatusConflict, "Conflict, try again")
	default:
		h.log.Error("admin request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "Internal error")
	}
}

// usdAmount is a dollar amount given as a JSON number or string, read
// exactly into micro-USD.
type usdAmount int64

type usdError struct{ err error }

func (e *usdError) Error() string { return "credits_usd: " + e.err.Error() }

func (u *usdAmount) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := billing.ParseUSD(s)
	if err != nil {
		return &usdError{err}
	}
	*u = usdAmount(v)
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) //nolint:errcheck // the client went away
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{"error", msg})
}
