package monitor

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// Delivery headers.
const (
	HeaderSignature = "X-Roost-Signature" // "sha256=" + hex HMAC-SHA256 of the body under the key's secret
	HeaderEventID   = "X-Roost-Event-Id"  // the event's id, the same on every attempt
	HeaderEvent     = "X-Roost-Event"     // new_tweet, new_following, profile_update
	HeaderAttempt   = "X-Roost-Attempt"   // 1 for the first attempt
)

// KeepEvents is how long delivered and dead events are kept.
const KeepEvents = 7 * 24 * time.Hour

// EndpointEvent names a delivered event's charge in the ledger.
const EndpointEvent = "monitor_event"

// Sign is the signature header's value of body under secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify reports whether signature is body's under secret (in constant time).
func Verify(secret string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, body)), []byte(signature))
}

// EventID is the public id of an outbox event.
func EventID(id int64) string { return "evt_" + strconv.FormatInt(id, 10) }

// Body is the webhook body of an outgoing event (wire.Event: the hosted
// API's event, data and meta, and roost's event_id and, for profile
// updates, changes): the same bytes on every attempt.
func Body(o *Outgoing) ([]byte, error) {
	p := wire.Event{Event: o.Event, EventID: EventID(o.ID), Data: o.Data,
		Meta: wire.EventMeta{MonitorID: o.Monitor.ID, MonitorType: o.Monitor.Kind}}
	if o.Monitor.UserID > 0 {
		p.Meta.MonitoredIDStr = strconv.FormatInt(o.Monitor.UserID, 10)
	}
	if o.Monitor.Kind == SearchQuery {
		p.Meta.Query = o.Monitor.Query
	}
	if len(o.Extra) > 0 {
		var x struct {
			Changes json.RawMessage `json:"changes"`
		}
		if err := json.Unmarshal(o.Extra, &x); err != nil {
			return nil, fmt.Errorf("event %d: %w", o.ID, err)
		}
		p.Changes = x.Changes
	}
	return json.Marshal(p)
}

// Run dispatches changes, runs search monitors and delivers events until
// ctx ends, then waits for the deliveries in flight.
func (s *Service) Run(ctx context.Context) {
	slots := make(chan struct{}, s.opt.Workers)
	// wake starts the next round at once when a delivery ends, so that a
	// monitor's next event does not wait for the ticker.
	wake := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(s.opt.Poll)
	defer t.Stop()
	// searchAt wakes the loop when the next search monitor is due, so
	// that a run starts on time rather than at the next tick.
	searchAt := time.NewTimer(time.Hour)
	searchAt.Stop()
	defer searchAt.Stop()
	lastResume, lastPrune := time.Time{}, time.Time{}
	// poll: the change log and the search monitors are read every Poll
	// and when a search monitor is due, not at each wake.
	poll := true
	for {
		if poll {
			s.poll(ctx)
			s.armSearch(ctx, searchAt)
		}
		if now := s.opt.Now(); now.Sub(lastResume) >= time.Second {
			lastResume = now
			if n, err := s.Resume(ctx); err != nil && ctx.Err() == nil {
				s.loopLog.warn("monitors: resume", err)
			} else if n > 0 {
				s.log.Info("monitors: resumed after a top-up", "monitors", n)
			}
		}
		if now := s.opt.Now(); now.Sub(lastPrune) >= time.Minute {
			lastPrune = now
			if err := s.store.Prune(ctx, now.Add(-KeepEvents)); err != nil && ctx.Err() == nil {
				s.loopLog.warn("monitors: prune", err)
			}
		}
		s.startDue(ctx, slots, wake, &wg)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			poll = true
		case <-searchAt.C:
			poll = true
		case <-wake:
			poll = false
		}
	}
}

// poll turns the waiting changes into events and runs the search monitors
// that are due.
func (s *Service) poll(ctx context.Context) {
	for {
		n, err := s.DispatchOnce(ctx)
		if err != nil && ctx.Err() == nil {
			s.loopLog.warn("monitors: dispatch", err)
		}
		if n < dispatchBatch {
			break
		}
	}
	if _, err := s.SearchOnce(ctx); err != nil && ctx.Err() == nil {
		s.loopLog.warn("monitors: search", err)
	}
}

// armSearch sets timer to the next search monitor's run when that comes
// before the next poll (the poll finds the ones due later), and stops it
// when none does.
func (s *Service) armSearch(ctx context.Context, timer *time.Timer) {
	timer.Stop()
	next, ok, err := s.store.NextSearch(ctx, SearchQuery, SearchPumpFun)
	if err != nil {
		if ctx.Err() == nil {
			s.loopLog.warn("monitors: next search", err)
		}
		return
	}
	if wait := next.Sub(s.opt.Now()); ok && wait < s.opt.Poll {
		timer.Reset(max(wait, 0))
	}
}

