package main

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/yaml"
)

// install, upgrade, rollback and status print the release with -o json|yaml,
// as Helm does: `-o json | jq .info.status` is "deployed".
func TestReleaseOutput(t *testing.T) {
	chart := writeDemoChart(t)
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	steps := []struct {
		args     []string
		format   string
		revision int
	}{
		{args: []string{"install", "web", chart, "-o", "json"}, format: "json", revision: 1},
		{args: []string{"upgrade", "--install", "web", chart, "-o", "json", "--set", "greeting=hi"}, format: "json", revision: 2},
		{args: []string{"upgrade", "web", chart, "-o", "yaml"}, format: "yaml", revision: 3},
		{args: []string{"rollback", "web", "1", "-o", "json"}, format: "json", revision: 4},
		{args: []string{"status", "web", "-o", "json", "--compat", "helm3"}, format: "json", revision: 4}, // Helm 4 reads the live resources too
		{args: []string{"upgrade", "--install", "new", chart, "-o", "yaml"}, format: "yaml", revision: 1},
	}
	for _, s := range steps {
		out, errOut, err := runLifecycle(t, f, s.args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", s.args, err, errOut)
		}
		var rel struct {
			Name    string `json:"name"`
			Version int    `json:"version"`
			Info    struct {
				Status string `json:"status"`
			} `json:"info"`
		}
		data := []byte(out)
		if s.format == "yaml" {
			if data, err = yaml.YAMLToJSON(data); err != nil {
				t.Fatalf("%v: %v\n%s", s.args, err, out)
			}
		}
		if err := json.Unmarshal(data, &rel); err != nil {
			t.Fatalf("%v: not one %s release: %v\n%s", s.args, s.format, err, out)
		}
		if rel.Info.Status != "deployed" || rel.Version != s.revision || rel.Name != s.args[indexOfName(s.args)] {
			t.Errorf("%v: release %s revision %d status %q", s.args, rel.Name, rel.Version, rel.Info.Status)
		}
	}
}

// indexOfName is the position of the release name in a command line.
func indexOfName(args []string) int {
	if args[1] == "--install" {
		return 2
	}
	return 1
}

func TestHideSecret(t *testing.T) {
	chart := writeDemoChart(t)
	tests := map[string]struct {
		args          []string
		want, notWant string
		err           string
	}{
		"dry run":       {args: []string{"install", "web", chart, "--dry-run", "--set", "keep=true", "--hide-secret"}, want: "# HIDDEN: The Secret output has been suppressed\n", notWant: "token: abc"},
		"dry run, json": {args: []string{"upgrade", "--install", "web", chart, "--dry-run", "--set", "keep=true", "--hide-secret", "-o", "json"}, want: "HIDDEN: The Secret output has been suppressed", notWant: "token: abc"},
		"shown without": {args: []string{"install", "web", chart, "--dry-run", "--set", "keep=true"}, want: "token: abc"},
		"not a dry run": {args: []string{"install", "web", chart, "--hide-secret"}, err: "INSTALLATION FAILED: hiding Kubernetes secrets requires a dry-run mode"},
		"helm3's words": {args: []string{"upgrade", "web", chart, "--hide-secret", "--compat", "helm3"}, err: "UPGRADE FAILED: Hiding Kubernetes secrets requires a dry-run mode"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			out, errOut, err := runLifecycle(t, f, tc.args...)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			if !strings.Contains(out, tc.want) || (tc.notWant != "" && strings.Contains(out, tc.notWant)) {
				t.Errorf("output:\n%s", out)
			}
		})
	}
}
