package chartsource_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/adapters/contentcache"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// archiveCounting serves the loopback repository through a proxy that counts
// the archives it serves.
func archiveCounting(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	upstream := loopbackRepo(t)
	var archives atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".tgz") {
			archives.Add(1)
		}
		resp, err := http.Get(upstream + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer func() { _ = resp.Body.Close() }()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &archives
}

// Helm 4's content cache: template and install store what they download,
// under the index's digest, and read it back instead of downloading; pull
// only reads; an entry whose bytes are not its digest's is not used.
func TestResolverContentCache(t *testing.T) {
	ctx := context.Background()
	url, archives := archiveCounting(t)
	_, m := newDeps(t)
	if err := m.Add(ctx, &domrepo.Entry{Name: "stable", URL: url}, false); err != nil {
		t.Fatal(err)
	}
	cache := contentcache.Disk{Root: t.TempDir()}
	resolver := func(store bool) *chartsource.Resolver {
		return &chartsource.Resolver{Local: chartsource.NewLocal(), Repos: m, Version: "1.0.0", Content: cache, StoreContent: store}
	}
	l, err := m.LocateChart("stable", "lib", "1.0.0", false)
	if err != nil {
		t.Fatal(err)
	}
	var key [sha256.Size]byte
	if _, err := hex.Decode(key[:], []byte(l.Version.Digest)); err != nil {
		t.Fatal(err)
	}

	// pull only reads: nothing stored.
	if _, err := resolver(false).Fetch(ctx, "stable/lib"); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Get(ctx, key, ports.ContentChart); !errors.Is(err, ports.ErrNotCached) {
		t.Fatalf("pull stored its download: %v", err)
	}
	steps := []struct {
		name     string
		store    bool
		corrupt  bool
		archives int32
	}{
		{name: "template downloads and stores", store: true, archives: 2},
		{name: "template reads the cache", store: true, archives: 2},
		{name: "pull reads the cache", store: false, archives: 2},
		{name: "an entry with other bytes is downloaded again", store: true, corrupt: true, archives: 3},
		{name: "and replaced", store: false, archives: 3},
	}
	for _, s := range steps {
		if s.corrupt {
			if err := os.WriteFile(cache.Path(key, ports.ContentChart), []byte("not the chart"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := resolver(s.store).Fetch(ctx, "stable/lib")
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := sha256.Sum256(f.Data); got != key {
			t.Errorf("%s: fetched other bytes", s.name)
		}
		if n := archives.Load(); n != s.archives {
			t.Errorf("%s: %d archive downloads, want %d", s.name, n, s.archives)
		}
	}

	// A URL has no digest before the download: stored under the archive's.
	f, err := resolver(true).Fetch(ctx, url+"/lib-2.0.0.tgz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Get(ctx, sha256.Sum256(f.Data), ports.ContentChart); err != nil {
		t.Errorf("a URL's download was not stored: %v", err)
	}
	unset := resolver(true)
	unset.ContentErr = errors.New("content cache must be set")
	if _, err := unset.Fetch(ctx, "stable/lib"); err == nil || err.Error() != "content cache must be set" {
		t.Errorf("without a cache: %v", err)
	}
}
