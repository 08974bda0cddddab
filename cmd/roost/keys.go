package main

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"roost/billing"
	"roost/social"
)

func cmdKeys(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(e.stdout, `Usage: roost keys SUBCOMMAND --db DB [flags]

Subcommands:
  create --credits USD [--name TEXT] [--rate-limit N]   make a key; prints only the key
  list                                                  list keys (id, name, prefix, balance, state)
  topup  --id ID --credits USD                          add credit to a key
  revoke --id ID                                        revoke a key (its ledger stays)

Amounts are decimal US dollars with at most 6 decimals (micro-USD).
`)
		if len(args) == 0 {
			return usageError("missing subcommand")
		}
		return nil
	}
	switch args[0] {
	case "create":
		return keysCreate(ctx, e, args[1:])
	case "list":
		return keysList(ctx, e, args[1:])
	case "topup":
		return keysTopUp(ctx, e, args[1:])
	case "revoke":
		return keysRevoke(ctx, e, args[1:])
	}
	return usageError("unknown subcommand %q (create, list, topup, revoke)", args[0])
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

func keysCreate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys create", "keys create --db DB --credits USD [--name TEXT] [--rate-limit N]")
	db := fs.String("db", defaultDB, "database: SQLite file path or postgres:// URL")
	var credits usdFlag
	fs.Var(&credits, "credits", "opening credit in US dollars, e.g. 10 or 0.5 (required)")
	name := fs.String("name", "", "a name for people to recognise the key by")
	rate := fs.Int("rate-limit", 0, "requests per minute for this key (0: the server's default)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if !credits.set {
		return usageError("--credits is required")
	}
	if *rate < 0 {
		return usageError("--rate-limit must not be negative")
	}
	s, err := openStore(ctx, *db, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	key, _, err := createKey(ctx, s, *name, credits.micros, *rate)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, key)
	return nil
}

// createKey makes and stores a new key, returning the key itself (never
// stored) and its record.
func createKey(ctx context.Context, s social.Accounts, name string, credit int64, rate int) (string, social.APIKey, error) {
	key, digest, prefix := billing.NewKey()
	k, err := s.CreateKey(ctx, social.APIKey{Name: name, Prefix: prefix, Digest: digest, RateLimit: rate}, credit)
	if err != nil {
		return "", k, fmt.Errorf("create key: %w", err)
	}
	return key, k, nil
}

func keysList(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys list", "keys list --db DB")
	db := fs.String("db", defaultDB, "database: SQLite file path or postgres:// URL")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	s, err := openStore(ctx, *db, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	keys, err := s.Keys(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tBALANCE_USD\tRATE_LIMIT\tCREATED\tSTATE")
	for _, k := range keys {
		state := "active"
		if k.RevokedAt != nil {
			state = "revoked " + k.RevokedAt.Format("2006-01-02T15:04:05Z")
		}
		rate := "default"
		if k.RateLimit > 0 {
			rate = strconv.Itoa(k.RateLimit) + "/min"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s…\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, billing.FormatUSD(k.Balance), rate,
			k.CreatedAt.Format("2006-01-02T15:04:05Z"), state)
	}
	return tw.Flush()
}

func keysTopUp(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys topup", "keys topup --db DB --id ID --credits USD")
	db := fs.String("db", defaultDB, "database: SQLite file path or postgres:// URL")
	id := fs.Int64("id", 0, "the key's id (see 'roost keys list') (required)")
	var credits usdFlag
	fs.Var(&credits, "credits", "credit to add in US dollars (required, > 0)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *id <= 0 {
		return usageError("--id is required")
	}
	if !credits.set || credits.micros <= 0 {
		return usageError("--credits must be more than 0")
	}
	s, err := openStore(ctx, *db, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	k, err := s.TopUp(ctx, *id, credits.micros)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "key %d balance %s USD\n", k.ID, billing.FormatUSD(k.Balance))
	return nil
}

func keysRevoke(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys revoke", "keys revoke --db DB --id ID")
	db := fs.String("db", defaultDB, "database: SQLite file path or postgres:// URL")
	id := fs.Int64("id", 0, "the key's id (see 'roost keys list') (required)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *id <= 0 {
		return usageError("--id is required")
	}
	s, err := openStore(ctx, *db, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Revoke(ctx, *id); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "key %d revoked\n", *id)
	return nil
}
