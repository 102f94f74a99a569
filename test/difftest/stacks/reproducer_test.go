package stacks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
)

func TestWriteReproducer(t *testing.T) {
	root := t.TempDir()
	c := Case{Files: map[string]string{stateFile: "releases: []\n", "values/a.yaml": "x: 1"}, Args: []string{"-l", "tier!=back,name=r1"}}
	res := Result{Helmfile: runner.Outcome{Stderr: "W\nW\n"}, Ours: runner.Outcome{Stderr: "W\n"}}
	if err := os.MkdirAll(filepath.Join(root, "r", "case", "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := WriteReproducer(root, "r", c, res)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"case/" + stateFile:  "releases: []\n",
		"case/values/a.yaml": "x: 1",
		"args":               "-l\ntier!=back,name=r1\n",
		"difference":         res.Describe(),
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != data {
			t.Errorf("%s: %q (%v), want %q", name, got, err, data)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "case", "old")); !os.IsNotExist(err) {
		t.Errorf("what was there before stays: %v", err)
	}
	s := c.String()
	for _, line := range []string{"  kubectl chart stack template -l 'tier!=back,name=r1'\n", "--- file: " + stateFile + "\nreleases: []\n--- file: values/a.yaml\nx: 1\n--- (no final newline)\n"} {
		if !strings.Contains(s, line) {
			t.Errorf("reproducer lacks %q:\n%s", line, s)
		}
	}
}
