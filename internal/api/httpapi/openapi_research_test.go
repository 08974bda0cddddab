package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestResearchParametersDocumented: the research routes' own query
// parameters are in the document.
func TestResearchParametersDocumented(t *testing.T) {
	w := httptest.NewRecorder()
	New(Config{}, nil, nil, nil).ServeHTTP(w, httptest.NewRequest("GET", "/openapi.json", nil))
	doc := w.Body.String()
	for _, name := range []string{"granularity", "field", "format", "edges", "part", "min_degree", "max_nodes"} {
		if !strings.Contains(doc, `"name":"`+name+`"`) {
			t.Errorf("parameter %s is not in /openapi.json", name)
		}
	}
}
