package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strconv"
	"sync"
)

// HeaderItems is the header, or trailer, in which roost tells how many
// items it charged for a streamed answer: a header when the count is known
// before the body (a network), a trailer after the body otherwise (an
// export).
const HeaderItems = "X-Roost-Items"

// Stream is a file the server streams (an export or a network), read as it
// arrives. Read it to its end, then Close it; Close alone abandons it.
//
// Budget: the stream holds its reservation until it is read to its end or
// closed. Read to its end, it is charged the items the server says it
// charged (HeaderItems); closed before its end, or without that count, it
// is charged its whole reservation, since the server charges an export's
// chunks before sending them and may have charged more than was read.
type Stream struct {
	body io.ReadCloser
	// ContentType is the media type of the file.
	ContentType string
	// Filename is the name the server suggests for the file.
	Filename string

	budget   *budget
	reserved int64 // micro-USD reserved
	most     int64 // items reserved
	header   string
	trailer  func() string

	once    sync.Once
	mu      sync.Mutex
	items   int64
	counted bool
}

// stream opens a streamed answer to req, which can hold at most most
// items, holding their cost of the budget until the stream ends.
func (c *Client) stream(ctx context.Context, req request, most int64) (*Stream, error) {
	req.maxItems = most
	reserved, err := c.budget.reserve(most)
	if err != nil {
		return nil, err
	}
	var st *Stream
	err = c.retrying(ctx, req, func() error {
		resp, err := c.open(ctx, req, nil)
		if err != nil {
			return err
		}
		st = &Stream{body: resp.Body, ContentType: resp.Header.Get("Content-Type"), budget: c.budget,
			reserved: reserved, most: most, header: resp.Header.Get(HeaderItems),
			trailer: func() string { return resp.Trailer.Get(HeaderItems) }}
		if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
			st.Filename = params["filename"]
		}
		return nil
	})
	if err != nil {
		c.budget.settle(reserved, 0)
		return nil, err
	}
	return st, nil
}

// Read reads the file. At its end the stream is settled with the budget.
func (s *Stream) Read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	if errors.Is(err, io.EOF) {
		s.settle(true)
	} else if err != nil {
		err = fmt.Errorf("client: stream: %w", err)
	}
	return n, err
}

// Close ends the stream (abandoning what is left of it) and settles it
// with the budget.
func (s *Stream) Close() error {
	err := s.body.Close()
	s.settle(false)
	return err
}

// Items is the number of items the server charged for the stream, known
// once it has been read to its end (ok false before, or when the server
// did not say).
func (s *Stream) Items() (n int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.counted {
		return 0, false
	}
	return s.items, true
}

// settle charges the budget once: the count the server gave when the
// stream was read whole, else the reservation.
func (s *Stream) settle(whole bool) {
	s.once.Do(func() {
		items, counted := s.most, false
		if whole {
			v := s.header
			if v == "" {
				v = s.trailer()
			}
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				items, counted = n, true
			}
		}
		s.mu.Lock()
		s.items, s.counted = items, counted
		s.mu.Unlock()
		s.budget.settle(s.reserved, items)
	})
}
