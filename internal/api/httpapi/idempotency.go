package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// Idempotent retries (Stripe's convention): a paid response is kept for
// social.IdempotencyWindow under the Idempotency-Key its request carried,
// in the transaction of its debit; a request of the same key with the
// same Idempotency-Key is answered with the kept body and charged nothing.
// Responses that were not charged (errors, empty pages, free endpoints)
// are not kept: repeating them costs nothing anyway.
const (
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotent-Replayed"
	maxIdempotencyKey    = 255
)

// idempotency reads the request's Idempotency-Key: nil without one, else
// the response to keep, still without its body. The fingerprint binds the
// key to the request: method, path, query and body.
func idempotency(r *http.Request, a *args, keyID int64, now time.Time) (*social.StoredResponse, error) {
	k := r.Header.Get(headerIdempotencyKey)
	if k == "" {
		return nil, nil
	}
	if !validIdempotencyKey(k) {
		return nil, invalid(headerIdempotencyKey, fmt.Sprintf("must be 1 to %d visible ASCII characters", maxIdempotencyKey))
	}
	h := sha256.New()
	for _, part := range []string{r.Method, r.URL.Path, r.URL.RawQuery} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(a.body)
	return &social.StoredResponse{KeyID: keyID, Key: k, Fingerprint: hex.EncodeToString(h.Sum(nil)), CreatedAt: now}, nil
}

func validIdempotencyKey(k string) bool {
	if len(k) > maxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] > '~' {
			return false
		}
	}
	return true
}

// replay answers a request with the response kept under its
// Idempotency-Key, if there is one younger than the window. A key kept
// for another request is 422. A streamed answer's record of the same
// request is not a response: the stream goes on from it (stream.keep).
func (s *server) replay(ctx context.Context, w http.ResponseWriter, idem *social.StoredResponse) (bool, error) {
	kept, err := s.store.Replay(ctx, idem.KeyID, idem.Key, idem.CreatedAt.Add(-social.IdempotencyWindow))
	if errors.Is(err, social.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("idempotency key of key %d: %w", idem.KeyID, err)
	}
	if kept.Fingerprint != idem.Fingerprint {
		return false, errReused()
	}
	if kept.Stream {
		return false, nil
	}
	w.Header().Set(headerReplayed, "true")
	setCharged(w.Header(), 0, 0)
	writeBody(w, http.StatusOK, kept.Body)
	return true, nil
}

// errReused answers a request whose Idempotency-Key holds another
// request's answer.
func errReused() error {
	return &apiError{status: http.StatusUnprocessableEntity, message: msgReused,
		errors: map[string][]string{headerIdempotencyKey: {"was sent with another method, path, query or body within 24 hours"}}}
}
