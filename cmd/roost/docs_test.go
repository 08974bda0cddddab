package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The documentation tests keep README.md and docs/*.md honest: every
// `roost …` command line they show parses with the real command's flags,
// every relative link resolves, and nothing in the repository cites a file
// a clone does not have.

// repoRoot is the repository's root, seen from this package.
const repoRoot = "../.."

// docFile is one documentation file: its path from the root and text.
type docFile struct {
	path string
	text string
}

// docFiles reads README.md and every docs/*.md.
func docFiles(t *testing.T) []docFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append([]string{filepath.Join(repoRoot, "README.md")}, paths...)
	if len(paths) < 2 {
		t.Fatalf("no docs/*.md beside README.md")
	}
	var out []docFile
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, p)
		out = append(out, docFile{path: filepath.ToSlash(rel), text: string(b)})
	}
	return out
}

// mdLine is a line of Markdown and whether it is inside a code block.
type mdLine struct {
	n    int // 1-based
	text string
	code bool
}

// mdLines splits Markdown into lines, marking those of fenced (``` or ~~~)
// and indented (four spaces after a blank line) code blocks.
func mdLines(text string) []mdLine {
	var out []mdLine
	fence, indented, prevBlank := "", false, true
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		blank := trimmed == ""
		code := false
		switch {
		case fence != "":
			code = true
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence, code = trimmed[:3], true
		case indented && (blank || strings.HasPrefix(l, "    ")):
			code = !blank
		case prevBlank && strings.HasPrefix(l, "    "):
			indented, code = true, true
		default:
			indented = false
		}
		out = append(out, mdLine{n: i + 1, text: l, code: code})
		prevBlank = blank
	}
	return out
}

// commandLine is a roost command line found in a document.
type commandLine struct {
	where    string // file:line
	text     string
	synopsis bool // an inline span: [ ] ( ) group, a lone | separates alternatives
}

var (
	inlineCode    = regexp.MustCompile("`([^`]+)`")
	envAssignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
)

// commandLines finds every code line and inline code span that runs roost
// (`roost …`, `go run ./cmd/roost …`, `./roost …`, after an optional `$ `
// and environment assignments).
func commandLines(f docFile) []commandLine {
	var out []commandLine
	lines := mdLines(f.text)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.code {
			text, start := strings.TrimSpace(l.text), l.n
			for strings.HasSuffix(text, `\`) && i+1 < len(lines) && lines[i+1].code {
				i++
				text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(lines[i].text)
			}
			if runsRoost(text) {
				out = append(out, commandLine{where: fmt.Sprintf("%s:%d", f.path, start), text: text})
			}
		}
	}
	// Inline spans may run over a line break: read the prose with the code
	// blocks blanked, keeping line numbers.
	var prose strings.Builder
	for _, l := range lines {
		if !l.code {
			prose.WriteString(l.text)
		}
		prose.WriteByte('\n')
	}
	p := prose.String()
	for _, m := range inlineCode.FindAllStringSubmatchIndex(p, -1) {
		span := strings.Join(strings.Fields(p[m[2]:m[3]]), " ")
		if runsRoost(span) {
			line := 1 + strings.Count(p[:m[0]], "\n")
			out = append(out, commandLine{where: fmt.Sprintf("%s:%d", f.path, line), text: span, synopsis: true})
		}
	}
	return out
}

// runsRoost reports whether a line is a roost command line.
func runsRoost(text string) bool {
	args, _ := roostArgs(text, false)
	return args != nil
}

// roostArgs reads a command line as a shell would (quotes, escapes; it
// ends at a pipe, redirection, `;`, `&&` or a comment) and returns the
// arguments after roost, or nil when the line does not run roost. In a
// synopsis, `\|` and a lone `|` separate alternatives, brackets and
// parentheses group, and `…` elides.
func roostArgs(text string, synopsis bool) ([]string, error) {
	text = strings.TrimPrefix(strings.TrimSpace(text), "$ ")
	words, err := shellWords(text, synopsis)
	if err != nil {
		return nil, err
	}
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		words = words[1:]
	}
	switch {
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/roost":
		words = words[3:]
	case len(words) >= 1 && (words[0] == "roost" || words[0] == "./roost"):
		words = words[1:]
	default:
		return nil, nil
	}
	if len(words) == 0 {
		return nil, nil // the program named, no command
	}
	return words, nil
}

// shellWords splits text into words as a POSIX shell does, up to the
// first operator or comment.
func shellWords(text string, synopsis bool) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unbalanced '")
			}
			w.WriteString(text[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			i++
			for ; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' && i+1 < len(text) {
					i++
				}
				w.WriteByte(text[i])
			}
			if i >= len(text) {
				return nil, errors.New(`unbalanced "`)
			}
			inWord = true
		case c == '\\' && i+1 < len(text):
			i++
			w.WriteByte(text[i])
			inWord = true
		case c == ' ' || c == '\t':
			end()
		case c == '|' && synopsis:
			end() // an alternative, not a pipe
		case strings.IndexByte("|&;<>", c) >= 0:
			end()
			if c == '>' && len(words) > 0 && words[len(words)-1] == "2" {
				words = words[:len(words)-1] // 2> is a redirection, not a word
			}
			return words, nil
		case c == '#' && !inWord:
			end()
			return words, nil
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	end()
	if synopsis {
		var kept []string
		for _, w := range words {
			w = strings.TrimLeft(w, "[(")
			w = strings.TrimRight(w, "])")
			if w != "" && w != "…" && w != "..." && w != "|" {
				kept = append(kept, w)
			}
		}
		words = kept
	}
	return words, nil
}

// positionals says what a command takes besides flags: nothing, files
// after the flags (import, seed), WHAT ARG between flags (harvest), or a query
// among the flags (the research commands).
var positionals = map[string]string{
	"import": "files", "seed": "files", "harvest": "what-arg",
	"counts": "query", "top": "query", "export": "query", "network": "query",
}

// docFlagSets caches the real flag set of each command (and keys
// subcommand), read by running it with --help.
type docFlagSets map[string]*flag.FlagSet

// flagSet returns the flag set the command named by path (["serve"],
// ["keys", "create"]) makes, by running it in-process with --help: the
// commands define their flags and stop at parsing.
func (c docFlagSets) flagSet(path []string) (*flag.FlagSet, error) {
	key := strings.Join(path, " ")
	if fs, ok := c[key]; ok {
		return fs, nil
	}
	var made *flag.FlagSet
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		lookupEnv: func(string) (string, bool) { return "", false },
		madeFlags: func(fs *flag.FlagSet) { made = fs }}
	i := slices.IndexFunc(commands(), func(cmd command) bool { return cmd.name == path[0] })
	if i < 0 {
		return nil, fmt.Errorf("unknown command %q", path[0])
	}
	err := commands()[i].run(context.Background(), e, append(slices.Clone(path[1:]), "--help"))
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, err
	}
	if made == nil {
		return nil, fmt.Errorf("roost %s --help made no flag set", key)
	}
	c[key] = made
	return made, nil
}

// anyValue stands in for a flag's value: a command line in the
// documentation may hold a placeholder (FILE, USD, N) where a value goes.
type anyValue struct{ isBool bool }

func (anyValue) String() string     { return "" }
func (anyValue) Set(string) error   { return nil }
func (v anyValue) IsBoolFlag() bool { return v.isBool }

// lenient copies fs's flags (names, and which are booleans) with values
// that take anything.
func lenient(fs *flag.FlagSet) *flag.FlagSet {
	out := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	out.SetOutput(io.Discard)
	out.Usage = func() {}
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		out.Var(anyValue{isBool: ok && b.IsBoolFlag()}, f.Name, f.Usage)
	})
	return out
}

// checkCommand parses a documented command line (the arguments after
// roost) as the command would, and returns what is wrong with it.
func (c docFlagSets) checkCommand(args []string) error {
	name := args[0]
	if name == "--help" || name == "-h" || name == "help" || name == "--version" {
		return nil
	}
	if strings.ToUpper(name) == name && strings.ToLower(name) != name {
		return nil // a placeholder: roost COMMAND --help
	}
	path, rest := args[:1], args[1:]
	if name == "keys" {
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			return nil // the keys commands as a group
		}
		path, rest = args[:2], args[2:]
	}
	real, err := c.flagSet(path)
	if err != nil {
		return err
	}
	fs := lenient(real)
	// --help, or a flag named without its value in prose, ends the check.
	done := func(err error) bool {
		return errors.Is(err, flag.ErrHelp) || strings.Contains(err.Error(), "flag needs an argument")
	}
	parseFlags := func(args []string) error {
		if err := fs.Parse(args); err != nil && !done(err) {
			return err
		}
		return nil
	}
	switch positionals[name] {
	case "query":
		if _, err := queryArgs(fs, append(rest, "QUERY")); err != nil && !done(err) {
			return err
		}
		return nil
	case "files":
		if err := parseFlags(rest); err != nil {
			return err
		}
		for _, a := range fs.Args() {
			if strings.HasPrefix(a, "-") {
				return fmt.Errorf("%s comes after the files, where it is read as a file", a)
			}
		}
		return nil
	case "what-arg":
		if err := parseFlags(rest); err != nil {
			return err
		}
		if fs.NArg() <= 2 {
			return nil
		}
		if err := parseFlags(fs.Args()[2:]); err != nil {
			return err
		}
	default:
		if err := parseFlags(rest); err != nil {
			return err
		}
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// TestDocsCommandLines: every roost command line in README.md and docs/
// names a command that exists and flags it has, parsed as it would parse
// them.
func TestDocsCommandLines(t *testing.T) {
	sets := docFlagSets{}
	seen := 0
	for _, f := range docFiles(t) {
		for _, cl := range commandLines(f) {
			args, err := roostArgs(cl.text, cl.synopsis)
			if args == nil && err == nil {
				continue // roost named with nothing but an ellipsis
			}
			seen++
			if err == nil {
				err = sets.checkCommand(args)
			}
			if err != nil {
				t.Errorf("%s: %s\n\t%v", cl.where, cl.text, err)
			}
		}
	}
	if seen < 50 {
		t.Errorf("only %d roost command lines found in the documentation", seen)
	}
}

// TestDocsCommandCheck: the command check refuses what it must.
func TestDocsCommandCheck(t *testing.T) {
	sets := docFlagSets{}
	for _, c := range []struct {
		line     string
		synopsis bool
		bad      string // in the error; "" for none
	}{
		{"roost serve --addr 127.0.0.1:0 --demo=false", false, ""},
		{"go run ./cmd/roost serve --adress x", false, "-adress"},
		{"$ roost gen --db DB --posts N", false, ""},
		{"roost gen --db DB --post N", false, "-post"},
		{"roost servee", false, "unknown command"},
		{"roost keys create --db DB --credits USD --fault PLAN", false, ""},
		{"roost keys frobnicate --id 3", false, "unknown subcommand"},
		{"roost keys topup --id 3 --credit 5", false, "-credit"},
		{"roost import --db roost.db a.jsonl --strict", false, "after the files"},
		{"roost harvest --base-url URL search 'golang -filter:replies' --out f.jsonl --max-cost 2", false, ""},
		{"roost harvest --base-url URL search golang --outt f.jsonl", false, "-outt"},
		{"roost export --db roost.db --out all.csv include:nativeretweets --limt 5", false, "-limt"},
		{"roost counts --db roost.db '#climate lang:en' --granularity hour --csv", false, ""},
		{"roost live --db roost.db --events 1000 > events.jsonl", false, ""},
		{"roost live --db roost.db --events 1000 extra", false, "unexpected argument"},
		{`roost bench --db DB [--http \| --live RATE [--monitors N]]`, true, ""},
		{`roost bench --db DB [--http \| --lively RATE]`, true, "-lively"},
		{"roost harvest --db", true, ""},
		{"ROOST_UPSTREAM_KEY=x roost serve --upstream URL --fresh search=2m", false, ""},
	} {
		args, err := roostArgs(c.line, c.synopsis)
		if err == nil {
			err = sets.checkCommand(args)
		}
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s: %v", c.line, err)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%s: got %v, want an error naming %q", c.line, err, c.bad)
		}
	}
}

var (
	mdLink    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// anchors are the GitHub anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range mdLines(text) {
		m := mdHeading.FindStringSubmatch(l.text)
		if l.code || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", b.String(), i)
		}
		out[a] = true
	}
	return out
}

// TestDocsLinks: every relative link of README.md and docs/ names a file
// of the repository, and a heading of it when it has an anchor.
func TestDocsLinks(t *testing.T) {
	links := 0
	for _, f := range docFiles(t) {
		for _, bad := range brokenLinks(f) {
			t.Error(bad)
		}
		links += len(mdLink.FindAllString(f.text, -1))
	}
	if links < 30 {
		t.Errorf("only %d links in the documentation", links)
	}
}

// brokenLinks lists the relative links of f that do not resolve.
func brokenLinks(f docFile) []string {
	var bad []string
	for _, l := range mdLines(f.text) {
		if l.code {
			continue
		}
		text := inlineCode.ReplaceAllString(l.text, "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			linked := f.text
			if file != "" {
				path := filepath.Join(repoRoot, filepath.Dir(f.path), file)
				if st, err := os.Stat(path); err == nil && st.IsDir() && anchor == "" {
					continue
				}
				b, err := os.ReadFile(path)
				if err != nil {
					bad = append(bad, fmt.Sprintf("%s:%d: link %s: no such file", f.path, l.n, target))
					continue
				}
				linked = string(b)
			}
			if anchor != "" && !anchors(linked)[anchor] {
				in := file
				if in == "" {
					in = f.path
				}
				bad = append(bad, fmt.Sprintf("%s:%d: link %s: no heading #%s in %s", f.path, l.n, target, anchor, in))
			}
		}
	}
	return bad
}

// TestDocsLinkCheck: the link check refuses a missing file and a missing
// heading.
func TestDocsLinkCheck(t *testing.T) {
	f := docFile{path: "docs/x.md", text: "# X\n\n## Two words\n\nSee [a](api.md#money), [b](#two-words), [c](../README.md),\n" +
		"[d](nope.md), [e](api.md#no-such-heading), [f](https://example.com/x), `[g](nope2.md)`.\n\n    [h](nope3.md)\n"}
	got := brokenLinks(f)
	if len(got) != 2 || !strings.Contains(got[0], "nope.md: no such file") || !strings.Contains(got[1], "no heading #no-such-heading") {
		t.Errorf("broken links: %q", got)
	}
}

// TestDocsStandAlone: the documentation and the code send no reader to
// files a clone of the repository does not have, and the code's
// citations of docs/ name files and headings that exist.
func TestDocsStandAlone(t *testing.T) {
	docs := docFiles(t)
	readme := docs[0]
	if !strings.Contains(readme.text, "/docs") {
		t.Errorf("README.md does not point to /docs for the API")
	}
	if !strings.HasPrefix(readme.text, "# roost\n") {
		t.Errorf("README.md does not open with its title")
	}
	// The tests that read shared/testdata beside the repository name it
	// in code; the documentation must not send readers there.
	outside := regexp.MustCompile(`\b(?:SPEC|CONTRACT|DESIGN|PERFORMANCE)\.md\b|\b(?:SPEC|CONTRACT) (?:\d|§|")|README →`)
	outsideDocs := regexp.MustCompile(`\.\./shared`)
	cite := regexp.MustCompile(`docs/([a-z0-9-]+\.md)(?:, "([^"]+)")?`)
	headings := map[string]map[string]bool{}
	for _, d := range docs {
		if strings.HasPrefix(d.path, "docs/") {
			h := map[string]bool{}
			for _, l := range mdLines(d.text) {
				if m := mdHeading.FindStringSubmatch(l.text); m != nil && !l.code {
					h[strings.ToLower(strings.ReplaceAll(m[1], "`", ""))] = true
				}
			}
			headings[strings.TrimPrefix(d.path, "docs/")] = h
		}
	}
	self, _ := filepath.Abs("docs_test.go")
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" || name == "_artifacts" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sql", ".html", ".js", ".css", ".yaml", ".yml":
		default:
			if filepath.Base(path) != "run" {
				return nil
			}
		}
		if abs, _ := filepath.Abs(path); abs == self {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		for i, line := range strings.Split(string(b), "\n") {
			// git's history is part of a clone: a path in it may be named.
			m := outside.FindString(line)
			if m == "" && filepath.Ext(path) == ".md" {
				m = outsideDocs.FindString(line)
			}
			if m != "" && !strings.Contains(line, "git log") {
				t.Errorf("%s:%d cites %q, which a clone does not have: cite docs/ or state the rule", rel, i+1, m)
			}
			for _, m := range cite.FindAllStringSubmatch(line, -1) {
				h, ok := headings[m[1]]
				switch {
				case !ok:
					t.Errorf("%s:%d cites docs/%s, which does not exist", rel, i+1, m[1])
				case m[2] != "" && !h[strings.ToLower(m[2])]:
					t.Errorf("%s:%d cites docs/%s, %q: no such heading", rel, i+1, m[1], m[2])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
