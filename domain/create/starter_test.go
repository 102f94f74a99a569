package create_test

import (
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubectl-chart/kubectl-chart/domain/create"
)

func TestLoadStarterRefusals(t *testing.T) {
	limits := create.StarterLimits{MaxFileSize: 16, MaxTotalSize: 40}
	chartYAML := &fstest.MapFile{Data: []byte("name: <CHARTNAME>\n")[:16]}
	tests := map[string]struct {
		fsys    fstest.MapFS
		wantErr string
	}{
		"fifo": {
			fsys:    fstest.MapFS{"Chart.yaml": chartYAML, "templates/pipe": {Mode: fs.ModeNamedPipe}},
			wantErr: "cannot load irregular file templates/pipe as it has file mode type bits set",
		},
		"device": {
			fsys:    fstest.MapFS{"zero": {Mode: fs.ModeDevice | fs.ModeCharDevice}},
			wantErr: "cannot load irregular file zero as it has file mode type bits set",
		},
		"socket": {
			fsys:    fstest.MapFS{"sock": {Mode: fs.ModeSocket}},
			wantErr: "cannot load irregular file sock as it has file mode type bits set",
		},
		"symlink": {
			fsys:    fstest.MapFS{"link": {Mode: fs.ModeSymlink, Data: []byte("/etc/passwd")}},
			wantErr: "starter file link is a symlink: not allowed",
		},
		"file over the cap per file": {
			fsys:    fstest.MapFS{"values.yaml": {Data: []byte(strings.Repeat("x", 17))}},
			wantErr: `starter file "values.yaml" is larger than the maximum file size 16`,
		},
		"starter over the cap in all": {
			fsys: fstest.MapFS{
				"a": {Data: []byte(strings.Repeat("a", 16))}, "b": {Data: []byte(strings.Repeat("b", 16))},
				"c": {Data: []byte(strings.Repeat("c", 16))},
			},
			wantErr: "starter is larger than the maximum size 40",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			files, err := create.LoadStarter(tt.fsys, limits)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("LoadStarter = %d files, %v; want error %q", len(files), err, tt.wantErr)
			}
		})
	}
}

func TestLoadStarterReadsFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"Chart.yaml":         {Data: []byte("name: <CHARTNAME>\n")},
		"templates/cm.yaml":  {Data: []byte("kind: ConfigMap\n")},
		"templates/_h.tpl":   {Data: []byte("")},
		"charts/sub/a.yaml":  {Data: []byte("a: 1\n")},
		"empty-dir/.keep":    {Data: nil},
		"templates/NOTES.md": {Data: []byte("<CHARTNAME> is ready")},
	}
	files, err := create.LoadStarter(fsys, create.DefaultStarterLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(fsys) {
		t.Fatalf("got %d files, want %d", len(files), len(fsys))
	}
	for _, f := range files {
		if string(f.Data) != string(fsys[f.Name].Data) {
			t.Errorf("%s: got %q, want %q", f.Name, f.Data, fsys[f.Name].Data)
		}
	}
}

// FuzzLoadStarter builds a starter from arbitrary names, modes and contents: the
// loader must never panic, never return a file over the limits, and a chart made from
// what it returns never holds a path that leaves the chart.
func FuzzLoadStarter(f *testing.F) {
	f.Add("Chart.yaml", uint32(0), []byte("name: <CHARTNAME>\n"), "templates/x.yaml", uint32(0), []byte("a"))
	f.Add("Chart.yaml", uint32(0), []byte("x"), "pipe", uint32(fs.ModeNamedPipe), []byte(""))
	f.Add("../evil", uint32(0), []byte("x"), "templates/../../y", uint32(0), []byte("y"))
	f.Add("big", uint32(0), []byte(strings.Repeat("x", 300)), "link", uint32(fs.ModeSymlink), []byte("/etc"))
	f.Add("a/b", uint32(fs.ModeDir), []byte(""), "a/b/c", uint32(0), []byte("c"))
	limits := create.StarterLimits{MaxFileSize: 256, MaxTotalSize: 400}
	f.Fuzz(func(t *testing.T, n1 string, m1 uint32, d1 []byte, n2 string, m2 uint32, d2 []byte) {
		if !fs.ValidPath(n1) || !fs.ValidPath(n2) {
			return // fstest.MapFS cannot hold them (it recurses forever on "a/../.."); a real directory has none
		}
		fsys := fstest.MapFS{
			n1: {Data: d1, Mode: fs.FileMode(m1) & (fs.ModeType | fs.ModePerm)},
			n2: {Data: d2, Mode: fs.FileMode(m2) & (fs.ModeType | fs.ModePerm)},
		}
		files, err := create.LoadStarter(fsys, limits)
		if err != nil {
			return
		}
		var total int64
		for _, file := range files {
			if int64(len(file.Data)) > limits.MaxFileSize {
				t.Fatalf("%s: %d bytes accepted over the cap per file", file.Name, len(file.Data))
			}
			total += int64(len(file.Data))
		}
		if total > limits.MaxTotalSize {
			t.Fatalf("%d bytes accepted over the cap in all", total)
		}
		out, err := create.FromStarter("fuzzed", files)
		if err != nil {
			return
		}
		for _, file := range out {
			if path.IsAbs(file.Name) || file.Name == ".." || strings.HasPrefix(file.Name, "../") || !fs.ValidPath(file.Name) {
				t.Fatalf("starter file %q leaves the chart", file.Name)
			}
		}
	})
}
