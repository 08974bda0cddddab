package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// maxLine is the longest JSONL line accepted; a longer one is reported and
// skipped, so memory stays bounded whatever the input.
const maxLine = 64 << 20

// linesPerChunk is how many JSONL lines one decoding job holds.
const linesPerChunk = 128

// valueFunc decodes one record. key is "" for a top-level value (a JSONL
// line, a whole document or an element of a top-level array) and the name
// of the member for elements streamed out of an envelope object
// ("statuses", "tweets"…). at locates the record for error reports. It
// must be safe for concurrent use: JSONL lines are decoded in parallel.
type valueFunc func(key string, raw []byte, at RecordError) []item

// streamer walks the JSON values of one input.
type streamer struct {
	name    string
	workers int
	// streamKeys are members of a top-level object whose array value is
	// streamed element by element instead of being decoded whole.
	streamKeys map[string]bool
}

// run reads r to the end and passes every item that fn returns, in input
// order, to emit. JSONL (the first line is a complete JSON value) is
// decoded line by line in parallel; anything else as a sequence of JSON
// documents.
func (s *streamer) run(ctx context.Context, r *bufio.Reader, fn valueFunc, emit func(item) error) error {
	peek, _ := r.Peek(r.Size())
	peek = bytes.TrimLeft(peek, " \t\r\n\ufeff")
	if nl := bytes.IndexByte(peek, '\n'); nl > 0 {
		if line := bytes.TrimSpace(peek[:nl]); len(line) > 0 && json.Valid(line) {
			return s.lines(ctx, r, fn, emit)
		}
	}
	return s.docs(ctx, r, fn, emit)
}

type chunk struct {
	lines [][]byte
	first []int // line numbers
	out   chan []item
}

// lines decodes JSONL with a reader, a few decoding workers and an ordered
// hand-over, so records come out in input order.
func (s *streamer) lines(parent context.Context, r *bufio.Reader, fn valueFunc, emit func(item) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	workers := max(s.workers, 1)
	jobs := make(chan *chunk, workers)
	order := make(chan *chunk, workers*2)
	var readErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				var out []item
				for i, line := range c.lines {
					out = append(out, safeValue(fn, "", line, RecordError{File: s.name, Line: c.first[i]})...)
				}
				c.out <- out
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		c := &chunk{out: make(chan []item, 1)}
		send := func() bool {
			if len(c.lines) == 0 {
				return true
			}
			select {
			case order <- c:
			case <-ctx.Done():
				return false
			}
			select {
			case jobs <- c:
			case <-ctx.Done():
				return false
			}
			c = &chunk{out: make(chan []item, 1)}
			return true
		}
		no := 0
		for {
			line, tooLong, err := readLine(r)
			if err == nil || len(line) > 0 || tooLong {
				no++
			}
			if tooLong {
				c.lines = append(c.lines, nil)
				c.first = append(c.first, -no)
			} else if len(bytes.TrimSpace(line)) > 0 {
				c.lines = append(c.lines, line)
				c.first = append(c.first, no)
			}
			if len(c.lines) >= linesPerChunk {
				if !send() {
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = fmt.Errorf("read %s: %w", s.name, err)
				}
				send()
				return
			}
		}
	}()
	var emitErr error
	for c := range order {
		var out []item
		select {
		case out = <-c.out:
		case <-ctx.Done():
		}
		for _, it := range out {
			if emitErr == nil {
				emitErr = emit(it)
			}
		}
		if emitErr != nil {
			cancel()
		}
	}
	cancel()
	wg.Wait()
	if emitErr != nil {
		return emitErr
	}
	if readErr != nil {
		return readErr
	}
	return parent.Err()
}

// readLine returns the next line (a fresh copy, without its newline). A
// line longer than maxLine is consumed and reported with tooLong.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		frag, e := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if e == nil {
			return bytes.TrimRight(line, "\r\n"), tooLong, nil
		}
		if !errors.Is(e, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), tooLong, e
		}
	}
}

