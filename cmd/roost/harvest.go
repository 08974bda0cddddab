package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/ingest/harvest"
)

func cmdHarvest(ctx context.Context, e *env, args []string) error {
	fset := newFlags(e, "harvest", "harvest --base-url URL [--key KEY] WHAT ARG (--db DB | --out FILE.jsonl[.gz]) [flags]\n\n"+
		"WHAT ARG is one of:\n  "+kindsUsage()+"\n\nThe key comes from --key or ROOST_API_KEY. A checkpoint beside the output (FILE.checkpoint, or\n"+
		"harvest-WHAT-HASH.checkpoint in the current directory with --db) lets --resume continue an interrupted run\n"+
		"of the same harvest (WHAT, ARG, --type, the ids of FILE); --max-cost then counts what the runs before spent.\n"+
		"posts-by-ids and users-by-ids print found<TAB>ID or missing<TAB>ID on stdout for every id, in the file's order.")
	base := fset.String("base-url", "", "server to harvest from (the hosted service or a roost), e.g. http://127.0.0.1:8080")
	key := fset.String("key", "", "API key (default: $ROOST_API_KEY)")
	db := fset.String("db", "", "store the harvest in this roost database (SQLite path or postgres:// URL)")
	tuningFlag(fset, e)
	out := fset.String("out", "", "write one response page a line to this file (.gz: compressed), for roost import")
	maxItems := fset.Int("max-items", 0, "stop after this many items (0: no limit)")
	ahead := fset.Int("ahead", harvest.DefaultAhead, "pages fetched while earlier ones are stored, all waiting pages stored in one transaction\n"+
		"(0: fetch, store and checkpoint one page at a time); a crash refetches, and pays again for, at most 2×N+4 pages")
	var maxCost usdFlag
	fset.Var(&maxCost, "max-cost", "spend at most this many US dollars in all, the runs a --resume continues included\n"+
		"(the client stops before a page that could cross it)")
	price := usdFlag{micros: billing.DefaultPrice, set: true}
	fset.Var(&price, "price", "price of one item at the server, in US dollars, for --max-cost")
	resume := fset.Bool("resume", false, "continue the interrupted harvest of the same WHAT ARG (and --type, ids) from its checkpoint")
	order := fset.String("type", "Latest", "order of search and community-posts: Latest or Top")
	prefix := fset.String("prefix", client.DefaultPrefix, "path prefix of the server's data endpoints")
	checkpoint := fset.String("checkpoint", "", "checkpoint file (default: beside the output, see above)")
	if err := parse(fset, args, true); err != nil {
		return err
	}
	if fset.NArg() < 2 {
		return usageError("want WHAT ARG, e.g. search golang or timeline 44196397")
	}
	what, arg := fset.Arg(0), fset.Arg(1)
	if err := parse(fset, fset.Args()[2:], false); err != nil { // flags may follow WHAT ARG
		return err
	}
	job, err := harvestJob(what, arg, *order, *maxItems)
	if err != nil {
		return err
	}
	switch {
	case *base == "":
		return usageError("--base-url is required")
	case (*db == "") == (*out == ""):
		return usageError("give exactly one of --db and --out")
	case *maxItems < 0:
		return usageError("--max-items must not be negative")
	case *ahead < 0 || *ahead > 1000:
		return usageError("--ahead must be between 0 and 1000")
	}
	job.Ahead = *ahead
	if *key == "" {
		*key = os.Getenv("ROOST_API_KEY")
	}
	if *key == "" {
		return usageError("no API key: pass --key or set ROOST_API_KEY")
	}
	cpPath := *checkpoint
	if cpPath == "" {
		cpPath = defaultCheckpoint(what, arg, *db, *out)
	}
	cp, err := startCheckpoint(cpPath, *resume, *base, job)
	if err != nil {
		return err
	}
	// The client counts what the pages cost at --price; without --max-cost
	// the budget is only that count. A resumed run may spend what the runs
	// before it left of --max-cost.
	limit := int64(math.MaxInt64 / 2)
	if maxCost.set {
		limit = cp.Left(maxCost.micros)
	}
	opts := []client.Option{client.WithPrefix(*prefix), client.WithBudget(limit, price.micros)}
	c, err := client.New(*base, *key, opts...)
	if err != nil {
		return usageError("%v", err)
	}
	var sink harvest.Sink
	var file *harvest.FileSink
	if *out != "" {
		if file, err = harvest.OpenFile(*out, *resume, cp.Offset); err != nil {
			return err
		}
		defer file.Close()
		sink = file
	} else {
		s, err := openStore(ctx, e, *db)
		if err != nil {
			return err
		}
		defer s.Close()
		sink = harvest.StoreSink{W: s}
	}
	total := int64(-1)
	if job.MaxItems > 0 {
		total = int64(job.MaxItems)
	} else if job.IDs != nil {
		total = int64(len(job.IDs))
	}
	bar := newBar(e, "harvest "+what, total, "items")
	report := bufio.NewWriter(e.stdout)
	defer report.Flush()
	save := func(cp *harvest.Checkpoint) error {
		if file != nil {
			cp.Offset = file.Offset
		}
		// The answers of the ids the checkpoint moves past are out before
		// it is saved: after kill -9, --resume does not give them again.
		if err := report.Flush(); err != nil {
			return fmt.Errorf("stdout: %w", err)
		}
		return harvest.SaveCheckpoint(cpPath, cp)
	}
	byID := func(id int64, found bool) {
		answer := "missing"
		if found {
			answer = "found"
		}
		fmt.Fprintf(report, "%s\t%d\n", answer, id)
	}
	st, err := harvest.Run(ctx, c, job, cp, sink, save, harvestProgress(bar), byID)
	bar.Finish()
	summary := fmt.Sprintf("harvested %d items in %d pages for %s USD", st.Items, st.Pages, billing.FormatUSD(st.Spent))
	if job.IDs != nil {
		summary += fmt.Sprintf("; %d ids found, %d missing (each listed on stdout)", st.Found, st.Missing)
	}
	if st.Stopped != "" {
		summary += "; stopped: " + st.Stopped
	}
	fmt.Fprintln(e.stderr, summary)
	if err != nil {
		return fmt.Errorf("%w (the checkpoint %s holds the progress: run again with --resume)", err, cpPath)
	}
	return nil
}

