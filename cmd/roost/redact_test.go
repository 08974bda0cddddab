package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/syncbuf"
)

// TestRedact: roost redact deletes the stored ids of a file (posts, or
// with --users accounts), prints deleted or missing for each, and
// tombstones them all: a second run finds every one missing, and an
// import of a missing one leaves it out.
func TestRedact(t *testing.T) {
	db := researchDB(t)
	ctx := context.Background()
	s, err := openStore(ctx, &env{lookupEnv: os.LookupEnv}, db)
	if err != nil {
		t.Fatal(err)
	}
	users, err := s.SearchUsers(ctx, "", social.PageReq{Limit: 2})
	if err != nil || len(users.Items) != 2 {
		t.Fatalf("users: %v %v", users, err)
	}
	posts, err := s.UserPosts(ctx, users.Items[0].ID, true, social.PageReq{Limit: 2})
	if err != nil || len(posts.Items) != 2 {
		t.Fatalf("posts: %v %v", posts, err)
	}
	s.Close()
	p1, p2, u := posts.Items[0].ID, posts.Items[1].ID, users.Items[1].ID
	const gone = 123456789
	ids := filepath.Join(t.TempDir(), "ids.txt")
	if err := os.WriteFile(ids, fmt.Appendf(nil, "# takedown\n%d\n\n%d\n%d\n%d\n", p1, gone, p2, p1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := roost(t, "redact", "--db", db, "--ids", ids)
	want := fmt.Sprintf("deleted\t%d\nmissing\t%d\ndeleted\t%d\n", p1, gone, p2)
	if code != 0 || out != want || !strings.Contains(errOut, "2 posts deleted") || !strings.Contains(errOut, "1 missing") {
		t.Fatalf("redact: %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := roost(t, "redact", "--db", db, "--ids", ids); code != 0 || strings.Count(out, "missing") != 3 {
		t.Errorf("a second run: %d %s", code, out)
	}
	var stdout, stderr syncbuf.Buffer
	code = run(ctx, []string{"redact", "--db", db, "--users", "-"}, strings.NewReader(fmt.Sprintln(u)), &stdout, &stderr)
	if code != 0 || stdout.String() != fmt.Sprintf("deleted\t%d\n", u) || !strings.Contains(stderr.String(), "1 users deleted (and ") {
		t.Fatalf("redact --users -: %d %s %s", code, stdout.String(), stderr.String())
	}
	s, err = openStore(ctx, &env{lookupEnv: os.LookupEnv}, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ps, err := s.Posts(ctx, []int64{p1, p2}); err != nil || len(ps) != 0 {
		t.Errorf("redacted posts are stored: %v %v", ps, err)
	}
	if _, err := s.User(ctx, u); err == nil {
		t.Error("a redacted account is stored")
	}
	st, err := s.Write(ctx, &social.Batch{Posts: []social.Post{{ID: gone, AuthorID: users.Items[0].ID, Text: "later"}}})
	if err != nil || st.PostsSkipped != 1 || st.PostsInserted != 0 {
		t.Errorf("a missing id redacted was stored later: %+v %v", st, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"redact", "--db", db}, "--ids FILE or --users FILE is required"},
		{[]string{"redact", "--db", db, "--ids", ids, "--users", ids}, "give one"},
		{[]string{"redact", "--ids", ids}, "--db is required"},
	} {
		if code, _, errOut := roost(t, c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: %d %s", c.args, code, errOut)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("12\nabc\n"), 0o644)
	if code, _, errOut := roost(t, "redact", "--db", db, "--ids", bad); code != 2 || !strings.Contains(errOut, `bad.txt:2: "abc"`) {
		t.Errorf("a bad line: %d %s", code, errOut)
	}
}
