package importer

import (
	"context"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// bulkRecorder is a recorder offering a bulk load, as sqlite.Store does.
type bulkRecorder struct {
	*recorder
	bulks    int
	expected int64
}

func (b *bulkRecorder) Bulk(ctx context.Context, expectPosts int64, load func(social.Writer) error) error {
	b.bulks++
	b.expected = expectPosts
	return load(b.recorder)
}

// TestImportUsesBulk writes through the store's bulk load, once, after a
// strict pass that writes nothing, with the same result as plain writes.
func TestImportUsesBulk(t *testing.T) {
	plain := newRecorder()
	want := importInto(t, plain, Options{}, fixture("v1_array.json"))
	rec := &bulkRecorder{recorder: newRecorder()}
	got, err := Import(context.Background(), rec, []string{fixture("v1_array.json")}, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec.bulks != 1 || rec.expected <= 0 {
		t.Errorf("Bulk called %d times, expecting %d posts", rec.bulks, rec.expected)
	}
	if got.PostsInserted != want.PostsInserted || got.UsersInserted != want.UsersInserted || len(rec.posts) != len(plain.posts) {
		t.Errorf("bulk import %+v, plain %+v", got, want)
	}
}
