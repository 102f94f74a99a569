package loader_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

func TestLoadDirHelmignore(t *testing.T) {
	// Expected file lists are what `helm package` (Helm v3.22) keeps of this tree
	// with each .helmignore.
	tree := func(rules string) fstest.MapFS {
		m := files(map[string]string{
			"Chart.yaml":            "apiVersion: v2\nname: c\nversion: 0.1.0\n",
			".helmignore":           rules,
			"a.txt":                 "x",
			"sub/a.txt":             "x",
			"keep.txt":              "x",
			"docs/x.md":             "x",
			"other/docs/x.md":       "x",
			"secrets/s.yaml":        "x",
			"nested/secrets/s.yaml": "x",
			"docs/secrets":          "x",
			"templates/.dot":        "x",
			"templates/sub/.dot":    "x",
			"templates/.git/config": "x",
			"templates/cm.yaml":     "x",
			"cargo/a.txt":           "x",
			"mast/b.txt":            "x",
		})
		return m
	}
	all := []string{".helmignore", "Chart.yaml", "a.txt", "cargo/a.txt", "docs/secrets", "docs/x.md", "keep.txt", "mast/b.txt", "nested/secrets/s.yaml", "other/docs/x.md", "secrets/s.yaml", "sub/a.txt", "templates/cm.yaml", "templates/sub/.dot"}
	without := func(drop ...string) []string {
		var out []string
	next:
		for _, f := range all {
			for _, d := range drop {
				if f == d {
					continue next
				}
			}
			out = append(out, f)
		}
		return out
	}
	tests := map[string]struct {
		rules   string
		want    []string
		wantErr string
	}{
		"only the default rule (dotfiles directly in templates/)": {
			rules: "",
			want:  all,
		},
		"extension glob at any depth": {
			rules: "*.txt",
			want:  without("a.txt", "cargo/a.txt", "keep.txt", "mast/b.txt", "sub/a.txt"),
		},
		"rooted pattern": {
			rules: "/a.txt",
			want:  without("a.txt"),
		},
		"rooted pattern with a directory": {
			rules: "/cargo/a.txt",
			want:  without("cargo/a.txt"),
		},
		"directory pattern skips directories of that name anywhere, not files": {
			rules: "secrets/",
			want:  without("secrets/s.yaml", "nested/secrets/s.yaml"),
		},
		"directory pattern": {
			rules: "cargo/",
			want:  without("cargo/a.txt"),
		},
		"directory pattern does not match a file": {
			rules: "a.txt/",
			want:  all,
		},
		"pattern with a slash matches the whole path": {
			rules: "docs/*.md",
			want:  without("docs/x.md"),
		},
		"one-level wildcard directory": {
			rules: "*/a.txt",
			want:  without("cargo/a.txt", "sub/a.txt"),
		},
		"bare name matches directories by base name": {
			rules: "sub",
			want:  without("sub/a.txt", "templates/sub/.dot"),
		},
		"dotfiles": {
			rules: ".*",
			want:  without(".helmignore", "templates/sub/.dot"),
		},
		"comments, blank lines and surrounding space": {
			rules: "# comment\n\n  *.md  \n",
			want:  without("docs/x.md", "other/docs/x.md"),
		},
		"negation keeps only what matches": {
			rules: "!Chart.yaml",
			want:  []string{"Chart.yaml"},
		},
		"negation of another file leaves no Chart.yaml": {
			rules:   "!keep.txt",
			wantErr: "Chart.yaml file is missing",
		},
		"negation after a glob": {
			rules:   "*.txt\n!keep.txt",
			wantErr: "Chart.yaml file is missing",
		},
		"negated directory pattern ignores files": {
			rules:   "!cargo/",
			wantErr: "Chart.yaml file is missing",
		},
		"double star is refused": {
			rules:   "*.md\nfoo/**/bar",
			wantErr: ".helmignore line 2: double-star (**) syntax is not supported",
		},
		"bad glob is refused": {
			rules:   "[z-",
			wantErr: ".helmignore line 1: syntax error in pattern",
		},
		"byte order mark before the first rule": {
			rules: "\xEF\xBB\xBF*.txt",
			want:  without("a.txt", "cargo/a.txt", "keep.txt", "mast/b.txt", "sub/a.txt"),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := loader.LoadDir(tree(tc.rules), defaultLimits())
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("LoadDir error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadDir: %v", err)
			}
			if got := sortedNames(c.Raw); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("loaded %v\nwant   %v", got, tc.want)
			}
		})
	}
}

