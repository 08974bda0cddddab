package searchtest

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// The vector file: one query per line, tab-separated from the number of
// posts it matches on Network (Latest, reposts as the query says), an
// FNV-1a digest of their ids in Latest order, and the ids themselves when
// there are at most vectorIDs of them. Blank lines, "#" alone and lines
// starting with "# " are comments (a query may start with '#': a hashtag). The file is search/testdata/search_vectors.txt.
const (
	vectorFile = "search_vectors.txt"
	vectorIDs  = 40
	// updateEnv names the variable that rewrites the file from Eval.
	updateEnv = "ROOST_UPDATE_SEARCH_VECTORS"
)

// vectorPath locates the vector file from this source file, so that any
// package's test finds it whatever its directory.
func vectorPath() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("searchtest: cannot locate the vector file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "search", "testdata", vectorFile), nil
}

// vector is one line of the file: a comment (query "" and the line in
// comment) or a query with its recorded answer.
type vector struct {
	comment string
	query   string
	count   int
	digest  string
	ids     string
}

func runVectors(ctx context.Context, t *testing.T, s social.Store, m *model) {
	path, err := vectorPath()
	if err != nil {
		t.Fatal(err)
	}
	vs, err := readVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	update := os.Getenv(updateEnv) == "1"
	for i := range vs {
		v := &vs[i]
		if v.query == "" {
			continue
		}
		q, err := search.Parse(v.query, Now)
		if err != nil {
			t.Errorf("vector %q: %v", v.query, err)
			continue
		}
		want := m.match(q, social.Latest)
		got := vectorOf(v.query, want)
		if update {
			*v = got
		} else if got != *v {
			t.Errorf("vector %q: brute force gives %d posts (digest %s), the file says %d (%s): the network or Eval changed; "+
				"check, then rerun with %s=1", v.query, got.count, got.digest, v.count, v.digest, updateEnv)
			continue
		}
		if !update && !sampled(i) {
			continue
		}
		if err := check(ctx, s, m, q); err != nil {
			t.Errorf("vector %q: %v", v.query, err)
		}
	}
	if update {
		if err := writeVectors(path, vs); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s (%d vectors)", path, len(vs))
	}
}

func vectorOf(query string, want []int64) vector {
	h := fnv.New64a()
	parts := make([]string, len(want))
	for i, id := range want {
		parts[i] = strconv.FormatInt(id, 10)
	}
	all := strings.Join(parts, ",")
	h.Write([]byte(all))
	v := vector{query: query, count: len(want), digest: fmt.Sprintf("%016x", h.Sum64())}
	if len(want) <= vectorIDs {
		v.ids = all
	}
	return v
}

// readVectors reads the file, comments included.
func readVectors(path string) ([]vector, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("searchtest: vectors: %w", err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if isComment(line) {
			vs = append(vs, vector{comment: line})
			continue
		}
		fields := strings.Split(line, "\t")
		v := vector{query: fields[0]}
		if len(fields) >= 3 {
			if v.count, err = strconv.Atoi(fields[1]); err != nil {
				return nil, fmt.Errorf("searchtest: %s:%d: bad count %q", path, n, fields[1])
			}
			v.digest = fields[2]
		}
		if len(fields) >= 4 {
			v.ids = fields[3]
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("searchtest: vectors: %w", err)
	}
	return vs, nil
}

func writeVectors(path string, vs []vector) error {
	var b strings.Builder
	for _, v := range vs {
		if v.query == "" {
			b.WriteString(v.comment + "\n")
			continue
		}
		fmt.Fprintf(&b, "%s\t%d\t%s", v.query, v.count, v.digest)
		if v.ids != "" {
			b.WriteString("\t" + v.ids)
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("searchtest: write vectors: %w", err)
	}
	return nil
}

func isComment(line string) bool {
	return strings.TrimSpace(line) == "" || line == "#" || strings.HasPrefix(line, "# ")
}
