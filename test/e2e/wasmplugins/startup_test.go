//go:build e2e

package wasmplugins

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoWazeroInitialiserAtStartup: a command that runs no plugin runs none of
// wazero's package initialisers (hack/wazero-lazyinit), as the binary
// is shipped: GODEBUG=inittrace=1 lists every package whose initialiser runs.
func TestNoWazeroInitialiserAtStartup(t *testing.T) {
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("version: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "init runtime @") {
		t.Fatalf("GODEBUG=inittrace=1 printed no trace:\n%s", stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "init github.com/tetratelabs/wazero") {
			t.Errorf("an initialiser of wazero runs: %s", line)
		}
	}
}
