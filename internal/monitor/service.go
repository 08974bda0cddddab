// Package monitor runs the monitors of the hosted API's monitoring
// endpoints: it keeps them (per API key), turns the store's change log
// into events per monitor (the outbox), and delivers each event to a
// webhook, signed, at least once and in order per monitor, with retries,
// a dead-letter state, a delivery log and a charge per delivered event.
package monitor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// Monitor types, as the hosted API names them.
const (
	UserTweets    = "user_tweets"
	UserFollowing = "user_following"
	UserProfile   = "user_profile"
	SearchQuery   = "search_keyword"
	SearchPumpFun = "search_pump_fun"
)

// Defaults of Options.
const (
	DefaultWorkers     = 16
	DefaultTimeout     = 10 * time.Second
	DefaultMaxAttempts = 10
	DefaultBackoff     = time.Second
	DefaultMaxBackoff  = 10 * time.Minute
	DefaultPoll        = 100 * time.Millisecond
	// PageSize is how many monitors GET /monitors lists per page.
	PageSize = 50
	// ShownAttempts is how many delivery attempts a monitor's details show.
	ShownAttempts = 20
	// MaxRefresh bounds a search monitor's refresh frequency, in seconds.
	MaxRefresh = 3600
)

// Options tune the service; the zero value is ready to use (private
// webhook targets refused).
type Options struct {
	// AllowPrivate lets webhooks reach loopback, private and link-local
	// addresses (a local twin); a shared deployment turns it off.
	AllowPrivate bool
	// Price is micro-USD per delivered event; 0: billing.DefaultPrice.
	Price int64
	// Workers is how many deliveries run at once (DefaultWorkers).
	Workers int
	// Timeout bounds one delivery request (DefaultTimeout).
	Timeout time.Duration
	// MaxAttempts is how many times an event is tried before it is dead
	// (DefaultMaxAttempts).
	MaxAttempts int
	// Backoff is the wait after a first failure; it doubles per failure up
	// to MaxBackoff, each wait drawn between half and all of it (jitter).
	Backoff, MaxBackoff time.Duration
	// Poll is how often the change log and the outbox are read (DefaultPoll).
	Poll time.Duration
	// Registry receives the delivery metrics; nil: none registered.
	Registry *prometheus.Registry
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Renderer writes events' data as the API writes a post's and a user's
// details.
type Renderer interface {
	// Posts renders the posts found among ids, by id.
	Posts(ctx context.Context, ids []int64) (map[int64][]byte, error)
	// User renders a user's profile.
	User(u *social.User) []byte
}

// Service keeps and runs monitors.
type Service struct {
	store    Store
	data     social.Reader
	biller   billing.Biller
	accounts social.Accounts
	render   Renderer
	opt      Options
	log      *slog.Logger
	loopLog  *quietLog // the loop's warnings (quiet.go)
	client   *http.Client
	metrics  *metrics
}

// New returns the service over a store's monitors, its data and accounts.
func New(store Store, data social.Reader, accounts social.Accounts, render Renderer, opt Options,
	log *slog.Logger) *Service {
	if opt.Workers <= 0 {
		opt.Workers = DefaultWorkers
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = DefaultMaxAttempts
	}
	if opt.Backoff <= 0 {
		opt.Backoff = DefaultBackoff
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = DefaultMaxBackoff
	}
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, data: data, accounts: accounts, render: render, opt: opt, log: log,
		loopLog: newQuietLog(log, opt.Now),
		biller:  billing.Biller{Accounts: accounts, Price: opt.Price}, client: newClient(opt),
		metrics: newMetrics(opt.Registry)}
}

// Invalid is a request the service refuses: Param names what is wrong.
type Invalid struct {
	Param, Problem string
}

func (e *Invalid) Error() string { return e.Param + " " + e.Problem }

// Target names the user a user monitor watches: by id, else by name.
type Target struct {
	UserID     int64
	ScreenName string
}

