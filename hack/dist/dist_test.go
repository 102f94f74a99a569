package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

var distDir = flag.String("dist", "../../dist", "directory with a generated chart.yaml to check for drift (skipped when absent)")

const topLevel = "../../krew-manifest.yaml"

// withoutGenerated drops what generation may change: each platform's uri and sha256.
func withoutGenerated(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for _, e := range platformEntries(c) {
		delete(e.(map[string]any), "uri")
		delete(e.(map[string]any), "sha256")
	}
	return c
}

func TestTopLevelManifest(t *testing.T) {
	m, err := ReadManifest(topLevel)
	if err != nil {
		t.Fatal(err)
	}
	if m["apiVersion"] != "krew.googlecontainertools.github.com/v1alpha2" || m["kind"] != "Plugin" {
		t.Errorf("apiVersion/kind = %v/%v", m["apiVersion"], m["kind"])
	}
	if name := m["metadata"].(map[string]any)["name"]; name != "chart" {
		t.Errorf("metadata.name = %v, want chart", name)
	}
	ps, err := Platforms(m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	sort.Strings(got)
	want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("platforms = %v, want %v", got, want)
	}
	spec := m["spec"].(map[string]any)
	for _, field := range []string{"shortDescription", "description", "caveats", "homepage"} {
		if s, _ := spec[field].(string); s == "" {
			t.Errorf("spec.%s is empty", field)
		}
	}
	for i, e := range platformEntries(m) {
		e := e.(map[string]any)
		p, _ := platformOf(e)
		var from []string
		for _, f := range e["files"].([]any) {
			from = append(from, f.(map[string]any)["from"].(string))
		}
		if !reflect.DeepEqual(from, []string{p.exe(), "LICENSE"}) || e["bin"] != p.exe() {
			t.Errorf("platforms[%d] %s: files %v, bin %v; want the binary and LICENSE", i, p, from, e["bin"])
		}
	}
}

// The generated manifest may differ from the top-level one in URIs and
// checksums only: generation from fake archives, and dist/chart.yaml when
// `make dist` has produced one.
func TestGeneratedManifestDoesNotDrift(t *testing.T) {
	top, err := ReadManifest(topLevel)
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := Platforms(top)
	sums := map[Platform]string{}
	for _, p := range ps {
		sums[p] = "ab"
	}
	fresh, _ := ReadManifest(topLevel)
	b, err := Fill(fresh, "http://127.0.0.1:1/x", sums)
	if err != nil {
		t.Fatal(err)
	}
	var generated map[string]any
	if err := yaml.Unmarshal(b, &generated); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutGenerated(t, top), withoutGenerated(t, generated)) {
		t.Error("Fill changed more than uri and sha256")
	}

	dist := filepath.Join(*distDir, "chart.yaml")
	if _, err := os.Stat(dist); err != nil {
		t.Logf("%s absent: run make dist to check it too", dist)
		return
	}
	built, err := ReadManifest(dist)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := withoutGenerated(t, top), withoutGenerated(t, built); !reflect.DeepEqual(a, b) {
		ab, _ := yaml.Marshal(a)
		bb, _ := yaml.Marshal(b)
		t.Errorf("%s drifted from %s in more than URIs and checksums; run make dist.\n--- top-level\n%s\n--- generated\n%s", dist, topLevel, ab, bb)
	}
	version, _ := Version(top)
	for _, e := range platformEntries(built) {
		e := e.(map[string]any)
		p, _ := platformOf(e)
		name := ArchiveName(version, p)
		if base := path.Base(e["uri"].(string)); base != name {
			t.Errorf("%s: uri names %s, want %s", p, base, name)
		}
		sum, err := FileSHA256(filepath.Join(*distDir, name))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if e["sha256"] != sum {
			t.Errorf("%s: sha256 %v in chart.yaml, %s on disk", p, e["sha256"], sum)
		}
	}
}

func TestArchivesAreReproducible(t *testing.T) {
	mtime := time.Unix(1700000000, 0).UTC()
	for _, ext := range []string{".tar.gz", ".zip"} {
		t.Run(ext, func(t *testing.T) {
			var sums []string
			for i := 0; i < 2; i++ {
				dir := t.TempDir()
				bin := filepath.Join(dir, "kubectl-chart")
				lic := filepath.Join(dir, "LICENSE")
				if err := os.WriteFile(bin, []byte("binary"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(lic, []byte("license"), 0o600); err != nil {
					t.Fatal(err)
				}
				// Different file times and modes on disk must not matter.
				_ = os.Chtimes(bin, time.Now().Add(time.Duration(i)*time.Hour), time.Now().Add(time.Duration(i)*time.Hour))
				dst := filepath.Join(dir, "a"+ext)
				if err := WriteArchive(dst, []ArchiveFile{{Name: "kubectl-chart", Path: bin, Mode: 0o755}, {Name: "LICENSE", Path: lic, Mode: 0o644}}, mtime); err != nil {
					t.Fatal(err)
				}
				sum, err := FileSHA256(dst)
				if err != nil {
					t.Fatal(err)
				}
				sums = append(sums, sum)
				checkEntries(t, dst, mtime)
			}
			if sums[0] != sums[1] {
				t.Errorf("same inputs, different archives: %v", sums)
			}
		})
	}
}

func checkEntries(t *testing.T, p string, mtime time.Time) {
	t.Helper()
	type entry struct {
		name string
		mode int64
	}
	var got []entry
	if filepath.Ext(p) == ".zip" {
		zr, err := zip.OpenReader(p)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = zr.Close() }()
		for _, f := range zr.File {
			got = append(got, entry{f.Name, int64(f.Mode().Perm())})
			if !f.Modified.Equal(mtime) {
				t.Errorf("%s: mtime %v", f.Name, f.Modified)
			}
		}
	} else {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, entry{h.Name, h.Mode})
			if !h.ModTime.Equal(mtime) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" {
				t.Errorf("%s: mtime %v uid %d gid %d uname %q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname)
			}
		}
	}
	want := []entry{{"kubectl-chart", 0o755}, {"LICENSE", 0o644}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
}

func TestFillRefusesMismatchedURI(t *testing.T) {
	m := map[string]any{"metadata": map[string]any{"name": "chart"}, "spec": map[string]any{"version": "v1.0.0", "platforms": []any{
		map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"os": "linux", "arch": "amd64"}}, "uri": "https://x/kubectl-chart_v0.9.0_linux_amd64.tar.gz"},
	}}}
	if _, err := Fill(m, "", map[Platform]string{{"linux", "amd64"}: "ab"}); err == nil {
		t.Error("Fill accepted a uri naming another version")
	}
}
