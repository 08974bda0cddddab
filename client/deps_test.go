package client

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoServerDependencies: importing the client pulls in no package of
// the server and no database driver, only the standard library and the
// leaf package of the API's shapes (which itself imports only the
// standard library).
func TestNoServerDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	self := deps[len(deps)-1] // go list -deps lists the package itself last
	for _, dep := range deps {
		if dep != self && dep != self+"/wire" && strings.Contains(dep, ".") && !strings.HasPrefix(dep, "vendor/") &&
			!strings.HasPrefix(dep, "crypto/internal/") {
			t.Errorf("the client depends on %s", dep)
		}
	}
}