// CreateUser makes a user monitor (UserTweets, UserFollowing or
// UserProfile) of the key for the target user, which must exist. A screen
// name that no store can hold (social.CheckText) is Invalid.
func (s *Service) CreateUser(ctx context.Context, keyID int64, kind string, t Target, webhook *string) (Monitor, error) {
	if err := s.checkWebhook(ctx, "webhook_url", webhook); err != nil {
		return Monitor{}, err
	}
	var u social.User
	var err error
	switch {
	case t.UserID > 0:
		u, err = s.data.User(ctx, t.UserID)
	case t.ScreenName != "":
		if err := social.CheckText(t.ScreenName); err != nil {
			return Monitor{}, &Invalid{"user_screen_name", err.Error()}
		}
		u, err = s.data.UserByScreenName(ctx, t.ScreenName)
	default:
		return Monitor{}, &Invalid{"user_id", "or user_screen_name is required"}
	}
	if errors.Is(err, social.ErrNotFound) || (err == nil && u.Stub) {
		if t.UserID > 0 {
			return Monitor{}, &Invalid{"user_id", "is not a known user"}
		}
		return Monitor{}, &Invalid{"user_screen_name", "is not a known user"}
	}
	if err != nil {
		return Monitor{}, fmt.Errorf("monitor target: %w", err)
	}
	if kind == UserTweets && u.Protected {
		return Monitor{}, &Invalid{"user_id", "is a protected user"}
	}
	params, _ := json.Marshal(map[string]string{"user_screen_name": u.ScreenName, "user_name": u.Name,
		"user_id_str": strconv.FormatInt(u.ID, 10)})
	m := s.newMonitor(keyID, kind, webhook, params)
	m.UserID = u.ID
	if kind == UserProfile {
		m.Snapshot = snapshotOf(&u)
	}
	return m, s.create(ctx, m)
}

// CreateSearch makes a search monitor: every refresh seconds (1 to
// MaxRefresh) the query runs over the posts newer than the last run. A
// query that search.Parse refuses (a NUL byte or invalid UTF-8 included)
// is Invalid.
func (s *Service) CreateSearch(ctx context.Context, keyID int64, query string, refresh int, webhook *string) (Monitor, error) {
	if query == "" {
		return Monitor{}, &Invalid{"query", "is required"}
	}
	if _, err := search.Parse(query, s.opt.Now()); err != nil {
		return Monitor{}, &Invalid{"query", "is not a valid search: " + err.Error()}
	}
	if refresh < 1 || refresh > MaxRefresh {
		return Monitor{}, &Invalid{"refresh_frequency", fmt.Sprintf("must be 1 to %d seconds", MaxRefresh)}
	}
	if err := s.checkWebhook(ctx, "webhook_url", webhook); err != nil {
		return Monitor{}, err
	}
	params, _ := json.Marshal(map[string]string{"query": query})
	m := s.newMonitor(keyID, SearchQuery, webhook, params)
	m.Query, m.Refresh = query, refresh
	return m, s.startSearch(ctx, &m)
}

// pumpFunQuery is what the pump.fun monitor searches: posts linking to
// pump.fun (authors with at least pumpFunFollowers followers, not
// shadow-banned, are kept).
const (
	pumpFunQuery     = "url:pump.fun"
	pumpFunFollowers = 1000
	pumpFunRefresh   = 1
)

// CreatePumpFun makes the pump.fun monitor: new posts linking to a pump.fun
// page by authors with at least 1000 followers, not shadow-banned.
func (s *Service) CreatePumpFun(ctx context.Context, keyID int64, webhook *string) (Monitor, error) {
	if err := s.checkWebhook(ctx, "webhook_url", webhook); err != nil {
		return Monitor{}, err
	}
	m := s.newMonitor(keyID, SearchPumpFun, webhook, []byte("{}"))
	m.Query, m.Refresh = pumpFunQuery, pumpFunRefresh
	return m, s.startSearch(ctx, &m)
}

