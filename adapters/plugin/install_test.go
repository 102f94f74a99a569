package plugin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

type entry struct {
	name     string
	body     string
	typeflag byte
	link     string
	mode     int64
}

func tgz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typeflag, Linkname: e.link, Mode: e.mode}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const goodYAML = "name: labeler\nversion: 0.1.0\ntype: postrenderer/v1\nruntime: subprocess\nplatformCommand:\n  - command: ${KUBECTL_CHART_PLUGIN_DIR}/run.sh\n"

func writeArchive(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plugin.tgz")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// assertEmpty checks that a refused install leaves nothing behind, not even staging.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in %s: %s", dir, e.Name())
	}
}

func TestInstallRefusesHostileArchives(t *testing.T) {
	tests := map[string]struct {
		entries []entry
		want    string
		unsafe  bool
	}{
		"path traversal": {
			entries: []entry{{name: "labeler/plugin.yaml", body: goodYAML}, {name: "labeler/../../evil.sh", body: "x"}},
			want:    `entry "labeler/../../evil.sh" escapes the plugin directory`, unsafe: true,
		},
		"leading dot-dot": {
			entries: []entry{{name: "../evil", body: "x"}},
			want:    `entry "../evil" escapes the plugin directory`, unsafe: true,
		},
		"absolute path": {
			entries: []entry{{name: "/etc/evil", body: "x"}},
			want:    `entry "/etc/evil" has an absolute path`, unsafe: true,
		},
		"drive path": {
			entries: []entry{{name: "C:/evil", body: "x"}},
			want:    `entry "C:/evil" has an absolute path`, unsafe: true,
		},
		"backslash": {
			entries: []entry{{name: `labeler\..\..\evil`, body: "x"}},
			want:    "contains a backslash", unsafe: true,
		},
		"symlink": {
			entries: []entry{{name: "labeler/plugin.yaml", body: goodYAML}, {name: "labeler/run.sh", typeflag: tar.TypeSymlink, link: "/bin/sh"}},
			want:    `entry "labeler/run.sh" is a link (to "/bin/sh"); links are not allowed`, unsafe: true,
		},
		"symlink then write through it": {
			entries: []entry{{name: "labeler/out", typeflag: tar.TypeSymlink, link: "/tmp"}, {name: "labeler/out/x", body: "x"}},
			want:    "links are not allowed", unsafe: true,
		},
		"hard link": {
			entries: []entry{{name: "labeler/plugin.yaml", body: goodYAML}, {name: "labeler/passwd", typeflag: tar.TypeLink, link: "/etc/passwd"}},
			want:    "links are not allowed", unsafe: true,
		},
		"device": {
			entries: []entry{{name: "labeler/dev", typeflag: tar.TypeChar}},
			want:    "is not a regular file or directory", unsafe: true,
		},
		"duplicate entries": {
			entries: []entry{{name: "labeler/plugin.yaml", body: goodYAML}, {name: "labeler/plugin.yaml", body: "name: other\n"}},
			want:    `entry "labeler/plugin.yaml" appears twice`, unsafe: true,
		},
		"duplicate after cleaning": {
			entries: []entry{{name: "labeler/plugin.yaml", body: goodYAML}, {name: "labeler/./plugin.yaml", body: "name: other\n"}},
			want:    "appears twice", unsafe: true,
		},
		"version with dot-dot": {
			entries: []entry{{name: "labeler/plugin.yaml", body: "name: labeler\nversion: ../../../etc\n"}},
			want:    `version "../../../etc" must not contain path separators or '..'`,
		},
		"version not semver": {
			entries: []entry{{name: "labeler/plugin.yaml", body: "name: labeler\nversion: latest\n"}},
			want:    `version "latest" is not a semantic version`,
		},
		"name with slash": {
			entries: []entry{{name: "labeler/plugin.yaml", body: "name: ../labeler\n"}},
			want:    `name "../labeler" may only contain`,
		},
		"no plugin.yaml": {
			entries: []entry{{name: "labeler/run.sh", body: "x"}},
			want:    "no plugin.yaml",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plugins")
			in := Installer{Dir: dir}
			_, err := in.Install(context.Background(), writeArchive(t, tgz(t, tc.entries...)))
			if err == nil {
				t.Fatal("install succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %q, want it to contain %q", err, tc.want)
			}
			if tc.unsafe != errors.Is(err, ErrUnsafeArchive) {
				t.Errorf("errors.Is(err, ErrUnsafeArchive) = %v, want %v", !tc.unsafe, tc.unsafe)
			}
			assertEmpty(t, dir)
		})
	}
}

