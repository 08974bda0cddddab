package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// fastSeeds are records where JSON decoders are known to differ.
var fastSeeds = []string{
	`{"id_str":"1","ID_STR":"2","Id":3}`,                  // keys in other cases
	`{"id":1,"id":2}`,                                     // duplicate keys
	`{"full_text":"\ud83d\ude00 \u00e9 \ud800 x\u0000y"}`, // surrogates, a lone one, NUL
	`{"full_text":"caf\u00e9","text":"\/\b\f\n\r\t\"\\"}`, // every escape
	"{\"full_text\":\"\xff\xfe bad utf-8\"}",              // repaired to U+FFFD
	`{"id":1.0,"favorite_count":"1e3","retweet_count":null,"quote_count":""}`,
	`{"id":"12a"}`, `{"id":[1]}`, `{"truncated":"true"}`, `{"user":[]}`, `{"user":null}`,
	`{"entities":{"hashtags":[{"text":"a","indices":[1,2]}],"unknown":{"deep":[[{}]]}}}`,
	`{"id":1} trailing`, `{"id":1}{"id":2}`, `{"id":1,}`, `{"id":1`, ` {"id":1} `, `{"statuses":[{"id":1},{}]}`,
	`{"retweeted_status":{"retweeted_status":{"retweeted_status":{"id":5}}}}`,
	`{"full_text":1}`, `{"created_at":false}`, `{"extended_tweet":{"full_text":"x","entities":{}}}`,
	`{"id":99999999999999999999}`, `{"id":-1}`, `{"id":01}`, `{"id":1e}`, `{"id":.5}`,
}

// TestFastDecodeMatchesStd decodes the seeds and every record of the
// shared v1.1 file with both decoders (see compareDecoders).
func TestFastDecodeMatchesStd(t *testing.T) {
	for _, in := range fastSeeds {
		compareDecoders(t, []byte(in), false)
	}
	raw, err := os.ReadFile(shared(t, "v1/rtweet-statuses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		compareDecoders(t, l, true)
	}
	// API pages and their records, as harvests and gateway fills decode them.
	for _, name := range []string{"api_page.json", "api_users.json"} {
		page, err := os.ReadFile(fixture(name))
		if err != nil {
			t.Fatal(err)
		}
		compareDecoders(t, page, true)
		var probe apiProbe
		if err := json.Unmarshal(page, &probe); err != nil {
			t.Fatal(err)
		}
		for _, el := range append(append(probe.Tweets, probe.Users...), probe.Lists...) {
			compareDecoders(t, el, true)
		}
	}
}

// compareDecoders requires the fast path to accept what encoding/json
// accepts, with the same value, and to report encoding/json's errors, for
// each type the importers decode with it (v1.1 records, and the API's
// pages, posts, profiles and lists). exact says the input is real data;
// other inputs may differ where unmarshalFast says it is lenient: keys in
// other cases (an upper-case letter anywhere in the input) and malformed
// numbers (encoding/json refuses the input).
func compareDecoders(t *testing.T, in []byte, exact bool) {
	t.Helper()
	compareDecoder[v1Record](t, in, exact)
	compareDecoder[apiProbe](t, in, exact)
	compareDecoder[apiPost](t, in, exact)
	compareDecoder[v1User](t, in, exact)
	compareDecoder[apiList](t, in, exact)
	compareDecoder[[]json.RawMessage](t, in, exact)
}

func compareDecoder[T any](t *testing.T, in []byte, exact bool) {
	t.Helper()
	var std, fast T
	errStd := json.Unmarshal(in, &std)
	errFast := unmarshalFast(in, &fast)
	switch {
	case errStd == nil && errFast != nil:
		t.Fatalf("%T %.200q: encoding/json accepts it, the fast path says %v", std, in, errFast)
	case errStd != nil && errFast != nil && errStd.Error() != errFast.Error():
		t.Fatalf("%T %.200q: error %q, encoding/json's is %q", std, in, errFast, errStd)
	case errStd != nil && errFast == nil && exact:
		t.Fatalf("%T %.200q: encoding/json refuses it (%v), the fast path accepts it", std, in, errStd)
	}
	lenient := !exact && bytes.ContainsFunc(in, func(r rune) bool { return r >= 'A' && r <= 'Z' })
	if errStd == nil && !lenient && !reflect.DeepEqual(std, fast) {
		t.Fatalf("%T %.200q: decoded differently:\nstd  %+v\nfast %+v", std, in, std, fast)
	}
}

// FuzzFastDecode holds the fast path to encoding/json on any input.
func FuzzFastDecode(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	for _, name := range []string{"v1_array.json", "v1_search.json", "api_page.json", "api_users.json"} {
		if b, err := os.ReadFile(fixture(name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) { compareDecoders(t, b, false) })
}
