package loader_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"sort"
	"testing"
	"testing/fstest"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// entry is one tar entry; Type defaults to a regular file holding Body.
type entry struct {
	Name     string
	Body     string
	Type     byte
	Linkname string
}

// tgz writes entries, in order, as a gzipped tar stream.
func tgz(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hd := &tar.Header{Name: e.Name, Mode: 0o644, Typeflag: e.Type, Linkname: e.Linkname}
		switch e.Type {
		case 0, tar.TypeReg:
			hd.Typeflag = tar.TypeReg
			hd.Size = int64(len(e.Body))
		case tar.TypeDir:
			hd.Mode = 0o755
		case tar.TypeXGlobalHeader:
			hd = &tar.Header{Typeflag: e.Type, Name: e.Name, PAXRecords: map[string]string{"comment": "global"}}
		}
		if err := tw.WriteHeader(hd); err != nil {
			t.Fatalf("tar header %q: %v", e.Name, err)
		}
		if hd.Size > 0 {
			if _, err := tw.Write([]byte(e.Body)); err != nil {
				t.Fatalf("tar body %q: %v", e.Name, err)
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

// packFS archives every regular file of fsys under the top directory prefix, in
// path order, the way `helm package` lays a chart out.
func packFS(t testing.TB, prefix string, fsys fs.FS) []byte {
	t.Helper()
	var entries []entry
	for _, name := range filesOf(t, fsys) {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry{Name: prefix + "/" + name, Body: string(data)})
	}
	return tgz(t, entries...)
}

// filesOf lists the regular files of fsys, sorted.
func filesOf(t testing.TB, fsys fs.FS) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// mapFS copies a directory tree into memory so a test can add to it.
func mapFS(t testing.TB, dir string) fstest.MapFS {
	t.Helper()
	src := os.DirFS(dir)
	m := fstest.MapFS{}
	for _, name := range filesOf(t, src) {
		data, err := fs.ReadFile(src, name)
		if err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return m
}

// files turns name/content pairs into a MapFS.
func files(kv map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range kv {
		m[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
	}
	return m
}

// smallChart is a minimal valid chart archive named name.
func smallChart(t testing.TB, name, version string) []byte {
	t.Helper()
	return tgz(t,
		entry{Name: name + "/Chart.yaml", Body: "apiVersion: v2\nname: " + name + "\nversion: " + version + "\n"},
		entry{Name: name + "/values.yaml", Body: "from: " + name + "\n"},
	)
}

// ferryFS is testdata/ferry completed with its packed subcharts: raft-4.3.2.tgz
// (which itself packs albatross) and dinghy's mast2-0.1.0.tgz, two levels down.
func ferryFS(t testing.TB) fstest.MapFS {
	t.Helper()
	m := mapFS(t, "testdata/ferry")
	m["charts/raft-4.3.2.tgz"] = &fstest.MapFile{Data: tgz(t,
		entry{Name: "raft/", Type: tar.TypeDir},
		entry{Name: "raft/Chart.yaml", Body: "apiVersion: v1\nname: raft\nversion: 4.3.2\n"},
		entry{Name: "raft/values.yaml", Body: "raft: true\n"},
		entry{Name: "raft/templates/placeholder.tpl", Body: "# placeholder\n"},
		entry{Name: "raft/charts/albatross-0.1.0.tgz", Body: string(smallChart(t, "albatross", "0.1.0"))},
	)}
	m["charts/dinghy/charts/mast2-0.1.0.tgz"] = &fstest.MapFile{Data: smallChart(t, "mast2", "0.1.0")}
	return m
}

func defaultLimits() loader.Limits { return loader.DefaultLimits() }

// names lists file names.
func names(fs []*chart.File) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// sortedNames lists file names, sorted.
func sortedNames(fs []*chart.File) []string {
	out := names(fs)
	sort.Strings(out)
	return out
}

// subchart finds a direct subchart by name.
func subchart(t testing.TB, c *chart.Chart, name string) *chart.Chart {
	t.Helper()
	for _, d := range c.Dependencies() {
		if d.Name() == name {
			return d
		}
	}
	t.Fatalf("chart %s has no subchart %s (has %v)", c.Name(), name, depNames(c))
	return nil
}

func depNames(c *chart.Chart) []string {
	var out []string
	for _, d := range c.Dependencies() {
		out = append(out, d.Name())
	}
	return out
}

// treeNames lists every chart of a tree by dotted path, sorted.
func treeNames(c *chart.Chart) []string {
	out := []string{c.ChartPath()}
	for _, d := range c.Dependencies() {
		out = append(out, treeNames(d)...)
	}
	sort.Strings(out)
	return out
}