// docs decodes a sequence of JSON documents: a top-level array is streamed
// element by element, a top-level object is decoded whole unless it holds
// one of streamKeys.
func (s *streamer) docs(ctx context.Context, r io.Reader, fn valueFunc, emit func(item) error) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	syntax := func(err error, path string) error {
		return emit(item{err: &RecordError{File: s.name, Path: path,
			Reason: fmt.Sprintf("invalid JSON at byte %d: %v; rest of the file skipped", dec.InputOffset(), err)}})
	}
	for doc := 0; ; doc++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return syntax(err, "$")
		}
		switch tok {
		case json.Delim('['):
			if err := s.array(ctx, dec, "", "$", fn, emit); err != nil {
				if errors.Is(err, errSyntax) {
					return syntax(err, "$")
				}
				return err
			}
		case json.Delim('{'):
			if err := s.object(ctx, dec, fn, emit); err != nil {
				if errors.Is(err, errSyntax) {
					return syntax(err, "$")
				}
				return err
			}
		default:
			at := RecordError{File: s.name, Path: fmt.Sprintf("$ (byte %d)", start)}
			at.Reason = fmt.Sprintf("expected a JSON object or array, found %v", tok)
			if err := emit(item{err: &at}); err != nil {
				return err
			}
		}
	}
}

// errSyntax marks a broken JSON stream: nothing after it can be read.
var errSyntax = errors.New("invalid JSON")

func (s *streamer) array(ctx context.Context, dec *json.Decoder, key, path string, fn valueFunc, emit func(item) error) error {
	for i := 0; dec.More(); i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%w: %v", errSyntax, err)
		}
		at := RecordError{File: s.name, Path: path + "[" + strconv.Itoa(i) + "]"}
		for _, it := range safeValue(fn, key, raw, at) {
			if err := emit(it); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: %v", errSyntax, err)
	}
	return nil
}

// object reads a top-level object whose '{' was consumed. Members named
// in streamKeys holding arrays are streamed; the rest is re-assembled and
// decoded as one value if no member was streamed.
func (s *streamer) object(ctx context.Context, dec *json.Decoder, fn valueFunc, emit func(item) error) error {
	var buf bytes.Buffer
	buf.WriteByte('{')
	streamed := false
	members := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", errSyntax, err)
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("%w: object key is %v", errSyntax, tok)
		}
		if s.streamKeys[key] {
			tok, err := dec.Token()
			if err != nil {
				return fmt.Errorf("%w: %v", errSyntax, err)
			}
			if tok == json.Delim('[') {
				streamed = true
				if err := s.array(ctx, dec, key, "$."+key, fn, emit); err != nil {
					return err
				}
				continue
			}
			// Not an array: keep it as a scalar member (null, say).
			if tok == json.Delim('{') {
				return fmt.Errorf("%w: member %q is an object", errSyntax, key)
			}
			v, _ := json.Marshal(tok)
			writeMember(&buf, &members, key, v)
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%w: %v", errSyntax, err)
		}
		writeMember(&buf, &members, key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: %v", errSyntax, err)
	}
	if streamed {
		return nil
	}
	buf.WriteByte('}')
	for _, it := range safeValue(fn, "", buf.Bytes(), RecordError{File: s.name, Path: "$"}) {
		if err := emit(it); err != nil {
			return err
		}
	}
	return nil
}

func writeMember(buf *bytes.Buffer, n *int, key string, v []byte) {
	if *n > 0 {
		buf.WriteByte(',')
	}
	*n++
	k, _ := json.Marshal(key)
	buf.Write(k)
	buf.WriteByte(':')
	buf.Write(v)
}

// safeValue runs fn, turning a panic in a decoder into a malformed record:
// no input may stop the import. It locates the items and repairs their
// text (repairText) on the decoding worker.
func safeValue(fn valueFunc, key string, raw []byte, at RecordError) (out []item) {
	if at.Line < 0 {
		at.Line = -at.Line
		at.Reason = fmt.Sprintf("line longer than %d MiB", maxLine>>20)
		return []item{{err: &at}}
	}
	defer func() {
		if p := recover(); p != nil {
			e := at
			e.Reason = fmt.Sprintf("decoder failure: %v", p)
			out = []item{{err: &e}}
		}
	}()
	out = fn(key, raw, at)
	for i := range out {
		out[i].at = at
		out[i].repair, out[i].repaired = repairText(&out[i].batch), true
	}
	return out
}

// bad builds a malformed-record item.
func bad(at RecordError, format string, args ...any) item {
	at.Reason = fmt.Sprintf(format, args...)
	return item{err: &at}
}
