// Package openapitest checks OpenAPI documents and the answers of the
// handlers they describe, for tests.
package openapitest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// NewValidator validates spec against the OpenAPI 3.1 schema and returns
// a validator of the exchanges it describes.
func NewValidator(spec []byte) (validator.Validator, error) {
	d, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, fmt.Errorf("libopenapi: %w", err)
	}
	v, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		return nil, fmt.Errorf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		var msgs []string
		for _, e := range verrs {
			msgs = append(msgs, e.Message+": "+e.Reason)
			for _, f := range e.SchemaValidationErrors {
				msgs = append(msgs, "  "+f.FieldPath+" "+f.KeywordLocation+": "+f.Reason)
			}
		}
		return nil, fmt.Errorf("the document is not valid OpenAPI:\n%s", strings.Join(msgs, "\n"))
	}
	return v, nil
}

// Mismatches are what v finds wrong with the answer (code, header, body)
// to req, one line each; none when it fits the document.
func Mismatches(v validator.Validator, req *http.Request, code int, header http.Header, body []byte) []string {
	resp := &http.Response{StatusCode: code, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Request: req}
	ok, errs := v.ValidateHttpResponse(req, resp)
	if ok {
		return nil
	}
	var out []string
	for _, e := range errs {
		detail := e.Reason
		for _, s := range e.SchemaValidationErrors {
			detail += "; " + s.FieldPath + ": " + s.Reason
		}
		out = append(out, fmt.Sprintf("%s %s → %d: %s: %s\n%.300s", req.Method, req.URL, code, e.Message, detail, body))
	}
	return out
}
