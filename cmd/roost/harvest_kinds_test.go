package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/ingest/harvest"
)

// harvestArgs picks, for every kind, an argument with more than one page
// of data in the upstream's network: the example user, thread, list,
// community, post and username, the user who follows the most accounts, a
// list of a few members (its posts), and id files of posts and users with
// ids that do not exist among them.
func harvestArgs(t *testing.T, u *tappedUpstream) map[string]string {
	t.Helper()
	ex := u.ex
	id := func(v int64) string { return strconv.FormatInt(v, 10) }
	following := u.query(t, "SELECT follower_id FROM follows GROUP BY follower_id ORDER BY count(*) DESC, follower_id LIMIT 1")
	smallList := u.query(t, "SELECT list_id FROM list_members GROUP BY list_id HAVING count(*) BETWEEN 3 AND 6 ORDER BY list_id LIMIT 1")
	if len(following) == 0 || len(smallList) == 0 || ex.ThreadID == 0 || ex.ListID == 0 || ex.CommunityID == 0 || ex.PostID == 0 {
		t.Fatalf("the network lacks an example: following %v, small list %v, examples %+v", following, smallList, ex)
	}
	idFile := func(name string, ids []int64, missing ...int64) string {
		var b strings.Builder
		b.WriteString("# ids to harvest\n\n")
		for i, v := range ids {
			fmt.Fprintln(&b, v)
			if i%50 == 7 && len(missing) > 0 {
				fmt.Fprintln(&b, missing[0])
				missing = missing[1:]
			}
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return map[string]string{
		"search":             "the",
		"timeline":           id(ex.UserID),
		"replies":            id(ex.UserID),
		"thread":             id(ex.ThreadID),
		"followers":          id(ex.UserID),
		"following":          id(following[0]),
		"verified-followers": id(ex.UserID),
		"list-members":       id(ex.ListID),
		"list-posts":         id(smallList[0]),
		"community-posts":    id(ex.CommunityID),
		"community-members":  id(ex.CommunityID),
		"mentions":           ex.Username,
		"reposters":          id(ex.PostID),
		"posts-by-ids":       idFile("posts.ids", u.query(t, "SELECT id FROM posts ORDER BY id LIMIT 230"), 1, 2, 3),
		"users-by-ids":       idFile("users.ids", u.query(t, "SELECT id FROM users ORDER BY id LIMIT 130"), 4, 5),
	}
}

// readIDFile is the ids of an id file, as harvestJob reads them.
func readIDFile(t *testing.T, path string) []int64 {
	t.Helper()
	ids, err := readIDs(path)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// answerLines is what roost harvest prints: lines, each ended.
func answerLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// TestHarvestKinds harvests every kind from an in-process roost upstream
// with roost harvest (the built binary), into a JSON-lines file and into a database, and
// compares what it stored with the walk the client package makes of the
// same endpoint: the file holds exactly the walk's items in order; the
// database exactly its posts and users (with the posts and users embedded
// in them) and, for walks of users, the relation rows in the walk's order;
// by-ids harvests answer found or missing for every id of the file, in
// its order, as the server answered.
func TestHarvestKinds(t *testing.T) {
	u := newTappedUpstream(t)
	args := harvestArgs(t, u)
	for _, kind := range harvest.KindNames() {
		arg, ok := args[kind]
		if !ok {
			t.Errorf("no argument for kind %s", kind)
			continue
		}
		t.Run(kind, func(t *testing.T) {
			var ids []int64
			if harvest.Kinds()[kind] == "FILE" {
				ids = readIDFile(t, arg)
			}
			want := walkKind(t, u, kind, arg, ids)
			if len(want.ids) <= 20 {
				t.Fatalf("%s %s: %d items upstream, want more than a page", kind, arg, len(want.ids))
			}
			if ids != nil && len(want.missing) == 0 {
				t.Fatalf("%s: no missing id in the file", kind)
			}
			dir := t.TempDir()
			common := []string{"harvest", "--base-url", u.url, "--key", u.key, kind, arg}

			out := filepath.Join(dir, "out.jsonl")
			before := u.tap.total.Load()
			code, stdout, stderr := execHarvest(t, append(common, "--out", out)...)
			if code != 0 {
				t.Fatalf("harvest --out: exit %d\n%s", code, stderr)
			}
			if n := u.tap.total.Load() - before; n != want.requests {
				t.Errorf("the harvest made %d requests, the walk %d", n, want.requests)
			}
			if got := harvestFileIDs(t, out); !slices.Equal(got, want.served) {
				t.Errorf("--out holds %d items, the walk's pages %d:\n%v\n%v", len(got), len(want.served), got, want.served)
			}
			if stdout != answerLines(want.answers) {
				t.Errorf("--out printed %q, want %q", stdout, answerLines(want.answers))
			}
			if cp, err := harvest.LoadCheckpoint(out + ".checkpoint"); err != nil || !cp.Done || cp.Stats.Items != len(want.served) {
				t.Errorf("--out checkpoint %+v (%v), want done with %d items", cp, err, len(want.served))
			}

			db := filepath.Join(dir, "h.db")
			code, stdout, stderr = execHarvest(t, append(common, "--db", db, "--checkpoint", filepath.Join(dir, "db.checkpoint"))...)
			if code != 0 {
				t.Fatalf("harvest --db: exit %d\n%s", code, stderr)
			}
			checkHarvestDB(t, db, want)
			if stdout != answerLines(want.answers) {
				t.Errorf("--db printed %q, want %q", stdout, answerLines(want.answers))
			}
		})
	}
}
