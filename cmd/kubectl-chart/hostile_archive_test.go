//go:build linux

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nestedBomb is a chart of a few megabytes holding 45 subchart archives that each
// decompress to 96 MiB (24 files of 4 MiB, under Helm 3's cap per file): 4.3 GB if
// every nested archive had a budget of its own.
func nestedBomb(t *testing.T) []byte {
	t.Helper()
	var subEntries []tarEntry
	subEntries = append(subEntries, tarEntry{name: "sub/Chart.yaml", body: []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n")})
	zeros := make([]byte, 4<<20)
	for i := range 24 {
		subEntries = append(subEntries, tarEntry{name: fmt.Sprintf("sub/files/z%02d", i), body: zeros})
	}
	sub := writeTgz(t, gzip.BestCompression, subEntries...)
	entries := []tarEntry{
		{name: "bomb/Chart.yaml", body: []byte("apiVersion: v2\nname: bomb\nversion: 0.1.0\n")},
		{name: "bomb/templates/cm.yaml", body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
	}
	for i := range 45 {
		entries = append(entries, tarEntry{name: fmt.Sprintf("bomb/charts/sub%02d-0.1.0.tgz", i), body: sub})
	}
	return writeTgz(t, gzip.DefaultCompression, entries...)
}

// namesBomb is a chart archive of about 3 MB holding 3,000 empty files whose names
// are a megabyte each: 3 GB of names. It is 3,000 copies of one gzip member (a
// reader joins members into one stream), so it is compressed once.
func namesBomb(t *testing.T) []byte {
	t.Helper()
	head := writeTar(t, tarEntry{name: "names/Chart.yaml", body: []byte("apiVersion: v2\nname: names\nversion: 0.1.0\n")})
	long := writeTar(t, tarEntry{name: "names/" + strings.Repeat("n", 1_000_000)})
	var out bytes.Buffer
	out.Write(gzipMember(t, head[:len(head)-1024]))
	member := gzipMember(t, long[:len(long)-1024])
	for range 3000 {
		out.Write(member)
	}
	out.Write(gzipMember(t, make([]byte, 1024)))
	return out.Bytes()
}

type tarEntry struct {
	name string
	body []byte
}

func writeTar(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipMember(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeTgz(t *testing.T, level int, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(writeTar(t, entries...)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hostileArchives runs every command that loads a chart archive on the two bombs:
// each is refused within the memory cap, naming the limit.
func hostileArchives(t *testing.T, bin string) {
	const (
		nestedHelm4 = "error unpacking subchart sub01-0.1.0.tgz in bomb: decompressed chart is larger than the maximum size 104857600"
		// show and lint load with Helm 4's chart v2 loader directly (no API-version
		// detection), which meets the shared budget at the first subchart.
		nestedV2Loader = "error unpacking subchart sub00-0.1.0.tgz in bomb: decompressed chart is larger than the maximum size 104857600"
		nestedHelm3    = "error unpacking subchart sub00-0.1.0.tgz in bomb: decompressed chart is larger than the maximum file size 104857600"
		names          = "chart archive entry names exceed the maximum decompressed chart size 104857600"
		// lint reports, as Helm does, an archive it cannot extract alone, and
		// one that extracts but does not load with its chart's findings.
		lintNested = "[ERROR] templates/: " + nestedV2Loader
		lintNames  = "Error unable to extract tarball: " + names
	)
	bombs := map[string][]byte{"nested": nestedBomb(t), "names": namesBomb(t)}
	tests := map[string]struct {
		bomb string
		args []string
		// want is the error; for lint, a line of its report.
		want string
	}{
		"nested template":   {"nested", []string{"template", "CHART"}, nestedHelm4},
		"nested show":       {"nested", []string{"show", "chart", "CHART"}, nestedV2Loader},
		"nested lint":       {"nested", []string{"lint", "CHART"}, lintNested},
		"nested push":       {"nested", []string{"push", "CHART", "oci://127.0.0.1:1/charts"}, "load chart to push: " + nestedHelm3},
		"nested repo index": {"nested", []string{"repo", "index", "DIR"}, "index CHART: " + nestedHelm3},
		"names template":    {"names", []string{"template", "CHART"}, "unable to load chart archive: " + names},
		"names show":        {"names", []string{"show", "chart", "CHART"}, names},
		"names lint":        {"names", []string{"lint", "CHART"}, lintNames},
		"names push":        {"names", []string{"push", "CHART", "oci://127.0.0.1:1/charts"}, "load chart to push: " + names},
		"names repo index":  {"names", []string{"repo", "index", "DIR"}, "index CHART: " + names},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			chartDir := filepath.Join(dir, "charts")
			chart := filepath.Join(chartDir, "bomb-0.1.0.tgz")
			if err := os.MkdirAll(chartDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(chart, bombs[tt.bomb], 0o644); err != nil {
				t.Fatal(err)
			}
			paths := strings.NewReplacer("CHART", chart, "DIR", chartDir)
			argv := make([]string, len(tt.args))
			for i, a := range tt.args {
				argv[i] = paths.Replace(a)
			}
			run := runHostile(t, bin, dir, argv...)
			want := paths.Replace(tt.want)
			if tt.args[0] == "lint" {
				if run.exit != 1 || !strings.Contains(run.stdout, want+"\n") {
					t.Fatalf("exit %d, report %q; want exit 1 and a line %q", run.exit, run.stdout, want)
				}
				return
			}
			wantRefusal(t, run, want)
		})
	}
	t.Run("nested pull --untar", func(t *testing.T) {
		dir := t.TempDir()
		data := bombs["nested"]
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/index.yaml":
				fmt.Fprint(w, "apiVersion: v1\nentries:\n  bomb:\n  - apiVersion: v2\n    name: bomb\n    version: 0.1.0\n    urls: [bomb-0.1.0.tgz]\n")
			case "/bomb-0.1.0.tgz":
				_, _ = w.Write(data)
			default:
				http.NotFound(w, r)
			}
		}))
		defer srv.Close()
		run := runHostile(t, bin, dir, "pull", "bomb", "--repo", srv.URL, "--untar", "--untardir", "out")
		if run.exit != 0 {
			t.Fatalf("pull --untar: exit %d, %s", run.exit, run.stderr)
		}
		// Like Helm, the nested archives are copied as they are, not opened.
		got, err := os.ReadFile(filepath.Join(dir, "out", "bomb", "charts", "sub44-0.1.0.tgz"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 1000 || !bytes.HasPrefix(got, []byte{0x1f, 0x8b}) {
			t.Errorf("the last nested archive was not copied as it is: %d bytes", len(got))
		}
	})
}