func TestLoadDirLimitsAndIrregularFiles(t *testing.T) {
	base := map[string]string{"Chart.yaml": okChartYAML}
	with := func(extra map[string]string) fstest.MapFS {
		m := files(base)
		for k, v := range extra {
			m[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
		}
		return m
	}
	pipe := files(base)
	pipe["templates/pipe"] = &fstest.MapFile{Mode: fs.ModeNamedPipe | 0o644}
	ignoredPipe := files(map[string]string{"Chart.yaml": okChartYAML, ".helmignore": "pipe\n"})
	ignoredPipe["templates/pipe"] = &fstest.MapFile{Mode: fs.ModeNamedPipe | 0o644}

	tests := map[string]struct {
		fsys    fs.FS
		limits  loader.Limits
		wantErr string
	}{
		"file over the file limit": {
			fsys:    with(map[string]string{"values.yaml": strings.Repeat("a", 65)}),
			limits:  loader.Limits{MaxChartSize: 1 << 20, MaxFileSize: 64},
			wantErr: `chart file "values.yaml" is larger than the maximum file size 64`,
		},
		"file at the file limit": {
			fsys:   with(map[string]string{"files/data": strings.Repeat("a", 64)}),
			limits: loader.Limits{MaxChartSize: 1 << 20, MaxFileSize: 64},
		},
		"chart over the chart limit": {
			fsys:    with(map[string]string{"files/a": strings.Repeat("a", 60), "files/b": strings.Repeat("b", 60)}),
			limits:  loader.Limits{MaxChartSize: 150, MaxFileSize: 100},
			wantErr: "chart is larger than the maximum size 150",
		},
		"named pipe": {
			fsys:    pipe,
			limits:  defaultLimits(),
			wantErr: "cannot load irregular file templates/pipe as it has file mode type bits set",
		},
		"ignored named pipe": {
			fsys:   ignoredPipe,
			limits: defaultLimits(),
		},
		"empty directory": {
			fsys:    fstest.MapFS{},
			limits:  defaultLimits(),
			wantErr: "Chart.yaml file is missing",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := loader.LoadDir(tc.fsys, tc.limits)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("LoadDir error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

// link is a symbolic link to create in a test chart: at Path (in the chart),
// pointing to Target (as written; "$OUTSIDE" stands for the absolute path of a
// file outside the chart).
type link struct{ Path, Target string }

// symlinkChart writes a chart under dir/chart, a file outside it
// (dir/outside/secret.yaml) and the links, and returns the chart directory.
func symlinkChart(t *testing.T, links []link, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "chart")
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "outside", "secret.yaml"), "secret: outside\n")
	write(filepath.Join(root, "Chart.yaml"), "apiVersion: v2\nname: chart\nversion: 0.1.0\n")
	write(filepath.Join(root, "files", "real.yaml"), "real: true\n")
	write(filepath.Join(root, "vendor", "sub", "Chart.yaml"), "apiVersion: v2\nname: sub\nversion: 0.2.0\n")
	write(filepath.Join(root, "vendor", "sub", "templates", "s.yaml"), "kind: Sub\n")
	for name, body := range extra {
		write(filepath.Join(root, filepath.FromSlash(name)), body)
	}
	for _, l := range links {
		p := filepath.Join(root, filepath.FromSlash(l.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		target := strings.ReplaceAll(l.Target, "$OUTSIDE", filepath.Join(dir, "outside", "secret.yaml"))
		if err := os.Symlink(target, p); err != nil {
			prereq.Missing(t, "symbolic links unavailable: %v", err)
		}
	}
	return root
}

func TestLoadDirSymlinks(t *testing.T) {
	type check struct {
		templates map[string]string // template name -> content
		files     []string
		subcharts []string
	}
	outsideAbs := func(root string) string { return filepath.Join(filepath.Dir(root), "outside", "secret.yaml") }

	tests := map[string]struct {
		links   []link
		extra   map[string]string
		want    *check
		wantErr func(root string) string
	}{
		"internal file link is followed": {
			links: []link{{Path: "templates/link.yaml", Target: "../files/real.yaml"}},
			want: &check{
				templates: map[string]string{"templates/link.yaml": "real: true\n"},
				files:     []string{"files/real.yaml", "vendor/sub/Chart.yaml", "vendor/sub/templates/s.yaml"},
			},
		},
		"chain of internal links is followed": {
			links: []link{
				{Path: "templates/one.yaml", Target: "two.yaml"},
				{Path: "templates/two.yaml", Target: "../files/three.yaml"},
				{Path: "files/three.yaml", Target: "real.yaml"},
			},
			want: &check{
				templates: map[string]string{"templates/one.yaml": "real: true\n", "templates/two.yaml": "real: true\n"},
				files:     []string{"files/real.yaml", "files/three.yaml", "vendor/sub/Chart.yaml", "vendor/sub/templates/s.yaml"},
			},
		},
		"internal directory link is followed": {
			links: []link{{Path: "charts/sub", Target: "../vendor/sub"}},
			want: &check{
				templates: map[string]string{},
				files:     []string{"files/real.yaml", "vendor/sub/Chart.yaml", "vendor/sub/templates/s.yaml"},
				subcharts: []string{"sub"},
			},
		},
		"file link out of the chart": {
			links: []link{{Path: "templates/evil.yaml", Target: "../../outside/secret.yaml"}},
			wantErr: func(string) string {
				return `symbolic link "templates/evil.yaml" points outside the chart (to "../../outside/secret.yaml")`
			},
		},
		"directory link out of the chart": {
			links: []link{{Path: "charts/ext", Target: "../../outside"}},
			wantErr: func(string) string {
				return `symbolic link "charts/ext" points outside the chart (to "../../outside")`
			},
		},
		"link out of the chart through an internal link": {
			links: []link{
				{Path: "templates/hop.yaml", Target: "../files/hop.yaml"},
				{Path: "files/hop.yaml", Target: "../../outside/secret.yaml"},
			},
			wantErr: func(string) string {
				return `symbolic link "files/hop.yaml" points outside the chart (to "../../outside/secret.yaml")`
			},
		},
		"absolute link": {
			links: []link{{Path: "templates/abs.yaml", Target: "$OUTSIDE"}},
			wantErr: func(root string) string {
				return fmt.Sprintf("symbolic link %q points outside the chart (to %q)", "templates/abs.yaml", outsideAbs(root))
			},
		},
		"link to a device": {
			links: []link{{Path: "templates/null.yaml", Target: "/dev/null"}},
			wantErr: func(string) string {
				return `symbolic link "templates/null.yaml" points outside the chart (to "/dev/null")`
			},
		},
		"link loop": {
			links: []link{{Path: "loop1", Target: "loop2"}, {Path: "loop2", Target: "loop1"}},
			wantErr: func(string) string {
				return `symbolic link "loop1": too many levels of links`
			},
		},
		"directory link to an ancestor": {
			links: []link{{Path: "templates/again", Target: ".."}},
			wantErr: func(string) string {
				return `chart directory "templates/again": symbolic link loop`
			},
		},
		"directory link to itself": {
			links: []link{{Path: "files/self", Target: "."}},
			wantErr: func(string) string {
				return `chart directory "files/self": symbolic link loop`
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := symlinkChart(t, tc.links, tc.extra)
			c, err := loader.LoadDir(os.DirFS(root), defaultLimits())
			if tc.wantErr != nil {
				want := tc.wantErr(root)
				if err == nil || err.Error() != want {
					t.Fatalf("LoadDir error = %v\nwant %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadDir: %v", err)
			}
			got := map[string]string{}
			for _, f := range c.Templates {
				got[f.Name] = string(f.Data)
			}
			if !reflect.DeepEqual(got, tc.want.templates) {
				t.Errorf("templates = %v, want %v", got, tc.want.templates)
			}
			if names := sortedNames(c.Files); !reflect.DeepEqual(names, tc.want.files) {
				t.Errorf("files = %v, want %v", names, tc.want.files)
			}
			if subs := depNames(c); !sameStrings(subs, tc.want.subcharts) {
				t.Errorf("subcharts = %v, want %v", subs, tc.want.subcharts)
			}
		})
	}
}

func TestLoadDirDanglingLink(t *testing.T) {
	root := symlinkChart(t, []link{{Path: "templates/gone.yaml", Target: "missing.yaml"}}, nil)
	_, err := loader.LoadDir(os.DirFS(root), defaultLimits())
	if err == nil {
		t.Fatal("LoadDir loaded a chart with a dangling link")
	}
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), `stat "templates/gone.yaml": `) {
		t.Errorf("error = %q, want a not-exist error naming templates/gone.yaml", err)
	}
}

func TestLoadDirFromDisk(t *testing.T) {
	// testdata/ferry read straight from disk: no packed subcharts, but the
	// .helmignore and default rules apply.
	c, err := loader.LoadDir(os.DirFS("testdata/ferry"), defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := treeNames(c), []string{"ferry", "ferry.dinghy", "ferry.dinghy.mast1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tree = %v, want %v", got, want)
	}
	if got, want := names(c.Templates), []string{"templates/template.tpl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("templates = %v, want %v", got, want)
	}
	for _, f := range c.Raw {
		if strings.HasPrefix(f.Name, "ignore/") || strings.HasSuffix(f.Name, ".swp") {
			t.Errorf("ignored file %s was loaded", f.Name)
		}
	}
}

// Files keep their modification times, which Helm 4's records hold: the
// chart's is Chart.yaml's, the schema's values.schema.json's.
func TestLoadDirModTimes(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 1, 2, h, 0, 0, 0, time.UTC) }
	fsys := fstest.MapFS{
		"Chart.yaml":         {Data: []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"), ModTime: at(1)},
		"values.yaml":        {Data: []byte("a: 1\n"), ModTime: at(2)},
		"values.schema.json": {Data: []byte("{}\n"), ModTime: at(3)},
		"templates/t.yaml":   {Data: []byte("x: 1\n"), ModTime: at(4)},
		"README.md":          {Data: []byte("# c\n"), ModTime: at(5)},
	}
	c, err := loader.LoadDir(fsys, defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !c.ModTime.Equal(at(1)) || !c.SchemaModTime.Equal(at(3)) {
		t.Errorf("chart modtime %v, schema modtime %v", c.ModTime, c.SchemaModTime)
	}
	if got := c.Templates[0].ModTime; !got.Equal(at(4)) {
		t.Errorf("template modtime %v, want %v", got, at(4))
	}
	if got := c.Files[0].ModTime; !got.Equal(at(5)) {
		t.Errorf("file modtime %v, want %v", got, at(5))
	}
}
