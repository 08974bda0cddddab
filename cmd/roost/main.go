// Command roost serves a social-data HTTP API (docs/api.md) from an embedded
// SQLite file or a PostgreSQL database, and manages what it serves:
// generated networks, imported archives, API keys and copies between
// engines. Run `roost --help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/roostapi/roost/internal/store/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a command runs with: its streams and logger. Commands write
// results to stdout and everything for people to stderr.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// lookupEnv reads the process environment (ROOST_* settings).
	lookupEnv func(string) (string, bool)
	// progressEvery is how often progress is written where stderr is not
	// a terminal (progressInterval; tests shorten it).
	progressEvery time.Duration
	// madeFlags, when set, is given each flag set a command makes (the
	// documentation test reads the real flags of every command).
	madeFlags func(*flag.FlagSet)
	// sqliteTuning is --sqlite-tuning when given (tuningFlag).
	sqliteTuning *sqlite.Tuning
}

// progressInterval is how often a long command writes a progress line to
// a standard error that is not a terminal.
const progressInterval = 5 * time.Second

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "serve the API (fills an empty database with the demo network first)", cmdServe},
		{"gen", "write a deterministic synthetic network into a database", cmdGen},
		{"seed", "write fixtures (a world written by hand in JSON or YAML) into a database", cmdSeed},
		{"live", "make events of the living world (posts, likes, follows…) without a server", cmdLive},
		{"import", "import tweet archives (v1.1, v2, GraphQL, data exports, API pages)", cmdImport},
		{"keys", "create, list, top up, limit, make faulty (sandbox) and revoke API keys", cmdKeys},
		{"copy", "copy a whole database between engines (SQLite, PostgreSQL)", cmdCopy},
		{"harvest", "walk an endpoint of a compatible API into a database or a file", cmdHarvest},
		{"backup", "take a consistent copy of a SQLite database, also while it serves", cmdBackup},
		{"restore", "put a backup back in place of a SQLite database", cmdRestore},
		{"bench", "measure page latency and memory on a database and print the figures", cmdBench},
		{"counts", "count the posts a search query matches by minute, hour or day", cmdCounts},
		{"top", "rank the hashtags, mentions, links, authors… of the posts a query matches", cmdTop},
		{"export", "write the posts a query matches as CSV, JSON lines, API v1.1 or v2, or ids", cmdExport},
		{"network", "write the network of who replied to, quoted, reposted and mentioned whom", cmdNetwork},
		{"redact", "delete posts or accounts as the network did, for good (tombstones keep them out)", cmdRedact},
	}
}

// usageErr is a command-line mistake: its message is printed with the
// usage hint and the exit status is 2.
type usageErr struct{ msg string }

func (e *usageErr) Error() string { return e.msg }

// usageError makes a usage error.
func usageError(format string, a ...any) error {
	return &usageErr{msg: fmt.Sprintf(format, a...)}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, lookupEnv: os.LookupEnv, progressEvery: progressInterval,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	if len(args) == 0 {
		topUsage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		topUsage(stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, version())
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		var ue *usageErr
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "roost %s: %v\nRun 'roost %s --help' for usage.\n", c.name, ue, c.name)
			return 2
		default:
			fmt.Fprintf(stderr, "roost %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "roost: unknown command %q\nRun 'roost --help' for usage.\n", args[0])
	return 2
}

func topUsage(w io.Writer) {
	fmt.Fprintln(w, `roost serves a social-data API from what it holds: imported archives,
harvested API responses or a generated network. A running server
describes its API at /docs and /openapi.json.

Usage: roost COMMAND [flags]

Commands:`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, `
--db takes a SQLite file path (the default engine) or a postgres:// URL;
--sqlite-tuning=off (or ROOST_SQLITE_TUNING=off) opens SQLite without the
pieces that reach into its internals (docs/operating.md).
Run 'roost COMMAND --help' for the flags of a command.`)
}

// newFlags makes a command's flag set; parse errors become usage errors
// and -h prints the command's usage to stdout.
func newFlags(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if e.madeFlags != nil {
		e.madeFlags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "Usage: roost %s\n\nFlags:\n", synopsis)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parse parses flags, mapping errors to usage errors, and refuses stray
// arguments unless positional is true.
func parse(fs *flag.FlagSet, args []string, positional bool) error {
	// The flag package prints the whole usage on any mistake; only -h
	// asks for it: a mistake gets its message and a one-line hint.
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return err
		}
		return usageError("%v", err)
	}
	if !positional && fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// version names the build: the module version (a tagged release, or
// "(devel)" for a build from a work tree) and the Go release.
func version() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return "roost " + v + " " + runtime.Version()
}
