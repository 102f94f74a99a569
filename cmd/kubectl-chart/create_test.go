package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/create"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var updateScaffold = flag.Bool("update-scaffold", false, "rewrite domain/create/scaffold from the Helm peers' create output")

// scaffoldName is the chart name the scaffold is made with before it becomes the
// placeholder: a name no scaffold file holds otherwise.
const scaffoldName = "scaffoldplaceholder"

// TestCreateMatchesHelm compares create's tree, byte for byte, with the Helm
// peer's of each dialect, then lints and renders both charts with both
// programs: the lint verdicts and the renderings must be the same.
func TestCreateMatchesHelm(t *testing.T) {
	tests := map[string]struct {
		helm       string
		compat     dialect.Dialect
		apiVersion string
	}{
		"helm3":              {helm: "v3.22.0", compat: dialect.Helm3},
		"helm4":              {helm: "v4.3.1", compat: dialect.Helm4},
		"helm4 chart API v3": {helm: "v4.3.1", compat: dialect.Helm4, apiVersion: create.APIVersionV3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			helm := prereq.HelmPeer(t, tc.helm)
			t.Setenv("HELM_EXPERIMENTAL_CHART_V3", "")
			var extra []string
			if tc.apiVersion != "" {
				t.Setenv("HELM_EXPERIMENTAL_CHART_V3", "1")
				extra = []string{"--chart-api-version", tc.apiVersion}
			}
			if *updateScaffold {
				variant, err := create.Variant(tc.compat, tc.apiVersion)
				if err != nil {
					t.Fatal(err)
				}
				rewriteScaffold(t, helm, filepath.Join("..", "..", "domain", "create", "scaffold", variant), extra)
				t.Skip("scaffold rewritten: run again without -update-scaffold to compare")
			}
			tmp := t.TempDir()
			theirs, ours := filepath.Join(tmp, "helm", "web"), filepath.Join(tmp, "ours", "web")
			for _, d := range []string{filepath.Dir(theirs), filepath.Dir(ours)} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			runPeer(t, helm, append([]string{"create", theirs}, extra...)...)
			if _, stderr, err := runRoot(t, append([]string{"create", ours, "--compat", string(tc.compat)}, extra...)...); err != nil {
				t.Fatalf("create: %v\n%s", err, stderr)
			}
			if want, got := readTree(t, theirs), readTree(t, ours); want != got {
				t.Errorf("create's tree differs from Helm %s's:\n--- helm\n%s\n--- ours\n%s", tc.helm, want, got)
			}
			// Again over the chart: a warning a file, in Helm's order.
			cmd := exec.Command(helm, append([]string{"create", theirs}, extra...)...)
			var wantOut, wantErr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
			if err := cmd.Run(); err != nil {
				t.Fatal(err, wantErr.String())
			}
			got, stderr, err := runRoot(t, append([]string{"create", ours, "--compat", string(tc.compat)}, extra...)...)
			if err != nil || strings.ReplaceAll(got, ours, theirs) != wantOut.String() || strings.ReplaceAll(stderr, ours, theirs) != wantErr.String() {
				t.Errorf("create over the chart (%v):\n--- helm\n%s%s\n--- ours\n%s%s", err, wantOut.String(), wantErr.String(), got, stderr)
			}

			// Lint says the same of both charts (Helm 4 fails its own chart API
			// v3 scaffold: its linter knows only v1 and v2).
			want, lintErr := peerOutput(helm, "lint", theirs)
			got, stderr, err = runRoot(t, "lint", ours, "--compat", string(tc.compat))
			got = strings.ReplaceAll(got, ours, theirs)
			if (err != nil) != (lintErr != nil) || got != want {
				t.Errorf("lint differs from Helm %s's:\n--- helm (%v)\n%s\n--- ours (%v)\n%s%s", tc.helm, lintErr, want, err, got, stderr)
			}
			if lintErr != nil {
				return
			}

			want = runPeer(t, helm, "template", "web", theirs)
			got, stderr, err = runRoot(t, "template", "web", ours, "--compat", string(tc.compat))
			if err != nil {
				t.Fatalf("template: %v\n%s", err, stderr)
			}
			if got != want {
				t.Errorf("template of the created chart differs from Helm %s's:\n--- helm\n%s\n--- ours\n%s", tc.helm, want, got)
			}
		})
	}
}

// runPeer runs the Helm peer and returns its stdout; a failure fails the test.
func runPeer(t *testing.T, helm string, args ...string) string {
	t.Helper()
	out, err := peerOutput(helm, args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// peerOutput runs the Helm peer and returns its stdout, and its stderr in the
// error when it fails.
func peerOutput(helm string, args ...string) (string, error) {
	cmd := exec.Command(helm, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s", err, stderr.String())
	}
	return stdout.String(), nil
}

// readTree lists a directory's entries below root, one a line: the path, the
// permissions, and a file's contents.
func readTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(filepath.ToSlash(rel) + " " + fi.Mode().String() + "\n")
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// rewriteScaffold replaces dir with the peer's create output, the chart's
// name turned into the placeholder.
func rewriteScaffold(t *testing.T, helm, dir string, extra []string) {
	t.Helper()
	chart := filepath.Join(t.TempDir(), scaffoldName)
	runPeer(t, helm, append([]string{"create", chart}, extra...)...)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(chart, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(chart, p)
		out := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, bytes.ReplaceAll(data, []byte(scaffoldName), []byte(create.Placeholder)), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The order Helm writes the files in: it warns of each, creating again.
	var order strings.Builder
	out, err := exec.Command(helm, append([]string{"create", chart}, extra...)...).CombinedOutput()
	if err != nil {
		t.Fatal(err, string(out))
	}
	for _, m := range overwriteWarning.FindAllStringSubmatch(string(out), -1) {
		rel, err := filepath.Rel(chart, m[1]+m[2])
		if err != nil {
			t.Fatal(err)
		}
		order.WriteString(filepath.ToSlash(rel) + "\n")
	}
	if err := os.WriteFile(dir+".order", []byte(order.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// overwriteWarning is Helm's warning of a file create overwrites (Helm 4's
// chart API v3 create logs it).
var overwriteWarning = regexp.MustCompile(`WARNING: File "([^"]+)" already exists. Overwriting.|msg="Overwriting existing file" file=(\S+)`)

// create refuses what Helm's create refuses, in its words.
func TestCreateErrorsLikeHelm(t *testing.T) {
	peers := helmPeers(t)
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, dir, map[string]string{"afile": "x\n"})
	cases := map[string][]string{
		"name with a space": {"a b"},
		"name too long":     {strings.Repeat("a", 251)},
		"no parent":         {"missing/web"},
		"a file":            {"afile"},
	}
	errorsLikeHelm(t, peers, map[string][]string{"create": {"create"}}, cases, func(string, string, string) string { return "" })
}
