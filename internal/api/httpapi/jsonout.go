package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/roostapi/roost/internal/jsonenc"
)

const contentTypeJSON = "application/json; charset=utf-8"

// maxPooledBuffer keeps unusually large response buffers out of the pool.
const maxPooledBuffer = 1 << 20

// bufferPool recycles response buffers between requests.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) get() *bytes.Buffer {
	if v, ok := b.p.Get().(*bytes.Buffer); ok {
		return v
	}
	return new(bytes.Buffer)
}

func (b *bufferPool) put(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		buf.Reset()
		b.p.Put(buf)
	}
}

// encodeJSON appends v to buf as JSON and a newline, as an encoding/json
// Encoder without HTML escaping writes it (the API serves JSON, never
// HTML; `source` holds an anchor tag).
func encodeJSON(buf *bytes.Buffer, v any) error {
	b, err := jsonenc.Append(buf.AvailableBuffer(), v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	buf.Write(b)
	return buf.WriteByte('\n')
}

// writeBody sends an encoded JSON body.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentTypeJSON)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client went away; nothing to do
}

// writeJSON encodes and sends a small body (errors, health).
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := encodeJSON(&buf, v); err != nil {
		// Only values of this package's own types reach here; they
		// always encode.
		buf.Reset()
		buf.WriteString(`{"status":"error","message":"` + msgInternal + `"}` + "\n")
		status = http.StatusInternalServerError
	}
	writeBody(w, status, buf.Bytes())
}
