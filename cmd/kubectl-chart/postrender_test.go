package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// postRenderVariants are the template command lines each post-renderer runs
// under: every flag that selects what the post-rendered release prints.
var postRenderVariants = []struct {
	name string
	args []string
}{
	{"plain", nil},
	{"show-only resource", []string{"--show-only", "templates/cm.yaml"}},
	{"show-only hook", []string{"--show-only", "templates/hook.yaml"}},
	{"include-crds", []string{"--include-crds"}},
	{"skip-tests", []string{"--skip-tests"}},
	{"no-hooks", []string{"--no-hooks"}},
	{"output-dir", []string{"--output-dir", "out"}},
	{"output-dir include-crds", []string{"--output-dir", "out", "--include-crds"}},
}

// Post-renderers run as each Helm runs them, byte for byte: Helm 4 hands
// them every template, hooks included, each document annotated with its file,
// parses what they return (refusing malformed YAML and documents that are not
// mappings) and sorts it back into hooks and resources; Helm 3 hands them the
// manifest text alone and prints what they return. Each post-renderer of
// testdata/postrender/plugins (a postrenderer/v1 plugin for Helm 4, its
// script by path for Helm 3) runs under every variant; the goldens are Helm
// v4.3.1's and v3.22.0's output, which -update rewrites by running them.
func TestPostRenderLikeHelm(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("testdata", "postrender"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(src, "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	var peers map[string]string
	if *updateLifecycleGoldens {
		peers = helmPeers(t)
	}
	for _, compat := range []string{"helm3", "helm4"} {
		for _, e := range entries {
			name := e.Name()
			t.Run(compat+"/"+name, func(t *testing.T) {
				golden := filepath.Join(src, "golden", compat, name+".txt")
				got := postRenderRuns(t, src, compat, name, func(args []string) string {
					return ourRun(t, append(args, "--compat", compat)...)
				})
				if peers != nil {
					want := postRenderRuns(t, src, compat, name, func(args []string) string {
						return peerRun(t, peers[compat], args...)
					})
					writeGolden(t, golden, want)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test -run TestPostRenderLikeHelm -update writes it from the Helm peers)", err)
				}
				if got != string(want) {
					t.Errorf("post-renderer %s in the %s dialect:\n got %s\nwant %s (Helm's)", name, compat, got, want)
				}
			})
		}
	}
}

// postRenderRuns runs every variant with the post-renderer name through run in
// a fresh directory holding the chart, and returns what each printed and
// wrote, the directory's path masked.
func postRenderRuns(t *testing.T, src, compat, name string, run func(args []string) string) string {
	t.Helper()
	var b strings.Builder
	for _, v := range postRenderVariants {
		dir := t.TempDir()
		t.Chdir(dir)
		isolateHelmHome(t, dir)
		if err := os.CopyFS("chart", os.DirFS(filepath.Join(src, "chart"))); err != nil {
			t.Fatal(err)
		}
		renderer := name
		if compat == "helm3" {
			// Helm 3 runs an executable; it reads no plugin of Helm 4's kind.
			renderer = filepath.Join(src, "plugins", name, "run.sh")
			t.Setenv("HELM_PLUGINS", filepath.Join(dir, "no-plugins"))
		} else {
			t.Setenv("HELM_PLUGINS", filepath.Join(src, "plugins"))
		}
		args := append([]string{"template", "rel", "chart", "--post-renderer", renderer}, v.args...)
		out := run(args)
		b.WriteString("=== " + v.name + "\n")
		b.WriteString(strings.ReplaceAll(out, src, "$TESTDATA"))
		b.WriteString(writtenFiles(t, "out"))
	}
	return b.String()
}

// writtenFiles lists the files under dir with their contents, in path order.
func writtenFiles(t *testing.T, dir string) string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	var b strings.Builder
	for _, p := range paths {
		b.WriteString("--- file " + filepath.ToSlash(p) + "\n" + string(mustReadFile(t, p)))
	}
	return b.String()
}

func writeGolden(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
