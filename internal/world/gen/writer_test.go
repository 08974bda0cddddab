package gen

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"hash"

	"github.com/roostapi/roost/internal/social"
)

// recorder is a social.Writer that hashes a canonical (JSON) encoding of
// every batch and, when keep is set, keeps the batches.
type recorder struct {
	keep    bool
	batches []*social.Batch
	h       hash.Hash
	enc     *json.Encoder
	failAt  int // fail the failAt-th write (1-based); 0 never
	writes  int
}

func newRecorder(keep bool) *recorder {
	h := sha256.New()
	return &recorder{keep: keep, h: h, enc: json.NewEncoder(h)}
}

var errInjected = errors.New("injected write failure")

func (r *recorder) Write(_ context.Context, b *social.Batch) (social.WriteStats, error) {
	r.writes++
	if r.failAt > 0 && r.writes == r.failAt {
		return social.WriteStats{}, errInjected
	}
	if err := r.enc.Encode(b); err != nil {
		return social.WriteStats{}, err
	}
	if r.keep {
		r.batches = append(r.batches, b)
	}
	return social.WriteStats{PostsInserted: len(b.Posts), UsersInserted: len(b.Users)}, nil
}

func (r *recorder) sum() [32]byte {
	var s [32]byte
	copy(s[:], r.h.Sum(nil))
	return s
}

// discard is a social.Writer that drops everything.
type discard struct{}

func (discard) Write(context.Context, *social.Batch) (social.WriteStats, error) {
	return social.WriteStats{}, nil
}
