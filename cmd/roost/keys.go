package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/roostapi/roost/internal/api/admin"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/social"
)

const keysUsage = `Usage: roost keys SUBCOMMAND [--db DB] [flags]

Subcommands:
  create --credits USD [--name TEXT] [--rate-limit N] [--fault PLAN]   make a key; prints only the key
  list                                                  list keys (id, name, prefix, balance, limit, fault, state)
  topup  --id ID --credits USD                          add credit to a key
  limit  --id ID --rate-limit N                         set a key's requests per minute (0: the server's default)
  fault  --id ID --fault PLAN                           make a share of the key's requests fail (sandbox; "none": off)
  revoke --id ID                                        revoke a key (its ledger stays)
  rotate --id ID                                        give a key a new secret (printed once; the old one stops working)
  ledger --id ID [--since T] [--until T] [--endpoint E] [--limit N] [--cursor C]   a key's ledger rows, oldest first
  usage  [--id ID] [--since T] [--until T] [--endpoint E]                          spending by key, endpoint and UTC day

Without --db the commands use ./roost.db and say so. Amounts are decimal US
dollars with at most 6 decimals (micro-USD); times are RFC 3339 or
YYYY-MM-DD. The admin HTTP API of 'roost serve' does the same things.

A fault PLAN (the sandbox; the X-Roost-Fault request header takes the same
text for one request) is comma-separated items:
  429=SHARE              answer this share of the key's requests 429 Too many requests
  500=SHARE              answer this share 500 Failed to fetch data from Twitter
  delay=DURATION         wait this long (at most 10s) before answering ...
  delay_share=SHARE      ... this share of requests (default 1: every one)
  retry_after=SECONDS    Retry-After of an injected 429 (default 1; 0 to 3600)
  seed=N                 a deterministic sequence: every 1,000 consecutive requests
                         hold exactly the shares (without it each request is a fresh draw)
  latest_cursor_pages=N  a Latest search gives no next_cursor from its Nth page on
                         (continue with max_id:)
SHARE is a decimal from 0 to 1 with at most 3 decimals. E.g.
  roost keys fault --id 3 --fault 429=0.1,500=0.05,delay=200ms,seed=7
Injected failures are never charged; an injected 429 takes no rate-limit token.
`

func cmdKeys(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usageError("missing subcommand (create, list, topup, limit, fault, revoke, rotate, ledger, usage)")
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(e.stdout, keysUsage)
		return nil
	}
	sub := map[string]func(context.Context, *env, []string) error{
		"create": keysCreate, "list": keysList, "topup": keysTopUp, "limit": keysLimit, "fault": keysFault,
		"revoke": keysRevoke, "rotate": keysRotate, "ledger": keysLedger, "usage": keysUsageCmd,
	}
	run, ok := sub[args[0]]
	if !ok {
		return usageError("unknown subcommand %q (create, list, topup, limit, fault, revoke, rotate, ledger, usage)", args[0])
	}
	return run(ctx, e, args[1:])
}

// usdFlag is a flag holding an exact dollar amount in micro-USD.
type usdFlag struct {
	micros int64
	set    bool
}

func (f *usdFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return billing.FormatUSD(f.micros)
}

func (f *usdFlag) Set(s string) error {
	v, err := billing.ParseUSD(s)
	if err != nil {
		return err
	}
	f.micros, f.set = v, true
	return nil
}

// keysCommand is a keys subcommand's flags: --db and its own.
type keysCommand struct {
	fs *flag.FlagSet
	db *string
	id *int64
}

func newKeysCommand(e *env, name, synopsis string, needID bool) *keysCommand {
	c := &keysCommand{fs: newFlags(e, "keys "+name, "keys "+synopsis)}
	c.db = c.fs.String("db", defaultDB, "database: SQLite file path or postgres:// URL")
	tuningFlag(c.fs, e)
	if needID {
		c.id = c.fs.Int64("id", 0, "the key's id (see 'roost keys list') (required)")
	}
	return c
}

// parse parses args and checks --id, and that every text flag but --db (a
// path or a URL) is text that any store can hold (social.CheckText).
func (c *keysCommand) parse(args []string) error {
	if err := parse(c.fs, args, false); err != nil {
		return err
	}
	var bad error
	c.fs.Visit(func(f *flag.Flag) {
		if err := social.CheckText(f.Value.String()); err != nil && f.Name != "db" && bad == nil {
			bad = usageError("--%s %v", f.Name, err)
		}
	})
	if bad != nil {
		return bad
	}
	if c.id != nil && *c.id <= 0 {
		return usageError("--id is required")
	}
	return nil
}