// startDue starts a delivery per monitor whose next event is due, while
// workers are free.
func (s *Service) startDue(ctx context.Context, slots, wake chan struct{}, wg *sync.WaitGroup) {
	free := cap(slots) - len(slots)
	if free == 0 {
		return
	}
	now := s.opt.Now()
	due, err := s.store.Due(ctx, now, free)
	if err != nil {
		if ctx.Err() == nil {
			s.loopLog.warn("monitors: events due", err)
		}
		return
	}
	if len(due) == 0 {
		return
	}
	// The lease outlives the request: a crashed deliverer's monitor is
	// taken over once it ends. One transaction leases them all.
	got, err := s.store.LeaseAll(ctx, due, now, now.Add(s.lease()))
	if err != nil {
		if ctx.Err() == nil {
			s.loopLog.warn("monitors: lease", err)
		}
		return
	}
	for i := range due {
		o := due[i]
		if !got[i] {
			continue
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The monitor's next events follow on the same lease, up to
			// drainEvents, while each is delivered and the next is due.
			next := &o
			for n := 1; next != nil; n++ {
				next = s.deliver(context.WithoutCancel(ctx), next, n < drainEvents)
			}
			<-slots
			select {
			case wake <- struct{}{}:
			default:
			}
		}()
	}
}

// drainEvents is how many events of one monitor a delivery slot sends
// one after another on one lease (a search monitor's run or a burst of
// posts makes several at once); then the slot goes back to the loop, so
// that other monitors get their turn.
const drainEvents = 16

// lease is how long a deliverer holds a monitor: one request and its
// record. A crashed deliverer's monitors wait that long after a restart.
func (s *Service) lease() time.Duration { return s.opt.Timeout + 2*time.Second }

// DeliverDue delivers, one after another, the events due now (one per
// monitor); for tests and tools that step the service by hand.
func (s *Service) DeliverDue(ctx context.Context) (int, error) {
	now := s.opt.Now()
	due, err := s.store.Due(ctx, now, 1000)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range due {
		if got, err := s.store.Lease(ctx, &due[i], now, now.Add(s.lease())); err != nil || !got {
			continue
		}
		s.deliver(ctx, &due[i], false)
		n++
	}
	return n, nil
}

// deliver makes one attempt of an event and records its outcome: a 2xx
// answer delivers it (and charges its key one item), a 5xx, 408, 429,
// timeout or connection error retries it after a backoff, until
// MaxAttempts; any other answer, or the last failure, makes it dead. A key
// whose balance does not cover the event gets its monitors paused and the
// event waits. With keep, a delivered event's monitor stays leased for its
// next event if one is due, which deliver returns (nil otherwise).
func (s *Service) deliver(ctx context.Context, o *Outgoing, keep bool) *Outgoing {
	id := o.Monitor.ID
	if k, err := s.accounts.Key(ctx, o.Monitor.KeyID); err != nil || k.Balance < s.biller.PerItem() || k.RevokedAt != nil {
		s.pause(ctx, o, err)
		return nil
	}
	var until time.Time
	if keep {
		until = s.opt.Now().Add(s.lease())
	}
	switch why, err := s.deleted(ctx, o); {
	case err != nil:
		// Whether it was deleted is not known: the event waits for the
		// next round rather than risk sending a deleted post.
		s.log.Warn("monitors: look up what an event is about", "monitor", id, "event", o.ID, "err", err)
		if err := s.store.Release(ctx, id); err != nil {
			s.log.Warn("monitors: release", "monitor", id, "err", err)
		}
		return nil
	case why != "":
		s.metrics.deliveries.WithLabelValues("dropped").Inc()
		a := Attempt{MonitorID: id, EventID: o.ID, Attempt: o.Attempts + 1, Error: why, At: s.opt.Now()}
		following, err := s.store.RecordNext(ctx, a, EventDropped, a.At, a.At, until)
		if err != nil {
			s.log.Warn("monitors: record a dropped event", "monitor", id, "event", o.ID, "err", err)
		}
		return following
	}
	url := o.DefaultURL
	if o.Monitor.WebhookURL != nil {
		url = o.Monitor.WebhookURL
	}
	attempt := o.Attempts + 1
	a := Attempt{MonitorID: id, EventID: o.ID, Attempt: attempt, At: s.opt.Now()}
	var status int
	var err error
	if url == nil || *url == "" {
		err = errors.New("no webhook URL: set the key's (POST /user/webhook) or the monitor's")
	} else {
		status, err = s.post(ctx, *url, o, attempt)
	}
	a.Duration, a.Status = s.opt.Now().Sub(a.At), status
	s.metrics.seconds.Observe(a.Duration.Seconds())
	state, next := EventDelivered, a.At
	switch {
	case err == nil && status >= 200 && status < 300:
		s.charge(ctx, o)
	case err == nil && !retryable(status):
		a.Error, state = fmt.Sprintf("answered %d: not retried", status), EventDead
	default:
		if err != nil {
			a.Error = err.Error()
		} else {
			a.Error = fmt.Sprintf("answered %d", status)
		}
		state, next = EventPending, a.At.Add(s.backoff(attempt))
		if attempt >= s.opt.MaxAttempts {
			state = EventDead
		}
	}
	outcome := map[string]string{EventDelivered: "delivered", EventPending: "retry",
		EventDead: "dead"}[state]
	s.metrics.deliveries.WithLabelValues(outcome).Inc()
	following, err := s.store.RecordNext(ctx, a, state, next, s.opt.Now(), until)
	if err != nil {
		s.log.Warn("monitors: record delivery", "monitor", id, "event", o.ID, "err", err)
	}
	return following
}

