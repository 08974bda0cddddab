package importer

import (
	"fmt"
	"sort"
	"strings"
)

// maxErrors is how many record errors a Summary keeps (all are counted).
const maxErrors = 100

// RecordError locates one malformed record: the file (with the member
// name inside an archive, "export.zip:data/tweets.js"), the 1-based line for
// line-oriented input, or the JSON path of the record otherwise.
type RecordError struct {
	File   string
	Line   int
	Path   string
	Reason string
}

// Error implements error.
func (e RecordError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Path != "" {
		fmt.Fprintf(&b, " at %s", e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Summary reports what an import did. Read counts input records (a status,
// a v2 data item, a GraphQL timeline entry, an export item, an API item);
// one record can hold several posts and users. Skipped counts records left
// out, by reason in SkipReasons ("malformed" for errors, listed in Errors,
// the first maxErrors of them; "tombstone" for deleted or withheld posts).
type Summary struct {
	Files         int
	Read          int
	PostsInserted int
	PostsUpdated  int
	UsersInserted int
	UsersUpdated  int
	// PostsDeleted are the posts of deleted-tweets.js that were stored,
	// deleted now with PostsDeletedWith more (their native reposts).
	PostsDeleted, PostsDeletedWith int
	// LeftOut counts the posts, users and relations not written because
	// they name a deleted post or user (a tombstone: roost redact, a
	// deleted-tweets.js).
	LeftOut     int
	Skipped     int
	SkipReasons map[string]int
	// Repaired counts, by file, the text fields that held a NUL byte or
	// invalid UTF-8, which no store can hold: each such byte was imported
	// as U+FFFD. Nil when there were none.
	Repaired map[string]int
	Errors   []RecordError
	// Notes are decisions the importer took that the user should know,
	// such as a followers capture imported without edges.
	Notes []string
}

func (s *Summary) skip(reason string) {
	if s.SkipReasons == nil {
		s.SkipReasons = map[string]int{}
	}
	s.Skipped++
	s.SkipReasons[reason]++
}

func (s *Summary) repaired(file string, fields int) {
	if s.Repaired == nil {
		s.Repaired = map[string]int{}
	}
	s.Repaired[file] += fields
}

func (s *Summary) bad(e RecordError) {
	s.skip("malformed")
	if len(s.Errors) < maxErrors {
		s.Errors = append(s.Errors, e)
	}
}

func (s *Summary) note(n string) {
	for _, m := range s.Notes {
		if m == n {
			return
		}
	}
	s.Notes = append(s.Notes, n)
}

// String renders the summary for people.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "files %d, records read %d\n", s.Files, s.Read)
	fmt.Fprintf(&b, "posts: %d new, %d updated\n", s.PostsInserted, s.PostsUpdated)
	fmt.Fprintf(&b, "users: %d new, %d updated\n", s.UsersInserted, s.UsersUpdated)
	if s.PostsDeleted+s.PostsDeletedWith > 0 {
		fmt.Fprintf(&b, "deleted: %d posts (and %d reposts of them)\n", s.PostsDeleted, s.PostsDeletedWith)
	}
	if s.LeftOut > 0 {
		fmt.Fprintf(&b, "left out %d posts, users and relations that name a deleted post or user\n", s.LeftOut)
	}
	fmt.Fprintf(&b, "skipped %d", s.Skipped)
	if len(s.SkipReasons) > 0 {
		reasons := make([]string, 0, len(s.SkipReasons))
		for r := range s.SkipReasons {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		parts := make([]string, len(reasons))
		for i, r := range reasons {
			parts[i] = fmt.Sprintf("%s %d", r, s.SkipReasons[r])
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	for _, e := range s.Errors {
		fmt.Fprintf(&b, "  %s\n", e.Error())
	}
	if n := s.SkipReasons["malformed"]; n > len(s.Errors) {
		fmt.Fprintf(&b, "  … and %d more malformed records\n", n-len(s.Errors))
	}
	files := make([]string, 0, len(s.Repaired))
	for f := range s.Repaired {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(&b, "repaired %d text fields in %s: NUL bytes or invalid UTF-8, which no database holds, imported as U+FFFD\n",
			s.Repaired[f], f)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
