package importer

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
)

// source is one input stream: a file or a zip member, gunzipped when it is
// gzip-compressed. open may be called again to read it from the start.
type source struct {
	name string
	path string // the file on disk, for finding an export's neighbours
	open func() (io.ReadCloser, error)
}

// countingReader counts the bytes read from a file, for progress.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// countingReaderAt counts the bytes a zip reader reads.
type countingReaderAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zipMagic  = []byte("PK\x03\x04")
)

// gunzip wraps rc in a gzip reader when it starts with the gzip magic.
func gunzip(rc io.ReadCloser) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(rc, 1<<16)
	head, _ := br.Peek(2)
	if !bytes.Equal(head, gzipMagic) {
		return readerOf{br, rc}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return readerOf{zr, closers{zr, rc}}, nil
}

type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// fileSource reads a file from disk, counting the bytes read.
func fileSource(p string, counter *atomic.Int64) *source {
	return &source{name: p, path: p, open: func() (io.ReadCloser, error) {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("open input: %w", err)
		}
		return gunzip(readerOf{&countingReader{f, counter}, f})
	}}
}

// isZip reports whether the file at p is a zip archive.
func isZip(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, fmt.Errorf("open input: %w", err)
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], zipMagic), nil
}

var (
	tweetsPart    = regexp.MustCompile(`^tweets?(-part\d+)?\.js$`)
	likePart      = regexp.MustCompile(`^like(-part\d+)?\.js$`)
	deletedPart   = regexp.MustCompile(`^deleted-tweets?(-part\d+)?\.js$`)
	followerPart  = regexp.MustCompile(`^follower(-part\d+)?\.js$`)
	followingPart = regexp.MustCompile(`^following(-part\d+)?\.js$`)
)

// zipExport opens an export zip as an export set. The caller closes the
// returned closer when done.
func zipExport(p string, counter *atomic.Int64) (*exportSet, io.Closer, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, fmt.Errorf("open input: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", p, err)
	}
	zr, err := zip.NewReader(&countingReaderAt{f, counter}, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a readable zip: %w", p, err)
	}
	x := &exportSet{name: p}
	for _, zf := range zr.File {
		base := path.Base(zf.Name)
		if zf.FileInfo().IsDir() || strings.HasPrefix(base, "._") {
			continue
		}
		s := &source{name: p + ":" + zf.Name, open: func() (io.ReadCloser, error) {
			rc, err := zf.Open()
			if err != nil {
				return nil, fmt.Errorf("open %s in %s: %w", zf.Name, p, err)
			}
			return gunzip(rc)
		}}
		switch {
		case base == "account.js":
			x.account = s
		case base == "profile.js":
			x.profile = s
		case base == "note-tweet.js":
			x.notes = s
		case tweetsPart.MatchString(base):
			x.tweets = append(x.tweets, s)
		case likePart.MatchString(base):
			x.likes = append(x.likes, s)
		case deletedPart.MatchString(base):
			x.deleted = append(x.deleted, s)
		case followerPart.MatchString(base):
			x.followers = append(x.followers, s)
		case followingPart.MatchString(base):
			x.following = append(x.following, s)
		}
	}
	for _, srcs := range [][]*source{x.tweets, x.likes, x.deleted, x.followers, x.following} {
		sort.Slice(srcs, func(i, j int) bool { return srcs[i].name < srcs[j].name })
	}
	if len(x.tweets)+len(x.likes)+len(x.deleted)+len(x.followers)+len(x.following) == 0 && x.account == nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: zip holds no data/tweets.js, data/like.js, data/deleted-tweets.js, "+
			"data/follower.js, data/following.js or data/account.js", p)
	}
	return x, f, nil
}

// neighbours builds the export set of a loose export file: account.js,
// profile.js and note-tweet.js beside it.
func neighbours(src *source, counter *atomic.Int64) *exportSet {
	x := &exportSet{name: src.name}
	dir := filepath.Dir(src.path)
	for name, dst := range map[string]**source{"account.js": &x.account, "profile.js": &x.profile, "note-tweet.js": &x.notes} {
		for _, cand := range []string{name, name + ".gz"} {
			p := filepath.Join(dir, cand)
			if _, err := os.Stat(p); err == nil {
				*dst = fileSource(p, counter)
				break
			}
		}
	}
	return x
}