// startSearch stores a search monitor that looks at posts after the
// newest stored one.
func (s *Service) startSearch(ctx context.Context, m *Monitor) error {
	top, err := s.store.MaxPostID(ctx)
	if err != nil {
		return err
	}
	m.Watermark, m.NextRunAt = top, m.CreatedAt.Add(time.Duration(m.Refresh)*time.Second)
	return s.create(ctx, *m)
}

func (s *Service) newMonitor(keyID int64, kind string, webhook *string, params []byte) Monitor {
	now := s.opt.Now()
	return Monitor{ID: newID(now), KeyID: keyID, Kind: kind, Params: params, WebhookURL: webhook,
		State: MonitorActive, CreatedAt: now.Truncate(time.Microsecond)}
}

// create stores m and gives its key a signing secret if it has none.
func (s *Service) create(ctx context.Context, m Monitor) error {
	if _, err := s.store.Secret(ctx, m.KeyID, newSecret()); err != nil {
		return err
	}
	return s.store.Create(ctx, m)
}

// Get returns the key's monitor (another key's: social.ErrNotFound).
func (s *Service) Get(ctx context.Context, keyID int64, id string) (Monitor, error) {
	return s.store.Get(ctx, keyID, id)
}

// List returns page (from 1) of the key's monitors, the total and the
// number of pages.
func (s *Service) List(ctx context.Context, keyID int64, page int) ([]Monitor, int, int, error) {
	if page < 1 {
		page = 1
	}
	offset := int(min(int64(page-1)*PageSize, math.MaxInt32))
	ms, total, err := s.store.List(ctx, keyID, offset, PageSize)
	if err != nil {
		return nil, 0, 0, err
	}
	return ms, total, max(1, (total+PageSize-1)/PageSize), nil
}

// SetWebhook sets or (nil) removes the monitor's own webhook.
func (s *Service) SetWebhook(ctx context.Context, keyID int64, id string, url *string) (Monitor, error) {
	if err := s.checkWebhook(ctx, "webhook_url", url); err != nil {
		return Monitor{}, err
	}
	return s.store.SetWebhook(ctx, keyID, id, url)
}

// Delete removes the key's monitor, its pending events and its log.
func (s *Service) Delete(ctx context.Context, keyID int64, id string) error {
	return s.store.Delete(ctx, keyID, id)
}

// SetDefaultWebhook sets or (nil) removes the key's default webhook and
// returns the key's signing secret.
func (s *Service) SetDefaultWebhook(ctx context.Context, keyID int64, url *string) (string, error) {
	if err := s.checkWebhook(ctx, "url", url); err != nil {
		return "", err
	}
	w, err := s.store.SetDefaultWebhook(ctx, keyID, url, newSecret())
	return w.Secret, err
}

// Details are what GET /monitors/{id} adds to a monitor: its events by
// state and its last delivery attempts, newest first.
type Details struct {
	Events   map[string]int64
	Attempts []Attempt
}

// Details returns the monitor's details (the caller has found it).
func (s *Service) Details(ctx context.Context, id string) (Details, error) {
	ev, err := s.store.EventCounts(ctx, id)
	if err != nil {
		return Details{}, err
	}
	at, err := s.store.Attempts(ctx, id, ShownAttempts)
	if err != nil {
		return Details{}, err
	}
	return Details{Events: ev, Attempts: at}, nil
}

// newSecret is a fresh signing secret.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails
	return "whsec_" + hex.EncodeToString(b)
}

// crockford is the alphabet of monitor ids.
const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// newID is a monitor id: 26 characters, a 48-bit millisecond time then
// 80 random bits, in lower-case Crockford base 32 (sorted by creation).
func newID(now time.Time) string {
	var b [16]byte
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	rand.Read(b[6:]) //nolint:errcheck // crypto/rand.Read never fails
	out := make([]byte, 26)
	// 128 bits as 26 digits of 5 bits, the first holding the top 3.
	var hi, lo uint64
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(b[i])
		lo = lo<<8 | uint64(b[8+i])
	}
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out)
}

// ValidID reports whether id has the form of a monitor id.
func ValidID(id string) bool {
	if len(id) != 26 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
