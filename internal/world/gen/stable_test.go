package gen

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// legacyRecorder hashes what gen wrote before it made likes, spaces and
// extended bios: every batch with those three left out, empty batches
// skipped.
type legacyRecorder struct {
	enc *json.Encoder
	h   hash.Hash
}

func newLegacyRecorder() *legacyRecorder {
	h := sha256.New()
	return &legacyRecorder{enc: json.NewEncoder(h), h: h}
}

func (r *legacyRecorder) Write(_ context.Context, b *social.Batch) (social.WriteStats, error) {
	c := *b
	c.Likes, c.Spaces = nil, nil
	if len(c.Users) > 0 {
		c.Users = append([]social.User(nil), c.Users...)
		for i := range c.Users {
			c.Users[i].ExtendedBio = ""
		}
	}
	if c.Len() == 0 {
		return social.WriteStats{}, nil
	}
	return social.WriteStats{}, r.enc.Encode(&c)
}

// TestEarlierValuesUnchanged pins the values gen made before it made
// likes, spaces and extended bios, for the networks other tests and the
// API's golden files read: the new values come from RNG streams of their
// own and leave every earlier value byte for byte as it was.
func TestEarlierValuesUnchanged(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{DefaultConfig(), "ddb349a86f6f514d5f36f206ab81b76ad19709591a185ff4f7bea1d347938f4f"},
		{Config{Seed: 42, Users: 300, Posts: 20000}, "682beaa17f18556353484b92d506a870a5d4a173fc0b2a0c981be4ab69103c7f"},
		{Config{Seed: 7, Users: 120, Posts: 2500, BatchSize: 700}, "43d50dfd06f5aab67d7f77f3b500eb737c99c528f42fb81c2cf9208c12468b6d"},
		{Config{Seed: 1, Users: 3, Posts: 50, BatchSize: 7}, "257171f612a8e55156c8bcff2938706314d60b77a8fd8acea2223b389b3723b5"},
	} {
		rec := newLegacyRecorder()
		if _, err := Generate(context.Background(), rec, c.cfg, nil); err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(rec.h.Sum(nil)); got != c.want {
			t.Errorf("%+v: earlier values hash to %s, want %s", c.cfg, got, c.want)
		}
	}
}