// open opens the administration service, saying which database it uses
// when --db was not given.
func (c *keysCommand) open(ctx context.Context, e *env) (*admin.Service, func(), error) {
	given := false
	c.fs.Visit(func(f *flag.Flag) { given = given || f.Name == "db" })
	if !given {
		fmt.Fprintf(e.stderr, "using database %s (SQLite in this directory; --db chooses another)\n", *c.db)
	}
	s, err := openStore(ctx, e, *c.db)
	if err != nil {
		return nil, nil, err
	}
	return &admin.Service{Store: s}, func() { s.Close() }, nil
}

func keysCreate(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "create", "create --db DB --credits USD [--name TEXT] [--rate-limit N] [--fault PLAN]", false)
	var credits usdFlag
	c.fs.Var(&credits, "credits", "opening credit in US dollars, e.g. 10 or 0.5 (required)")
	name := c.fs.String("name", "", "a name for people to recognise the key by")
	rate := c.fs.Int("rate-limit", 0, "requests per minute for this key (0: the server's default)")
	plan := c.fs.String("fault", "", "the key's fault plan (see 'roost keys --help'; default: none)")
	if err := c.parse(args); err != nil {
		return err
	}
	if !credits.set {
		return usageError("--credits is required")
	}
	if *rate < 0 {
		return usageError("--rate-limit must not be negative")
	}
	if _, err := fault.Parse(*plan); err != nil {
		return usageError("--fault %v", err)
	}
	svc, done, err := c.open(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	key, _, err := svc.Create(ctx, *name, credits.micros, *rate, *plan)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, key)
	return nil
}

func keysList(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "list", "list --db DB", false)
	if err := c.parse(args); err != nil {
		return err
	}
	svc, done, err := c.open(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	keys, err := svc.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tBALANCE_USD\tRATE_LIMIT\tFAULT\tCREATED\tSTATE")
	for _, k := range keys {
		state := "active"
		if k.RevokedAt != nil {
			state = "revoked " + k.RevokedAt.Format(time.RFC3339)
		}
		rate := "default"
		if k.RateLimit > 0 {
			rate = strconv.Itoa(k.RateLimit) + "/min"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s…\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, billing.FormatUSD(k.Balance), rate,
			faultText(k.Fault), k.CreatedAt.Format(time.RFC3339), state)
	}
	return tw.Flush()
}

func keysTopUp(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "topup", "topup --db DB --id ID --credits USD", true)
	var credits usdFlag
	c.fs.Var(&credits, "credits", "credit to add in US dollars (required, > 0)")
	if err := c.parse(args); err != nil {
		return err
	}
	if !credits.set || credits.micros <= 0 {
		return usageError("--credits must be more than 0")
	}
	return c.change(ctx, e, func(svc *admin.Service) (social.APIKey, error) {
		return svc.TopUp(ctx, *c.id, credits.micros)
	}, func(k social.APIKey) string { return "balance " + billing.FormatUSD(k.Balance) + " USD" })
}

// change opens the service, makes one change to the key --id and prints
// "key ID " and what show says of the key it became.
func (c *keysCommand) change(ctx context.Context, e *env, do func(*admin.Service) (social.APIKey, error),
	show func(social.APIKey) string) error {
	svc, done, err := c.open(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	k, err := do(svc)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "key %d %s\n", k.ID, show(k))
	return nil
}

func keysLimit(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "limit", "limit --db DB --id ID --rate-limit N", true)
	rate := c.fs.Int("rate-limit", -1, "requests per minute for this key (0: the server's default) (required)")
	if err := c.parse(args); err != nil {
		return err
	}
	if *rate < 0 {
		return usageError("--rate-limit is required and must not be negative")
	}
	return c.change(ctx, e, func(svc *admin.Service) (social.APIKey, error) {
		return svc.SetRateLimit(ctx, *c.id, *rate)
	}, func(k social.APIKey) string { return "rate limit " + rateText(k.RateLimit) })
}

func rateText(n int) string {
	if n == 0 {
		return "the server's default"
	}
	return strconv.Itoa(n) + " per minute"
}

