package edit

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/ingest/importer"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/fixture"
)

// Fixture writes a fixture document (data, in format f) in one
// transaction, as roost seed does; relative and left-out times count
// from its "now", else from now (fixture.DefaultNow when zero).
func (e *Editor) Fixture(ctx context.Context, data []byte, f fixture.Format, now time.Time) (fixture.Result, error) {
	doc, err := fixture.Read("", data, f, now)
	if err != nil {
		return fixture.Result{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	res, _, err := fixture.Seed(ctx, e.look, e.w, []fixture.File{{Doc: doc}})
	return res, err
}

// Import reads body as roost import reads a file (any of its formats,
// detected unless opt.Format names one) and writes what it holds, a batch
// of opt.BatchSize posts per transaction, through plain Writes (never a
// bulk load, which a serving database must not take).
func (e *Editor) Import(ctx context.Context, body io.Reader, opt importer.Options) (importer.Summary, error) {
	dir, err := os.MkdirTemp("", "roost-import-")
	if err != nil {
		return importer.Summary{}, fmt.Errorf("import: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "body")
	f, err := os.Create(path)
	if err != nil {
		return importer.Summary{}, fmt.Errorf("import: %w", err)
	}
	_, err = io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return importer.Summary{}, fmt.Errorf("import: read the body: %w", err)
	}
	sum, err := importer.Import(ctx, plainWriter{e.w}, []string{path}, opt)
	// What the summary says of the file, it says of the body.
	for i := range sum.Errors {
		sum.Errors[i].File = "body"
	}
	if n, ok := sum.Repaired[path]; ok {
		sum.Repaired = map[string]int{"body": n}
	}
	switch {
	case err == nil:
		return sum, nil
	case ctx.Err() != nil:
		return sum, fmt.Errorf("import: %w", err)
	}
	// A body that cannot be read as it asks (a strict import's bad
	// record, an unknown format) is a refused value.
	return sum, fmt.Errorf("import: %s: %w", strings.ReplaceAll(err.Error(), path, "body"), social.ErrInvalid)
}

// plainWriter hides a store's bulk loading from the importer.
type plainWriter struct{ w social.Writer }

func (p plainWriter) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return p.w.Write(ctx, b)
}
