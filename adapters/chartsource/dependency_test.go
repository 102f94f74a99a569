package chartsource_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/archive"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loopbackRepo serves charts lib 1.0.0, 1.1.0 and 2.0.0 from 127.0.0.1.
func loopbackRepo(t *testing.T) string {
	t.Helper()
	url, _ := countingRepo(t)
	return url
}

// countingRepo is loopbackRepo counting the downloads of its index.
func countingRepo(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	dir := t.TempDir()
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0"} {
		c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "lib", Version: v},
			Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lib\n")}}}
		var b bytes.Buffer
		if err := archive.Write(&b, c); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, archive.FileName(c)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := repo.IndexDirectory(dir, "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := idx.Marshal()
	if err := os.WriteFile(filepath.Join(dir, "index.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var indexHits atomic.Int32
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/index.yaml") {
			indexHits.Add(1)
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &indexHits
}

func newDeps(t *testing.T) (*chartsource.Dependencies, *repo.Manager) {
	d := t.TempDir()
	m := repo.NewManager(repo.Paths{Config: filepath.Join(d, "repositories.yaml"), Cache: filepath.Join(d, "cache")})
	return &chartsource.Dependencies{Repos: m, Out: &bytes.Buffer{}, Now: time.Now}, m
}

func TestDependencyUpdateAndBuild(t *testing.T) {
	ctx := context.Background()
	url := loopbackRepo(t)
	deps, m := newDeps(t)
	if err := m.Add(ctx, &domrepo.Entry{Name: "stable", URL: url}, false); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"sibling/Chart.yaml": "apiVersion: v2\nname: sibling\nversion: 0.3.0\n",
		"app/Chart.yaml": `apiVersion: v2
name: app
version: 1.0.0
dependencies:
- name: lib
  version: ^1.0.0
  repository: "@stable"
- name: lib
  alias: lib2
  version: ">=2"
  repository: ` + url + `
- name: sibling
  version: ~0.3
  repository: file://../sibling
`,
	})
	app := filepath.Join(root, "app")
	if err := deps.Update(ctx, app); err != nil {
		t.Fatal(err)
	}
	lockData, err := os.ReadFile(filepath.Join(app, "Chart.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var lock chart.Lock
	if err := yaml.Unmarshal(lockData, &lock); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range lock.Dependencies {
		got = append(got, d.Name+"@"+d.Version)
	}
	if strings.Join(got, ",") != "lib@1.1.0,lib@2.0.0,sibling@0.3.0" {
		t.Errorf("locked %v", got)
	}
	if lock.Dependencies[0].Repository != url {
		t.Errorf("@stable locked as %q, want the repository URL", lock.Dependencies[0].Repository)
	}
	for _, f := range []string{"lib-1.1.0.tgz", "lib-2.0.0.tgz", "sibling-0.3.0.tgz"} {
		if _, err := os.Stat(filepath.Join(app, "charts", f)); err != nil {
			t.Error(err)
		}
	}
	rows, err := chartsource.NewLocal().List(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		// As Helm's: two archives lib-VERSION.tgz match both lib entries.
		want := map[string]string{"lib": "too many matches", "sibling": "ok"}[r.Name]
		if r.Status != want {
			t.Errorf("dependency list: %+v, want status %q", r, want)
		}
	}

	// build restores exactly the locked versions.
	if err := os.RemoveAll(filepath.Join(app, "charts")); err != nil {
		t.Fatal(err)
	}
	if err := deps.Build(ctx, app); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(app, "charts", "lib-1.1.0.tgz")); err != nil {
		t.Error(err)
	}

	// A changed Chart.yaml makes the lock stale.
	cy, _ := os.ReadFile(filepath.Join(app, "Chart.yaml"))
	writeFiles(t, app, map[string]string{"Chart.yaml": strings.Replace(string(cy), "^1.0.0", "~1.0.0", 1)})
	if err := deps.Build(ctx, app); !errors.Is(err, chartsource.ErrLockOutOfSync) {
		t.Errorf("stale lock: err = %v", err)
	}
}

// A configured repository's index is downloaded once per run however many
// dependencies it serves, and not at all with SkipRefresh.
func TestDependencyRefresh(t *testing.T) {
	ctx := context.Background()
	url, indexHits := countingRepo(t)
	deps, m := newDeps(t)
	if err := m.Add(ctx, &domrepo.Entry{Name: "stable", URL: url}, false); err != nil {
		t.Fatal(err)
	}
	app := t.TempDir()
	writeFiles(t, app, map[string]string{"Chart.yaml": `apiVersion: v2
name: app
version: 1.0.0
dependencies:
- {name: lib, version: ^1.0.0, repository: "@stable"}
- {name: lib, alias: two, version: ">=2", repository: "` + url + `"}
- {name: lib, alias: three, version: "~1.0", repository: "@stable"}
`})
	tests := []struct {
		name        string
		skipRefresh bool
		wantHits    int32
	}{
		{"refresh once", false, 1},
		{"skip refresh", true, 0},
	}
	for _, tc := range tests {
		indexHits.Store(0)
		run := &chartsource.Dependencies{Repos: m, Out: deps.Out, Now: time.Now, SkipRefresh: tc.skipRefresh}
		if err := run.Update(ctx, app); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := indexHits.Load(); got != tc.wantHits {
			t.Errorf("%s: index downloaded %d times, want %d", tc.name, got, tc.wantHits)
		}
	}
}

func TestDependencyUpdateRefusesSymlinkedLock(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"victim.txt":     "precious\n",
		"sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
		"app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 1.0.0\n  repository: file://../sub\n",
	})
	app := filepath.Join(root, "app")
	if err := os.Symlink(filepath.Join(root, "victim.txt"), filepath.Join(app, "Chart.lock")); err != nil {
		t.Fatal(err)
	}
	deps, _ := newDeps(t)
	err := deps.Update(ctx, app)
	if err == nil {
		t.Fatal("want an error")
	}
	if !strings.Contains(err.Error(), "Chart.lock") {
		t.Errorf("error does not name Chart.lock: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "victim.txt")); string(b) != "precious\n" {
		t.Errorf("wrote through the symlink: %q", b)
	}
}

func TestDependencyErrors(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		chartYAML string
		want      string
	}{
		"unknown alias":    {"dependencies:\n- name: x\n  version: 1.0.0\n  repository: '@nope'\n", "no repository definition for @nope"},
		"bad constraint":   {"dependencies:\n- name: x\n  version: not-a-range\n  repository: file://../sub\n", "invalid version/constraint"},
		"file version":     {"dependencies:\n- name: sub\n  version: '>=2'\n  repository: file://../sub\n", "can't get a valid version"},
		"not a repository": {"dependencies:\n- name: x\n  version: 1.0.0\n  repository: stable\n", "Note that repositories must be URLs or aliases"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{
				"sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
				"app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n" + tc.chartYAML,
			})
			deps, _ := newDeps(t)
			err := deps.Update(ctx, filepath.Join(root, "app"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
