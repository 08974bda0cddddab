package importer

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// The owner of testdata/archive (account.js).
const keeper = 9100000000000000070

func archiveFile(name string) string { return filepath.Join("testdata", "archive", name) }

// TestExportDeletedTweets: each item of deleted-tweets.js is the deletion
// of its post.
func TestExportDeletedTweets(t *testing.T) {
	b, err := os.ReadFile(archiveFile("deleted-tweets.js"))
	if err != nil {
		t.Fatal(err)
	}
	if f := mustDetect(t, b); f != FormatArchive {
		t.Fatalf("deleted-tweets.js detected as %s", f)
	}
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, archiveFile("deleted-tweets.js"))
	check(t, "read", sum.Read, 2)
	check(t, "deleted", len(rec.deleted), 2)
	for _, id := range []int64{1790000000000000071, 1780000000000000072} {
		if !rec.deleted[id] {
			t.Errorf("%d not deleted: %v", id, rec.deleted)
		}
	}
	check(t, "posts", len(rec.posts), 0)
}

// TestExportFollows: follower.js and following.js are follows with the
// owner (account.js beside them, or --followers-of and --following-of)
// at the other end, their accounts stubs.
func TestExportFollows(t *testing.T) {
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, archiveFile("follower.js"), archiveFile("following.js"))
	check(t, "read", sum.Read, 4)
	for _, f := range [][2]int64{{9100000000000000080, keeper}, {9100000000000000081, keeper},
		{keeper, 9100000000000000080}, {keeper, 12}} {
		if _, ok := rec.follows[f]; !ok {
			t.Errorf("no follow %d → %d among %v", f[0], f[1], rec.follows)
		}
	}
	check(t, "follows", len(rec.follows), 4)
	if u := mustUser(t, rec, 9100000000000000081); !u.Stub {
		t.Errorf("a follower is not a stub: %+v", u)
	}
	check(t, "owner", mustUser(t, rec, keeper).ScreenName, "archive_keeper")

	// Without account.js, the owner is named by the flags, or the
	// follows are skipped and the summary says how to name it.
	dir := t.TempDir()
	for _, name := range []string{"follower.js", "following.js"} {
		b, err := os.ReadFile(archiveFile(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec = newRecorder()
	sum = importInto(t, rec, Options{}, filepath.Join(dir, "follower.js"), filepath.Join(dir, "following.js"))
	check(t, "follows without an owner", len(rec.follows), 0)
	check(t, "skipped", sum.SkipReasons[errNoOwner], 4)
	if !strings.Contains(sum.String(), "--followers-of") || !strings.Contains(sum.String(), "--following-of") {
		t.Errorf("no note on naming the owner:\n%s", sum)
	}
	rec = newRecorder()
	importInto(t, rec, Options{FollowersOf: 5, FollowingOf: 6}, filepath.Join(dir, "follower.js"), filepath.Join(dir, "following.js"))
	for _, f := range [][2]int64{{9100000000000000080, 5}, {6, 12}} {
		if _, ok := rec.follows[f]; !ok {
			t.Errorf("no follow %d → %d among %v", f[0], f[1], rec.follows)
		}
	}
}

// TestExportDeletionsStored: into a store, deleted-tweets.js deletes the
// stored post it names and tombstones the other (a later import of either
// leaves it out); the follows are read back as followers and following;
// a zip of the export does the same.
func TestExportDeletionsStored(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	const kept, gone, never = 1790000000000000070, 1790000000000000071, 1780000000000000072
	if sum, err := Import(ctx, st, []string{archiveFile("tweets.js")}, Options{}); err != nil || sum.PostsInserted != 2 {
		t.Fatalf("tweets.js: %v\n%s", err, sum)
	}
	sum, err := Import(ctx, st, []string{archiveFile("deleted-tweets.js"), archiveFile("follower.js"), archiveFile("following.js")}, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, sum)
	}
	check(t, "posts deleted", sum.PostsDeleted, 1)
	if !strings.Contains(sum.String(), "deleted: 1 posts") {
		t.Errorf("summary:\n%s", sum)
	}
	if ps, err := st.Posts(ctx, []int64{kept, gone, never}); err != nil || len(ps) != 1 || ps[0].ID != kept {
		t.Errorf("posts after deleted-tweets.js: %v %v", ps, err)
	}
	sum, err = Import(ctx, st, []string{archiveFile("tweets.js")}, Options{})
	if err != nil || sum.LeftOut != 1 || sum.PostsUpdated != 1 || !strings.Contains(sum.String(), "left out 1 posts") {
		t.Errorf("tweets.js again: %v\n%s", err, sum)
	}
	if _, err := st.Post(ctx, gone); err == nil {
		t.Error("a deleted post was imported again")
	}
	followers, err := st.Followers(ctx, keeper, social.PageReq{Limit: 10})
	if err != nil || len(followers.Items) != 2 {
		t.Errorf("followers of the owner: %v %v", followers, err)
	}
	if ok, err := st.Follows(ctx, keeper, 12); !ok || err != nil {
		t.Errorf("the owner does not follow 12: %v %v", ok, err)
	}

	// The same files in a zip, into a fresh store.
	zpath := filepath.Join(t.TempDir(), "twitter-2024-05-20.zip")
	f, err := os.Create(zpath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range []string{"account.js", "tweets.js", "deleted-tweets.js", "follower.js", "following.js"} {
		w, err := zw.Create("data/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(archiveFile(name))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st = openSQLite(t)
	if sum, err := Import(ctx, st, []string{zpath}, Options{}); err != nil {
		t.Fatalf("zip: %v\n%s", err, sum)
	}
	if ps, err := st.Posts(ctx, []int64{kept, gone, never}); err != nil || len(ps) != 1 || ps[0].ID != kept {
		t.Errorf("posts of the zip: %v %v", ps, err)
	}
	if ok, err := st.Follows(ctx, 9100000000000000081, keeper); !ok || err != nil {
		t.Errorf("a follower of the zip: %v %v", ok, err)
	}
}