func keysFault(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "fault", "fault --db DB --id ID --fault PLAN", true)
	plan := c.fs.String("fault", "", "the key's fault plan, e.g. 429=0.1,500=0.05,seed=7 (\"none\": off) (required)")
	if err := c.parse(args); err != nil {
		return err
	}
	given := false
	c.fs.Visit(func(f *flag.Flag) { given = given || f.Name == "fault" })
	if !given {
		return usageError("--fault is required (\"none\" turns faults off)")
	}
	if _, err := fault.Parse(*plan); err != nil {
		return usageError("--fault %v", err)
	}
	return c.change(ctx, e, func(svc *admin.Service) (social.APIKey, error) {
		return svc.SetFault(ctx, *c.id, *plan)
	}, func(k social.APIKey) string { return "fault " + faultText(k.Fault) })
}

func faultText(plan string) string {
	if plan == "" {
		return fault.None
	}
	return plan
}

func keysRevoke(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "revoke", "revoke --db DB --id ID", true)
	if err := c.parse(args); err != nil {
		return err
	}
	svc, done, err := c.open(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	if _, err := svc.Revoke(ctx, *c.id); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "key %d revoked\n", *c.id)
	return nil
}

func keysRotate(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "rotate", "rotate --db DB --id ID", true)
	if err := c.parse(args); err != nil {
		return err
	}
	svc, done, err := c.open(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	key, _, err := svc.Rotate(ctx, *c.id)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, key)
	return nil
}

// timeFlag is a flag holding an RFC 3339 time or a YYYY-MM-DD date (UTC).
type timeFlag struct{ t time.Time }

func (f *timeFlag) String() string {
	if f == nil || f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339)
}

func (f *timeFlag) Set(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t, err = time.Parse(time.DateOnly, s)
	}
	if err != nil {
		return errors.New("want an RFC 3339 time or YYYY-MM-DD")
	}
	f.t = t
	return nil
}

func keysLedger(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "ledger", "ledger --db DB --id ID [--since T] [--until T] [--endpoint E] [--limit N] [--cursor C]", true)
	var since, until timeFlag
	c.fs.Var(&since, "since", "rows from this time (RFC 3339 or YYYY-MM-DD)")
	c.fs.Var(&until, "until", "rows before this time")
	endpoint := c.fs.String("endpoint", "", "rows of this endpoint only (e.g. search)")
	limit := c.fs.Int("limit", admin.DefaultLedgerPage, "rows on the page")
	cursor := c.fs.Int64("cursor", 0, "continue after this row id (the last line printed)")
	if err := c.parse(args); err != nil {
		return err
	}
	svc, done, err := c.open(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	page, err := svc.Ledger(ctx, social.LedgerFilter{KeyID: *c.id, Since: since.t, Until: until.t, Endpoint: *endpoint,
		AfterID: *cursor, Limit: *limit})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tKIND\tENDPOINT\tITEMS\tAMOUNT_USD\tBALANCE_AFTER_USD\tREQUEST_ID")
	for _, l := range page.Items {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", l.ID, l.CreatedAt.Format(time.RFC3339Nano), l.Kind, l.Endpoint,
			l.Items, billing.FormatUSD(l.Amount), billing.FormatUSD(l.BalanceAfter), l.RequestID)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if page.Next != nil {
		fmt.Fprintf(e.stderr, "more rows follow: --cursor %d\n", page.Next.ID)
	}
	return nil
}

func keysUsageCmd(ctx context.Context, e *env, args []string) error {
	c := newKeysCommand(e, "usage", "usage --db DB [--id ID] [--since T] [--until T] [--endpoint E]", false)
	id := c.fs.Int64("id", 0, "one key's usage (default: every key)")
	var since, until timeFlag
	c.fs.Var(&since, "since", "debits from this time (RFC 3339 or YYYY-MM-DD)")
	c.fs.Var(&until, "until", "debits before this time")
	endpoint := c.fs.String("endpoint", "", "debits of this endpoint only")
	if err := c.parse(args); err != nil {
		return err
	}
	svc, done, err := c.open(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	rows, err := svc.Usage(ctx, social.UsageFilter{KeyID: *id, Since: since.t, Until: until.t, Endpoint: *endpoint})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tENDPOINT\tDAY\tREQUESTS\tITEMS\tAMOUNT_USD")
	for _, u := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%s\n", u.KeyID, u.Endpoint, u.Day.Format(time.DateOnly), u.Requests, u.Items,
			billing.FormatUSD(u.Amount))
	}
	return tw.Flush()
}