// harvestProgress shows a harvest's stats on bar: items (the count and
// its rate), pages and cost.
func harvestProgress(bar progress) func(harvest.Stats) {
	return func(s harvest.Stats) {
		pages := "pages"
		if s.Pages == 1 {
			pages = "page"
		}
		bar.Detail(fmt.Sprintf("%d %s, %s USD", s.Pages, pages, billing.FormatUSD(s.Spent)))
		bar.Set(int64(s.Items))
	}
}

// kindsUsage lists the kinds with their arguments.
func kindsUsage() string {
	var parts []string
	for _, k := range harvest.KindNames() {
		parts = append(parts, k+" "+harvest.Kinds()[k])
	}
	return strings.Join(parts, "\n  ")
}

// harvestJob checks WHAT ARG and reads the id file of the by-ids kinds.
func harvestJob(what, arg, order string, maxItems int) (harvest.Job, error) {
	job := harvest.Job{Kind: what, Arg: arg, MaxItems: maxItems}
	takes, ok := harvest.Kinds()[what]
	if !ok {
		return job, usageError("unknown WHAT %q (one of %s)", what, strings.Join(harvest.KindNames(), ", "))
	}
	switch {
	case strings.EqualFold(order, "Latest"):
		job.Order = client.Latest
	case strings.EqualFold(order, "Top"):
		job.Order = client.Top
	default:
		return job, usageError("--type must be Latest or Top")
	}
	switch takes {
	case "FILE":
		ids, err := readIDs(arg)
		if err != nil {
			return job, err
		}
		job.IDs = ids
	case "QUERY", "USERNAME":
		if strings.TrimSpace(arg) == "" {
			return job, usageError("%s needs a %s", what, takes)
		}
	default:
		if id, err := strconv.ParseInt(arg, 10, 64); err != nil || id < 1 {
			return job, usageError("%s takes a decimal %s, not %q", what, takes, arg)
		}
	}
	return job, nil
}

// readIDs reads one decimal id a line (blank lines and # comments
// skipped); anything else is an error naming the line.
func readIDs(path string) ([]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ids: %w", err)
	}
	defer f.Close()
	return scanIDs(f, path)
}

// scanIDs is readIDs of r, named path in errors.
func scanIDs(r io.Reader, path string) ([]int64, error) {
	var ids []int64
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, err := strconv.ParseInt(line, 10, 64)
		if err != nil || id < 1 {
			return nil, usageError("%s:%d: %q is not an id", path, n, line)
		}
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ids: %w", err)
	}
	if len(ids) == 0 {
		return nil, usageError("%s holds no ids", path)
	}
	return ids, nil
}

// defaultCheckpoint is FILE.checkpoint beside --out, or a file named after
// the job and the database in the current directory.
func defaultCheckpoint(what, arg, db, out string) string {
	if out != "" {
		return out + ".checkpoint"
	}
	h := sha256.Sum256([]byte(db + "\x00" + what + "\x00" + arg))
	return "harvest-" + what + "-" + hex.EncodeToString(h[:4]) + ".checkpoint"
}

// startCheckpoint is a fresh checkpoint, or with resume the one at path
// (which must be of the same harvest: an error names what differs).
// Without resume, an unfinished checkpoint at path is an error rather than
// lost.
func startCheckpoint(path string, resume bool, base string, job harvest.Job) (*harvest.Checkpoint, error) {
	fresh := harvest.NewCheckpoint(base, job)
	cp, err := harvest.LoadCheckpoint(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fresh, nil
	case err != nil:
		return nil, err
	case !resume && !cp.Done:
		return nil, fmt.Errorf("an unfinished harvest left %s: run with --resume to continue it, or delete it", path)
	case !resume:
		return fresh, nil
	}
	if err := cp.Check(base, job); err != nil {
		return nil, fmt.Errorf("cannot resume from %s: %w (run with its arguments, or delete it)", path, err)
	}
	// A checkpoint of an earlier release names the harvest from now on.
	cp.Type, cp.IDsHash = cmp.Or(cp.Type, fresh.Type), cmp.Or(cp.IDsHash, fresh.IDsHash)
	return cp, nil
}
