package contentcache_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/contentcache"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestDiskContract(t *testing.T) {
	porttest.ContentCache(t, contentcache.Disk{Root: filepath.Join(t.TempDir(), "content")})
}

// The layout is Helm 4's: ROOT/XX/HEX.KIND, files 0644 in directories 0755.
func TestDiskLayout(t *testing.T) {
	root := t.TempDir()
	c := contentcache.Disk{Root: root}
	key := sha256.Sum256([]byte("x"))
	if err := c.Put(context.Background(), key, ports.ContentProv, []byte("p")); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "2d", "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881.prov")
	fi, err := os.Stat(want)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("entry %s: %v", want, err)
	}
	if c.Path(key, ports.ContentProv) != want {
		t.Errorf("Path = %s, want %s", c.Path(key, ports.ContentProv), want)
	}
}

// As in Helm 4: an empty entry is none, a directory is an error.
func TestDiskOddEntries(t *testing.T) {
	ctx := context.Background()
	c := contentcache.Disk{Root: t.TempDir()}
	empty, dir := sha256.Sum256([]byte("empty")), sha256.Sum256([]byte("dir"))
	if err := c.Put(ctx, empty, ports.ContentChart, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c.Path(dir, ports.ContentChart), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		key  [sha256.Size]byte
		want error
	}{
		"empty file": {key: empty, want: ports.ErrNotCached},
		"directory":  {key: dir, want: contentcache.ErrIsDirectory},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := c.Get(ctx, tc.key, ports.ContentChart); !errors.Is(err, tc.want) {
				t.Errorf("Get: %v, want %v", err, tc.want)
			}
		})
	}
}
