package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// Format names, as --format takes them.
const (
	FormatV1      = "v1"      // API v1.1 statuses: JSONL, arrays, search envelopes
	FormatV2      = "v2"      // API v2 pages (twarc2)
	FormatGraphQL = "graphql" // web GraphQL responses
	FormatArchive = "archive" // personal data export (tweets.js, zip)
	FormatAPI     = "api"     // roost's own / the hosted API's responses
)

// Formats lists the format names in the order they are documented.
func Formats() []string {
	return []string{FormatV1, FormatV2, FormatGraphQL, FormatArchive, FormatAPI}
}

// peekSize is how much of an input the detector looks at.
const peekSize = 256 << 10

var ytdPrefix = regexp.MustCompile(`^window\.YTD\.([A-Za-z0-9_]+)\.part\d+\s*=`)

// Detect decides the format of an input from its first bytes (already
// decompressed). It reads the keys of the first JSON value (or, for an
// array, of its first element) even if the peek cuts the value short.
func Detect(peek []byte) (string, error) {
	p := bytes.TrimLeft(peek, " \t\r\n\ufeff")
	p = bytes.TrimPrefix(p, []byte("\ufeff"))
	if ytdPrefix.Match(p) {
		return FormatArchive, nil
	}
	if len(p) == 0 {
		return "", fmt.Errorf("empty input")
	}
	if p[0] != '{' && p[0] != '[' {
		return "", fmt.Errorf("not JSON or a data export: starts with %.12q", p)
	}
	sh := shallowKeys(p)
	keys := sh.keys
	has := func(ks ...string) bool {
		for _, k := range ks {
			if _, ok := keys[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case sh.inArray && has("tweet", "noteTweet", "account", "profile", "like", "follower", "following"):
		return FormatArchive, nil
	case has("tweet_created_at"):
		return FormatAPI, nil
	case has("next_cursor") || (!sh.inArray && len(keys) <= 3 && has("tweets", "users", "lists")):
		return FormatAPI, nil
	case has("statuses", "full_text", "retweeted_status", "in_reply_to_status_id_str"):
		return FormatV1, nil
	case has("includes", "__twarc", "author_id", "public_metrics", "edit_history_tweet_ids"):
		return FormatV2, nil
	case has("data"):
		switch sh.dataKind {
		case '[':
			return FormatV2, nil
		case '{':
			if sh.dataKeys["id"] && sh.dataKeys["text"] {
				return FormatV2, nil
			}
			return FormatGraphQL, nil
		}
	case has("id_str", "created_at", "user") && has("text"):
		return FormatV1, nil
	}
	return "", fmt.Errorf("unrecognised JSON: no known keys among the first value's")
}

// shape is what the detector learns of the first JSON value.
type shape struct {
	inArray  bool
	keys     map[string]byte // member → first byte of its value
	dataKind byte            // first byte of the "data" member
	dataKeys map[string]bool
}

// shallowKeys reads the members of the first object (of the first array
// element if the input is an array), tolerating a cut-off end.
func shallowKeys(p []byte) shape {
	sh := shape{keys: map[string]byte{}, dataKeys: map[string]bool{}}
	dec := json.NewDecoder(bytes.NewReader(p))
	tok, err := dec.Token()
	if err != nil {
		return sh
	}
	if tok == json.Delim('[') {
		sh.inArray = true
		if tok, err = dec.Token(); err != nil || tok != json.Delim('{') {
			return sh
		}
	}
	if tok != json.Delim('{') {
		return sh
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return sh
		}
		key, _ := k.(string)
		off := int(dec.InputOffset())
		kind := firstByteAfter(p, off)
		sh.keys[key] = kind
		if key == "data" {
			sh.dataKind = kind
			if kind == '{' {
				readKeys(dec, sh.dataKeys)
				continue
			}
		}
		if err := skipValue(dec); err != nil {
			return sh
		}
	}
	return sh
}

// firstByteAfter returns the first byte after a key's colon.
func firstByteAfter(p []byte, off int) byte {
	for i := off; i < len(p); i++ {
		switch p[i] {
		case ' ', '\t', '\r', '\n', ':':
			continue
		}
		return p[i]
	}
	return 0
}

// readKeys collects an object's keys, consuming it.
func readKeys(dec *json.Decoder, into map[string]bool) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return
		}
		if s, ok := k.(string); ok {
			into[s] = true
		}
		if skipValue(dec) != nil {
			return
		}
	}
	_, _ = dec.Token()
}

// skipValue consumes one value token by token (no allocation of the
// value), so a huge first member costs no memory.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// validFormat checks a --format value.
func validFormat(f string) error {
	if f == "" {
		return nil
	}
	for _, k := range Formats() {
		if k == f {
			return nil
		}
	}
	return fmt.Errorf("unknown format %q (want one of %v)", f, Formats())
}
