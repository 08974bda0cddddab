package textentity

import (
	"errors"
	"io/fs"
	"os"
	"reflect"
	"sort"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/roostapi/roost/internal/social"
)

// conformancePath is twitter-text's extraction conformance file, shared
// read-only beside the repository.
const conformancePath = "../../../shared/testdata/twitter-text/extract.yml"

type conformanceCase struct {
	Description string    `yaml:"description"`
	Text        string    `yaml:"text"`
	Expected    yaml.Node `yaml:"expected"`
}

type conformanceFile struct {
	Tests map[string][]conformanceCase `yaml:"tests"`
}

// indexedEntity is an expected entity with indices; one of the name
// fields is set, depending on the section.
type indexedEntity struct {
	ScreenName string `yaml:"screen_name"`
	ListSlug   string `yaml:"list_slug"`
	URL        string `yaml:"url"`
	Hashtag    string `yaml:"hashtag"`
	Cashtag    string `yaml:"cashtag"`
	Indices    []int  `yaml:"indices"`
}

// conformanceRunner checks one case of a section and returns what was
// expected and what was got, in comparable form.
type conformanceRunner func(t *testing.T, c conformanceCase) (want, got any)

// mapSlice applies f to each item; it returns an empty, non-nil slice for
// no items, as the decoded expectations are.
func mapSlice[T, U any](items []T, f func(T) U) []U {
	out := []U{}
	for _, it := range items {
		out = append(out, f(it))
	}
	return out
}

func decodeNames(t *testing.T, n *yaml.Node) []string {
	t.Helper()
	out := []string{}
	if err := n.Decode(&out); err != nil {
		t.Fatalf("decoding expected names: %v", err)
	}
	return out
}

func decodeIndexed(t *testing.T, n *yaml.Node, name func(indexedEntity) string) []indexedEntity {
	t.Helper()
	var raw []indexedEntity
	if err := n.Decode(&raw); err != nil {
		t.Fatalf("decoding expected entities: %v", err)
	}
	out := []indexedEntity{}
	for _, e := range raw {
		out = append(out, indexedEntity{URL: name(e), Indices: e.Indices})
	}
	return out
}

func indexed(name string, start, end int) indexedEntity {
	return indexedEntity{URL: name, Indices: []int{start, end}}
}

func mentionNames(text string) []string {
	return mapSlice(Mentions(text), func(m social.Mention) string { return m.ScreenName })
}

var conformanceRunners = map[string]conformanceRunner{
	"mentions": func(t *testing.T, c conformanceCase) (any, any) {
		return decodeNames(t, &c.Expected), mentionNames(c.Text)
	},
	"mentions_with_indices": func(t *testing.T, c conformanceCase) (any, any) {
		want := decodeIndexed(t, &c.Expected, func(e indexedEntity) string { return e.ScreenName })
		return want, mapSlice(Mentions(c.Text), func(m social.Mention) indexedEntity { return indexed(m.ScreenName, m.Start, m.End) })
	},
	"mentions_or_lists_with_indices": func(t *testing.T, c conformanceCase) (any, any) {
		want := decodeIndexed(t, &c.Expected, func(e indexedEntity) string { return e.ScreenName + "|" + e.ListSlug })
		return want, mapSlice(MentionsOrLists(c.Text), func(m MentionOrList) indexedEntity {
			return indexed(m.ScreenName+"|"+m.ListSlug, m.Start, m.End)
		})
	},
	"replies": func(t *testing.T, c conformanceCase) (any, any) {
		var want string
		if c.Expected.Kind != 0 && c.Expected.Tag != "!!null" {
			if err := c.Expected.Decode(&want); err != nil {
				t.Fatalf("decoding expected reply: %v", err)
			}
		}
		return want, ReplyScreenName(c.Text)
	},
	"urls":                          urlNamesRunner,
	"tco_urls_with_params":          urlNamesRunner,
	"urls_with_indices":             urlIndexedRunner,
	"urls_with_directional_markers": urlIndexedRunner,
	"hashtags":                      hashtagNamesRunner,
	"hashtags_from_astral":          hashtagNamesRunner,
	"hashtags_with_indices": func(t *testing.T, c conformanceCase) (any, any) {
		want := decodeIndexed(t, &c.Expected, func(e indexedEntity) string { return e.Hashtag })
		return want, mapSlice(Hashtags(c.Text), func(h social.Tag) indexedEntity { return indexed(h.Text, h.Start, h.End) })
	},
	"cashtags": func(t *testing.T, c conformanceCase) (any, any) {
		return decodeNames(t, &c.Expected), mapSlice(Cashtags(c.Text), func(h social.Tag) string { return h.Text })
	},
	"cashtags_with_indices": func(t *testing.T, c conformanceCase) (any, any) {
		want := decodeIndexed(t, &c.Expected, func(e indexedEntity) string { return e.Cashtag })
		return want, mapSlice(Cashtags(c.Text), func(h social.Tag) indexedEntity { return indexed(h.Text, h.Start, h.End) })
	},
}

func urlNamesRunner(t *testing.T, c conformanceCase) (any, any) {
	return decodeNames(t, &c.Expected), mapSlice(URLs(c.Text), func(u social.URL) string { return u.URL })
}

func urlIndexedRunner(t *testing.T, c conformanceCase) (any, any) {
	want := decodeIndexed(t, &c.Expected, func(e indexedEntity) string { return e.URL })
	return want, mapSlice(URLs(c.Text), func(u social.URL) indexedEntity { return indexed(u.URL, u.Start, u.End) })
}

func hashtagNamesRunner(t *testing.T, c conformanceCase) (any, any) {
	return decodeNames(t, &c.Expected), mapSlice(Hashtags(c.Text), func(h social.Tag) string { return h.Text })
}

// loadConformance reads the conformance file, skipping the test when it is
// absent outside CI.
func loadConformance(t *testing.T) conformanceFile {
	t.Helper()
	data, err := os.ReadFile(conformancePath)
	if errors.Is(err, fs.ErrNotExist) && os.Getenv("CI") != "true" {
		t.Skipf("twitter-text's conformance file is not at %s (shared test data beside the repository, not part of a clone); CI=true requires it", conformancePath)
	}
	if err != nil {
		t.Fatalf("reading twitter-text conformance file: %v", err)
	}
	var f conformanceFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("parsing twitter-text conformance file %s: %v", conformancePath, err)
	}
	if len(f.Tests) == 0 {
		t.Fatalf("twitter-text conformance file %s holds no tests", conformancePath)
	}
	return f
}

// TestConformance runs every case of twitter-text's extraction
// conformance file against the extractor that answers it.
func TestConformance(t *testing.T) {
	f := loadConformance(t)
	sections := make([]string, 0, len(f.Tests))
	for s := range f.Tests {
		sections = append(sections, s)
	}
	sort.Strings(sections)
	for _, section := range sections {
		cases := f.Tests[section]
		t.Run(section, func(t *testing.T) {
			run, ok := conformanceRunners[section]
			if !ok {
				t.Fatalf("section %q of %s has no runner: map it to an extractor", section, conformancePath)
			}
			passed := 0
			for _, c := range cases {
				ok := t.Run(c.Description, func(t *testing.T) {
					want, got := run(t, c)
					if !reflect.DeepEqual(want, got) {
						t.Errorf("text %q:\n got %v\nwant %v", c.Text, got, want)
					}
				})
				if ok {
					passed++
				}
			}
			t.Logf("%s: %d/%d cases pass", section, passed, len(cases))
		})
	}
}
