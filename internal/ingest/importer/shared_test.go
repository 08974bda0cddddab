package importer

import (
	"testing"
)

// sharedFiles are the recorded inputs in ../shared/testdata (beside the repository), with their
// format and how many records each holds.
var sharedFiles = []struct {
	rel    string
	format string
}{
	{"v1/rtweet-statuses.jsonl", FormatV1},
	{"v2/brexit.jsonl", FormatV2},
	{"v2/cashtags.jsonl", FormatV2},
	{"v2/entities_test.jsonl", FormatV2},
	{"v2/kpop.jsonl", FormatV2},
	{"graphql/raw_community_tweets.json", FormatGraphQL},
	{"graphql/raw_followers.json", FormatGraphQL},
	{"graphql/raw_list_timeline.json", FormatGraphQL},
	{"graphql/raw_search.json", FormatGraphQL},
	{"graphql/raw_search_old.json", FormatGraphQL},
	{"graphql/raw_tweet_details.json", FormatGraphQL},
	{"graphql/raw_user_tweets.json", FormatGraphQL},
	{"archive/tweets.js", FormatArchive},
}

// TestSharedFilesImportCleanly imports every recorded file, detecting its
// format, and requires zero skipped records.
func TestSharedFilesImportCleanly(t *testing.T) {
	for _, f := range sharedFiles {
		t.Run(f.rel, func(t *testing.T) {
			p := shared(t, f.rel)
			rec := newRecorder()
			sum := importInto(t, rec, Options{}, p)
			t.Logf("%s: read %d, posts %d, users %d, skipped %d %v", f.rel, sum.Read, len(rec.posts), len(rec.users), sum.Skipped, sum.SkipReasons)
			if sum.Skipped != 0 {
				t.Errorf("skipped %d records: %v\n%s", sum.Skipped, sum.SkipReasons, sum)
			}
			if sum.Read == 0 || len(rec.posts)+len(rec.users) == 0 {
				t.Errorf("nothing imported: %s", sum)
			}
			for id, p := range rec.posts {
				if p.AuthorID == 0 || p.CreatedAt.IsZero() || p.ConversationID == 0 {
					t.Errorf("post %d incomplete: author %d, created %v, conversation %d", id, p.AuthorID, p.CreatedAt, p.ConversationID)
				}
				if _, ok := rec.users[p.AuthorID]; !ok {
					t.Errorf("post %d: author %d not written", id, p.AuthorID)
				}
			}
		})
	}
}
