package billing

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// KeyPrefix starts every API key, so that a secret scanner can find a
// leaked one.
const KeyPrefix = "roost_"

const (
	base62     = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	keyBytes   = 32 // 256 random bits
	keyBodyLen = 43 // base62 digits needed for 256 bits
	// DisplayPrefixLen is how many leading characters of a key are kept
	// for people to recognise it.
	DisplayPrefixLen = 10
)

// ErrUnauthenticated is a missing, malformed, unknown or revoked key.
var ErrUnauthenticated = errors.New("no valid API key provided")

// NewKey makes a new random API key: KeyPrefix followed by 43 base62 digits
// of 32 random bytes. It returns the key (shown once), its SHA-256 digest
// (stored) and its display prefix.
func NewKey() (key string, digest [32]byte, prefix string) {
	var b [keyBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand never fails on supported platforms (it panics
		// itself on failure since Go 1.24); keep the contract explicit.
		panic(fmt.Sprintf("billing: read random key: %v", err))
	}
	body := new(big.Int).SetBytes(b[:]).Text(62)
	key = KeyPrefix + strings.Repeat("0", keyBodyLen-len(body)) + body
	return key, Digest(key), key[:DisplayPrefixLen]
}

// Digest is the SHA-256 digest of a whole key, the only form stored.
func Digest(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// ValidKey reports whether key has the form NewKey produces.
func ValidKey(key string) bool {
	body, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok || len(body) != keyBodyLen {
		return false
	}
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62, body[i]) < 0 {
			return false
		}
	}
	return true
}

// BearerKey extracts the key from an Authorization header value of the
// form "Bearer <key>" (scheme case-insensitive). Anything else, including
// a key not of the form NewKey produces, is ErrUnauthenticated.
func BearerKey(header string) (string, error) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", ErrUnauthenticated
	}
	key := strings.TrimSpace(rest)
	if !ValidKey(key) {
		return "", ErrUnauthenticated
	}
	return key, nil
}

// Authenticate finds the live key named by an Authorization header value.
// A missing, malformed, unknown or revoked key is ErrUnauthenticated; any
// other error is a store failure.
func Authenticate(ctx context.Context, accounts social.Accounts, header string) (social.APIKey, error) {
	key, err := BearerKey(header)
	if err != nil {
		return social.APIKey{}, err
	}
	return LookupKey(ctx, accounts, key)
}

// LookupKey finds the live key of a secret BearerKey accepted: an unknown
// or revoked one is ErrUnauthenticated; any other error is a store failure.
func LookupKey(ctx context.Context, accounts social.Accounts, key string) (social.APIKey, error) {
	k, err := accounts.KeyByDigest(ctx, Digest(key))
	switch {
	case errors.Is(err, social.ErrNotFound):
		return social.APIKey{}, ErrUnauthenticated
	case err != nil:
		return social.APIKey{}, fmt.Errorf("look up API key %s: %w", key[:DisplayPrefixLen], err)
	case k.RevokedAt != nil:
		return social.APIKey{}, ErrUnauthenticated
	}
	return k, nil
}