// deleted says why an event is not to be sent ("" when it is): the post
// of a new_tweet, the followed account of a new_following or the
// monitored account of a profile_update was deleted since the event was
// made. A user_deleted event is always sent.
func (s *Service) deleted(ctx context.Context, o *Outgoing) (string, error) {
	var named struct {
		IDStr string `json:"id_str"`
	}
	if o.Event == EventNewTweet || o.Event == EventNewFollowing {
		if err := json.Unmarshal(o.Data, &named); err != nil {
			return "", fmt.Errorf("event %d: %w", o.ID, err)
		}
	}
	id, _ := strconv.ParseInt(named.IDStr, 10, 64)
	switch o.Event {
	case EventNewTweet:
		ps, err := s.data.Posts(ctx, []int64{id})
		if err != nil || len(ps) > 0 {
			return "", err
		}
		return "not sent: the post was deleted", nil
	case EventNewFollowing, EventProfileUpdate:
		if o.Event == EventProfileUpdate {
			id = o.Monitor.UserID
		}
		us, err := s.data.UsersByIDs(ctx, []int64{id})
		if err != nil || len(us) > 0 {
			return "", err
		}
		return "not sent: the account was deleted", nil
	}
	return "", nil
}

// post sends an event once and returns the receiver's status.
func (s *Service) post(ctx context.Context, url string, o *Outgoing, attempt int) (int, error) {
	body, err := Body(o)
	if err != nil {
		return 0, err
	}
	rctx, cancel := context.WithTimeout(ctx, s.opt.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "roost-webhook/1")
	h.Set(HeaderEventID, EventID(o.ID))
	h.Set(HeaderEvent, o.Event)
	h.Set(HeaderAttempt, strconv.Itoa(attempt))
	if o.Secret != "" {
		h.Set(HeaderSignature, Sign(o.Secret, body))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) //nolint:errcheck // the answer's body is not used
	resp.Body.Close()
	return resp.StatusCode, nil
}

// retryable reports whether an answer is worth another attempt.
func retryable(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}

// backoff is the wait after failure number n (from 1): Backoff doubled
// n-1 times, at most MaxBackoff, drawn between half and all of it.
func (s *Service) backoff(n int) time.Duration {
	d := s.opt.Backoff
	for i := 1; i < n && d < s.opt.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, s.opt.MaxBackoff)
	return d/2 + rand.N(d-d/2+1)
}

// charge takes one item for a delivered event, once per event (its id is
// the ledger row's request id). A key that cannot pay meanwhile gets its
// monitors paused: the event was delivered and is not charged.
func (s *Service) charge(ctx context.Context, o *Outgoing) {
	_, _, err := s.biller.Charge(ctx, social.Debit{KeyID: o.Monitor.KeyID, RequestID: EventID(o.ID),
		Endpoint: EndpointEvent, Items: 1})
	switch {
	case err == nil, errors.Is(err, social.ErrConflict):
	case errors.Is(err, social.ErrInsufficientBalance):
		s.pause(ctx, o, nil)
	default:
		s.log.Warn("monitors: charge event", "event", o.ID, "err", err)
	}
}

// pause pauses the key's monitors and releases this one.
func (s *Service) pause(ctx context.Context, o *Outgoing, cause error) {
	s.metrics.deliveries.WithLabelValues("paused").Inc()
	s.log.Info("monitors: paused: the key's balance does not cover an event", "key", o.Monitor.KeyID, "err", cause)
	if err := s.store.Pause(ctx, o.Monitor.KeyID); err != nil {
		s.log.Warn("monitors: pause", "key", o.Monitor.KeyID, "err", err)
	}
	if err := s.store.Release(ctx, o.Monitor.ID); err != nil {
		s.log.Warn("monitors: release", "monitor", o.Monitor.ID, "err", err)
	}
}

// Resume resumes the paused monitors of keys whose balance covers an event
// again (after a top-up) and reports how many.
func (s *Service) Resume(ctx context.Context) (int, error) {
	return s.store.ResumeFunded(ctx, s.biller.PerItem())
}
