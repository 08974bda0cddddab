package httpapi

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds the system's Chromium: a test that needs it fails under
// CI=true when it is missing (.ci/run installs it) and skips elsewhere.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (.ci/run installs Debian's chromium)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// TestDocsInBrowser: headless Chromium opens /docs with no network but
// the server's own, and finds every documented operation on the page, in
// the section of its endpoint (one for all its prefixes), which shows its
// method and path. A screenshot goes to the test's artifact directory.
func TestDocsInBrowser(t *testing.T) {
	bin := chromium(t)
	_, doc := openAPIValidator(t)
	srv := httptest.NewServer(New(Config{}, nil, nil, nil))
	defer srv.Close()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/docs")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.WaitVisible("main h1")); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	// An operation is found when its endpoint's section is laid out and
	// shows the endpoint's method and path.
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("section.op")).
		filter(s => s.offsetHeight > 0 && s.innerText.includes(s.dataset.method + " " + s.dataset.path)).
		flatMap(s => s.dataset.paths.split(" ").map(p => s.dataset.method + " " + p))`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "docs.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "roost") {
		t.Errorf("title %q", title)
	}
	var want []string
	for path, ops := range doc.Paths {
		for method := range ops {
			want = append(want, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(want)
	sort.Strings(found)
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Errorf("the page shows %d endpoints, the document has %d:\nshown: %v\nwant: %v", len(found), len(want), found, want)
	}
}