func TestInstallRefusesLimits(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugins")
	in := Installer{Dir: dir, MaxFileSize: 10}
	_, err := in.Install(context.Background(), writeArchive(t, tgz(t, entry{name: "p/plugin.yaml", body: goodYAML})))
	if err == nil || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Fatalf("error = %v, want a size error", err)
	}
	in = Installer{Dir: dir}
	_, err = in.Install(context.Background(), writeArchive(t, []byte("not gzip")))
	if err == nil || !strings.Contains(err.Error(), "not a gzipped tar archive") {
		t.Fatalf("error = %v, want a format error", err)
	}
	assertEmpty(t, dir)
}

func TestInstallFromArchiveURLAndDirectory(t *testing.T) {
	archive := tgz(t,
		entry{name: "labeler/", typeflag: tar.TypeDir, mode: 0o755},
		entry{name: "labeler/plugin.yaml", body: goodYAML},
		entry{name: "labeler/run.sh", body: "#!/bin/sh\ncat\n", mode: 0o755},
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/labeler.tgz" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(archive)
	}))
	defer srv.Close()

	tests := map[string]func(t *testing.T) string{
		"archive": func(t *testing.T) string { return writeArchive(t, archive) },
		"url":     func(t *testing.T) string { return srv.URL + "/labeler.tgz" },
		"directory": func(t *testing.T) string {
			d := t.TempDir()
			writePlugin(t, d, goodYAML, "#!/bin/sh\ncat\n")
			return d
		},
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plugins")
			in := Installer{Dir: dir, Client: srv.Client()}
			p, err := in.Install(context.Background(), src(t))
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != "labeler" || p.Version != "0.1.0" || p.Kind() != TypePostRenderer {
				t.Errorf("installed %+v", p.Metadata)
			}
			fi, err := os.Stat(filepath.Join(dir, "labeler", "run.sh"))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode()&0o100 == 0 {
				t.Errorf("run.sh lost its executable bit: %v", fi.Mode())
			}
			if _, err := in.Install(context.Background(), src(t)); !errors.Is(err, ErrAlreadyInstalled) {
				t.Errorf("second install: error = %v, want ErrAlreadyInstalled", err)
			}
			if _, err := in.Uninstall("labeler"); err != nil {
				t.Fatal(err)
			}
			if _, err := in.Uninstall("labeler"); !errors.Is(err, ErrNotInstalled) {
				t.Errorf("second uninstall: error = %v, want ErrNotInstalled", err)
			}
			if _, err := in.Uninstall("../labeler"); !errors.Is(err, ErrNotInstalled) {
				t.Errorf("uninstall ../labeler: error = %v, want ErrNotInstalled", err)
			}
			assertEmpty(t, dir)
		})
	}
	t.Run("url not found", func(t *testing.T) {
		in := Installer{Dir: t.TempDir(), Client: srv.Client()}
		if _, err := in.Install(context.Background(), srv.URL+"/nope.tgz"); err == nil || !strings.Contains(err.Error(), "404") {
			t.Errorf("error = %v, want a 404", err)
		}
	})
}

func TestInstallRefusesSymlinkInDirectory(t *testing.T) {
	src := t.TempDir()
	writePlugin(t, src, goodYAML, "#!/bin/sh\ncat\n")
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "passwd")); err != nil {
		prereq.Missing(t, "symbolic links unavailable: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "plugins")
	_, err := Installer{Dir: dir}.Install(context.Background(), src)
	if !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("error = %v, want a symlink refusal", err)
	}
	assertEmpty(t, dir)
}

func writePlugin(t *testing.T, dir, yaml, script string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, MetadataFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
