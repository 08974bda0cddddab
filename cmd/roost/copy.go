package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/roostapi/roost/internal/store/transfer"
)

func cmdCopy(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "copy", "copy --from DB --to DB")
	from := fs.String("from", "", "database to copy: SQLite file path or postgres:// URL (required)")
	to := fs.String("to", "", "database to copy into, created or migrated as needed (required)")
	tuningFlag(fs, e)
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return usageError("--from and --to are both required")
	}
	if *from == *to {
		return usageError("--from and --to name the same database")
	}
	src, err := openStore(ctx, e, *from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := openStore(ctx, e, *to)
	if err != nil {
		return err
	}
	defer dst.Close()
	source, ok := src.(transfer.Source)
	if !ok {
		return fmt.Errorf("copy: %s cannot be read whole", *from)
	}
	dest, ok := dst.(transfer.Destination)
	if !ok {
		return fmt.Errorf("copy: %s cannot take a copy", *to)
	}
	var progress io.Writer
	if isTerminal(e.stderr) {
		progress = e.stderr
	}
	sent, err := transfer.Copy(ctx, source, dest, progress)
	if err != nil {
		return err
	}
	if err := copyWorld(ctx, src, dst); err != nil {
		return err
	}
	after, err := dst.Counts(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TABLE\tCOPIED\tIN DESTINATION\t")
	names := make([]string, 0, len(after))
	for n := range after {
		names = append(names, n)
	}
	for n := range sent { // the gateway's tables, which Counts leaves out
		if _, ok := after[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		in := "-" // not counted (the gateway's tables)
		if v, ok := after[n]; ok {
			in = strconv.FormatInt(v, 10)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t\n", n, sent[n], in)
	}
	return tw.Flush()
}

// copyWorld copies the world row (the gen seed, the living world's tick
// and clock), so that the copy lives on as the original would.
func copyWorld(ctx context.Context, src, dst store) error {
	st, err := src.World().State(ctx)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if err := dst.World().Put(ctx, st); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	return nil
}
