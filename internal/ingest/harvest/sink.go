package harvest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/roostapi/roost/internal/ingest/importer"
	"github.com/roostapi/roost/internal/social"
)

// StoreSink writes pages into a roost database through the importer's
// reading of API responses, with the relation rows of user pages.
type StoreSink struct {
	W social.Writer
}

// Prepare reads the page's users, posts and relation rows into
// p.Values.
func (s StoreSink) Prepare(p *Page) error {
	if len(p.Raw) == 0 {
		p.Values = &social.Batch{}
		return nil
	}
	b, err := importer.DecodePage(p.Raw)
	if err != nil {
		return err
	}
	if p.Relation != nil {
		if err := p.Relation.Edges(p.Raw, b); err != nil {
			return err
		}
	}
	p.Values = b
	return nil
}

// Write stores the pages in one transaction: each user and post once, a
// later page's copy winning.
func (s StoreSink) Write(ctx context.Context, pages []Page) error {
	m := importer.NewMerger()
	for i := range pages {
		p := &pages[i]
		if p.Values == nil {
			if err := s.Prepare(p); err != nil {
				return err
			}
		}
		if err := m.Add(p.Values); err != nil {
			return err
		}
	}
	b, err := m.Batch()
	if err != nil {
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	if _, err := s.W.Write(ctx, b); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// FileSink appends one page a line to a JSON-lines file (gzip-compressed
// when its name ends in .gz, one gzip member a page), which roost import
// reads back. Offset is how many bytes hold whole pages.
type FileSink struct {
	f      *os.File
	gz     bool
	Offset int64
}

// OpenFile opens path for a harvest: a new file, or with resume the file
// of the interrupted run cut back to the offset its checkpoint names (a
// page written after the last checkpoint is dropped, and fetched again).
func OpenFile(path string, resume bool, offset int64) (*FileSink, error) {
	flags := os.O_RDWR | os.O_CREATE
	if !resume {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("harvest: %w", err)
	}
	if err := f.Truncate(offset); err != nil {
		f.Close()
		return nil, fmt.Errorf("harvest: cut %s back to %d bytes: %w", path, offset, err)
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("harvest: %w", err)
	}
	return &FileSink{f: f, gz: strings.HasSuffix(path, ".gz"), Offset: offset}, nil
}

// Write appends each page as one line and syncs the file once.
func (s *FileSink) Write(_ context.Context, pages []Page) error {
	var out bytes.Buffer
	for _, p := range pages {
		if len(p.Raw) == 0 {
			continue
		}
		var line bytes.Buffer
		if err := json.Compact(&line, p.Raw); err != nil {
			return fmt.Errorf("page is not JSON: %w", err)
		}
		line.WriteByte('\n')
		if !s.gz {
			out.Write(line.Bytes())
			continue
		}
		zw := gzip.NewWriter(&out)
		if _, err := zw.Write(line.Bytes()); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
	}
	if out.Len() == 0 {
		return nil
	}
	n, err := s.f.Write(out.Bytes())
	s.Offset += int64(n)
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// Close closes the file.
func (s *FileSink) Close() error { return s.f.Close() }

// LoadCheckpoint reads the checkpoint at path; a missing file is
// os.ErrNotExist (wrapped).
func LoadCheckpoint(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("harvest: checkpoint: %w", err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, fmt.Errorf("harvest: checkpoint %s is not readable: %w", path, err)
	}
	return &cp, nil
}

// SaveCheckpoint writes cp to path atomically: a crash leaves the old
// checkpoint or the new one, never a mix.
func SaveCheckpoint(path string, cp *Checkpoint) error {
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("harvest: checkpoint: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("harvest: checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("harvest: checkpoint: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
