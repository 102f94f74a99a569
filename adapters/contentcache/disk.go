// Package contentcache is Helm 4's content cache on disk: downloaded charts
// and provenance files stored by digest under the --content-cache directory,
// laid out as Helm 4 lays it out (ROOT/XX/HEX.chart, XX the digest's first
// byte), so that Helm 4 and kubectl chart share one cache.
package contentcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ErrIsDirectory is returned for an entry that is a directory, which only
// something other than Helm or kubectl chart can have made.
var ErrIsDirectory = errors.New("is a directory")

// maxEntry bounds what Get reads: a chart archive is bounded by the same
// size at download.
const maxEntry = 1 << 30

// Disk is a ports.ContentCache in the directory Root.
type Disk struct {
	Root string
}

var _ ports.ContentCache = Disk{}

// Path is where the content of kind under digest is kept.
func (d Disk) Path(digest [sha256.Size]byte, kind ports.ContentKind) string {
	return filepath.Join(d.Root, fmt.Sprintf("%02x", digest[0]), hex.EncodeToString(digest[:])+string(kind))
}

// Get implements ports.ContentCache.
func (d Disk) Get(_ context.Context, digest [sha256.Size]byte, kind ports.ContentKind) ([]byte, error) {
	p := d.Path(digest, kind)
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", p, ports.ErrNotCached)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, ErrIsDirectory
	case fi.Size() == 0:
		return nil, fmt.Errorf("%s is empty: %w", p, ports.ErrNotCached)
	case fi.Size() > maxEntry:
		return nil, fmt.Errorf("%s is too large (%d bytes)", p, fi.Size())
	}
	return os.ReadFile(p)
}

// Put implements ports.ContentCache.
func (d Disk) Put(_ context.Context, digest [sha256.Size]byte, kind ports.ContentKind, data []byte) error {
	p := d.Path(digest, kind)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(p, data, 0o644)
}
