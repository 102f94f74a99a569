package repo_test

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/archive"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// recorder notes the Authorization header of every request it serves.
type recorder struct {
	mu    sync.Mutex
	auths []string
}

func (r *recorder) note(req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auths = append(r.auths, req.Header.Get("Authorization"))
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auths...)
}

func packageChart(t *testing.T, name, version string) []byte {
	t.Helper()
	c := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: name, Version: version, Description: name + " chart"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n")}},
	}
	var b bytes.Buffer
	if err := archive.Write(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// serveRepo serves a repository of dir on 127.0.0.1, with basic auth when user is set.
func serveRepo(t *testing.T, dir, user, pass string, rec *recorder) *httptest.Server {
	t.Helper()
	fs := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec != nil {
			rec.note(r)
		}
		if user != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func makeRepoDir(t *testing.T, baseURL string) string {
	t.Helper()
	dir := t.TempDir()
	for _, v := range []string{"1.0.0", "1.1.0"} {
		if err := os.WriteFile(filepath.Join(dir, "demo-"+v+".tgz"), packageChart(t, "demo", v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := repo.IndexDirectory(dir, baseURL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data, err := idx.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newManager(t *testing.T) *repo.Manager {
	t.Helper()
	d := t.TempDir()
	m := repo.NewManager(repo.Paths{Config: filepath.Join(d, "config", "repositories.yaml"), Cache: filepath.Join(d, "cache")})
	return m
}

func TestManagerAddUpdateDownloadRemove(t *testing.T) {
	for _, withAuth := range []bool{false, true} {
		name := map[bool]string{false: "anonymous", true: "basic auth"}[withAuth]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := makeRepoDir(t, "")
			user, pass := "", ""
			if withAuth {
				user, pass = "alice", "s3cret"
			}
			srv := serveRepo(t, dir, user, pass, nil)
			m := newManager(t)
			if withAuth {
				err := m.Add(ctx, &domrepo.Entry{Name: "r", URL: srv.URL}, false)
				if err == nil || !strings.Contains(err.Error(), "401") {
					t.Fatalf("add without credentials: err = %v, want 401", err)
				}
			}
			e := &domrepo.Entry{Name: "r", URL: srv.URL, Username: user, Password: pass}
			if err := m.Add(ctx, e, false); err != nil {
				t.Fatal(err)
			}
			if err := m.Add(ctx, &domrepo.Entry{Name: "r", URL: srv.URL, Username: user, Password: pass}, false); !errors.Is(err, repo.ErrSameRepository) {
				t.Errorf("adding the same repository again: err = %v", err)
			}
			if res, err := m.UpdateEach(ctx); err != nil || len(res) != 1 || res[0].Err != nil {
				t.Errorf("UpdateEach: %v %v", res, err)
			}
			if err := m.Add(ctx, &domrepo.Entry{Name: "r", URL: srv.URL + "/other"}, false); err == nil {
				t.Error("adding a different repository under the same name: want an error")
			}
			if fi, err := os.Stat(m.Paths.Config); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("repositories.yaml mode: %v %v", fi, err)
			}
			if err := m.Update(ctx); err != nil {
				t.Fatal(err)
			}
			d, err := m.DownloadChart(ctx, "r", "demo", "~1.0", false)
			if err != nil {
				t.Fatal(err)
			}
			if d.Version.Version != "1.0.0" || d.Filename != "demo-1.0.0.tgz" {
				t.Errorf("downloaded %s as %s", d.Version.Version, d.Filename)
			}
			if _, err := m.DownloadChart(ctx, "r", "demo", ">2", false); err == nil {
				t.Error("no matching version: want an error")
			}
			if err := m.Remove("r"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(m.IndexPath("r")); !os.IsNotExist(err) {
				t.Errorf("cached index left behind: %v", err)
			}
			if err := m.Remove("r"); err == nil {
				t.Error("removing twice: want an error")
			}
		})
	}
}

func TestCredentialsStayWithTheirHost(t *testing.T) {
	ctx := context.Background()
	other := &recorder{}
	dir := makeRepoDir(t, "")
	otherSrv := serveRepo(t, dir, "", "", other)
	// The repository redirects everything to another host (another port of 127.0.0.1).
	home := &recorder{}
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		home.note(r)
		http.Redirect(w, r, otherSrv.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(redirecting.Close)

	for _, pass := range []bool{false, true} {
		other.auths, home.auths = nil, nil
		g, err := repo.NewGetter(&domrepo.Entry{URL: redirecting.URL, Username: "alice", Password: "s3cret", PassCredentialsAll: pass}, dialect.Default)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Get(ctx, redirecting.URL+"/index.yaml", 1<<20); err != nil {
			t.Fatal(err)
		}
		if h := home.all(); len(h) != 1 || !strings.HasPrefix(h[0], "Basic ") {
			t.Errorf("repository host got %v, want credentials", h)
		}
		got := other.all()
		if len(got) != 1 {
			t.Fatalf("other host requests: %v", got)
		}
		if pass && !strings.HasPrefix(got[0], "Basic ") {
			t.Errorf("--pass-credentials: other host got %q, want credentials", got[0])
		}
		if !pass && got[0] != "" {
			t.Errorf("credentials leaked to another host on redirect: %q", got[0])
		}
	}
}

func TestGetterTLS(t *testing.T) {
	ctx := context.Background()
	dir := makeRepoDir(t, "")
	srv := httptest.NewTLSServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)

	if _, err := repo.NewGetter(&domrepo.Entry{URL: srv.URL}, dialect.Default); err != nil {
		t.Fatal(err)
	}
	g, _ := repo.NewGetter(&domrepo.Entry{URL: srv.URL}, dialect.Default)
	if _, err := g.Get(ctx, srv.URL+"/index.yaml", 1<<20); err == nil {
		t.Error("unknown CA: want a certificate error")
	}
	g, _ = repo.NewGetter(&domrepo.Entry{URL: srv.URL, InsecureSkipTLSverify: true}, dialect.Default)
	if _, err := g.Get(ctx, srv.URL+"/index.yaml", 1<<20); err != nil {
		t.Errorf("--insecure-skip-tls-verify: %v", err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := repo.NewGetter(&domrepo.Entry{URL: srv.URL, CAFile: ca}, dialect.Default)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Get(ctx, srv.URL+"/index.yaml", 1<<20); err != nil {
		t.Errorf("custom CA: %v", err)
	}
	if _, err := repo.NewGetter(&domrepo.Entry{CAFile: filepath.Join(t.TempDir(), "missing.pem")}, dialect.Default); err == nil {
		t.Error("missing CA file: want an error")
	}
	// Helm ignores a certificate without its key unless it reads the files.
	if _, err := repo.NewGetter(&domrepo.Entry{CertFile: ca}, dialect.Default); err != nil {
		t.Errorf("cert without key: %v", err)
	}
	if _, err := repo.NewGetter(&domrepo.Entry{CertFile: ca, CAFile: ca}, dialect.Helm4); err == nil {
		t.Error("cert without key, with a CA file: want Helm 4's error")
	}
	if _, err := g.Get(ctx, srv.URL+"/demo-1.0.0.tgz", 10); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("size limit: err = %v", err)
	}
	if _, err := g.Get(ctx, "file:///etc/passwd", 10); err == nil {
		t.Error("file:// URL: want an error")
	}
}

func TestIndexDirectoryRefusesDuplicatesAndBadCharts(t *testing.T) {
	dir := t.TempDir()
	data := packageChart(t, "demo", "1.0.0")
	for _, n := range []string{"demo-1.0.0.tgz", "copy.tgz"} {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := repo.IndexDirectory(dir, "", time.Now()); err == nil || !strings.Contains(err.Error(), "already indexed") {
		t.Errorf("duplicate chart version: err = %v", err)
	}
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.tgz"), []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.IndexDirectory(dir, "", time.Now()); err == nil || !strings.Contains(err.Error(), "broken.tgz") {
		t.Errorf("broken archive: err = %v", err)
	}
}

// TestChartURLOnAnotherHostGetsNoCredentials: an index may point its chart URLs at any
// host; the repository's credentials go only to the repository's own host.
func TestChartURLOnAnotherHostGetsNoCredentials(t *testing.T) {
	ctx := context.Background()
	elsewhere := &recorder{}
	chartsDir := makeRepoDir(t, "")
	other := serveRepo(t, chartsDir, "", "", elsewhere)
	// The repository's index lists archives on the other host.
	repoDir := makeRepoDir(t, other.URL)
	home := serveRepo(t, repoDir, "alice", "s3cret", nil)
	for _, pass := range []bool{false, true} {
		elsewhere.mu.Lock()
		elsewhere.auths = nil
		elsewhere.mu.Unlock()
		m := newManager(t)
		if err := m.Add(ctx, &domrepo.Entry{Name: "r", URL: home.URL, Username: "alice", Password: "s3cret", PassCredentialsAll: pass}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := m.DownloadChart(ctx, "r", "demo", "", false); err != nil {
			t.Fatal(err)
		}
		got := elsewhere.all()
		if len(got) != 1 {
			t.Fatalf("requests to the other host: %v", got)
		}
		if pass != (got[0] != "") {
			t.Errorf("pass-credentials=%v: other host got Authorization %q", pass, got[0])
		}
	}
}

// TestConcurrentAddsKeepEveryRepository: repo add running in parallel loses nothing.
func TestConcurrentAddsKeepEveryRepository(t *testing.T) {
	ctx := context.Background()
	srv := serveRepo(t, makeRepoDir(t, ""), "", "", nil)
	m := newManager(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- m.Add(ctx, &domrepo.Entry{Name: fmt.Sprintf("r%d", i), URL: srv.URL}, false)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := m.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Repositories) != 8 {
		t.Errorf("kept %d of 8 repositories: %v", len(f.Repositories), f.Names())
	}
}

// TestIndexTimeout: an index download gives up after IndexTimeout (Helm's
// repo add/update --timeout), with the manager's context still live.
func TestIndexTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // an index that never comes, until the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	m := newManager(t)
	if m.IndexTimeout != repo.DefaultTimeout {
		t.Errorf("IndexTimeout = %s, want Helm's default %s", m.IndexTimeout, repo.DefaultTimeout)
	}
	m.IndexTimeout = time.Millisecond
	err := m.Refresh(context.Background(), &domrepo.Entry{Name: "slow", URL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Fatalf("Refresh = %v, want the client's timeout", err)
	}
}
