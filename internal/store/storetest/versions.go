package storetest

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// testVersions: every data write moves the content counter; every change
// of a key but a debit moves the keys counter; reads and debits move
// neither.
func testVersions(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	vs, ok := s.(social.Versioned)
	if !ok {
		t.Fatalf("%T keeps no versions", s)
	}
	last, err := vs.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, content, keys int64, do func() error) {
		t.Helper()
		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		v, err := vs.Versions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Content != last.Content+content || v.Keys != last.Keys+keys {
			t.Errorf("%s: versions %+v after %+v, want content +%d, keys +%d", what, v, last, content, keys)
		}
		last = v
	}
	var k social.APIKey
	step("CreateKey", 0, 1, func() (err error) { k, err = s.CreateKey(ctx, newKey("versions"), 1000); return })
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	step("Write", 1, 0, func() error {
		_, err := s.Write(ctx, &social.Batch{Users: []social.User{{ID: 1, ScreenName: "v1", CreatedAt: at}},
			Posts: []social.Post{{ID: 10, AuthorID: 1, CreatedAt: at, Text: "hello"}}})
		return err
	})
	step("Write of a follow", 1, 0, func() error {
		_, err := s.Write(ctx, &social.Batch{Users: []social.User{{ID: 2, ScreenName: "v2", CreatedAt: at}},
			Follows: []social.Follow{{FollowerID: 2, FolloweeID: 1, CreatedAt: at}}})
		return err
	})
	step("reads", 0, 0, func() error {
		_, err := s.UserPosts(ctx, 1, false, social.PageReq{Limit: 20})
		return err
	})
	step("Debit", 0, 0, func() error {
		_, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 10, RequestID: "v1", Endpoint: "user_tweets", Items: 1})
		return err
	})
	step("TopUp", 0, 1, func() error { _, err := s.TopUp(ctx, k.ID, 50); return err })
	step("SetRateLimit", 0, 1, func() error { _, err := s.SetRateLimit(ctx, k.ID, 9); return err })
	step("SetFault", 0, 1, func() error { _, err := s.SetFault(ctx, k.ID, "429=0.5"); return err })
	step("RotateKey", 0, 1, func() error {
		_, err := s.RotateKey(ctx, k.ID, sha256.Sum256([]byte("versions rotated")), "roost_vers")
		return err
	})
	step("Revoke", 0, 1, func() error { return s.Revoke(ctx, k.ID) })
}
