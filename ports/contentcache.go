package ports

import (
	"context"
	"crypto/sha256"
	"errors"
)

// ContentKind is what a content cache entry holds.
type ContentKind string

// The kinds Helm 4's content cache keeps: a chart archive and its provenance
// file, both under the archive's digest.
const (
	ContentChart ContentKind = ".chart"
	ContentProv  ContentKind = ".prov"
)

// ErrNotCached is returned by ContentCache.Get for content the cache does not
// hold (an empty entry counts as none, as in Helm 4).
var ErrNotCached = errors.New("not in the content cache")

// ContentCache keeps downloaded content by the SHA-256 digest of the chart
// archive it belongs to (Helm 4's --content-cache), so that a chart whose
// digest is known before the download (a repository index's, a registry
// reference's) is read from it instead of the network.
type ContentCache interface {
	// Get returns the content of kind stored under digest, or an error that
	// wraps ErrNotCached.
	Get(ctx context.Context, digest [sha256.Size]byte, kind ContentKind) ([]byte, error)
	// Put stores data as the content of kind under digest, replacing any.
	Put(ctx context.Context, digest [sha256.Size]byte, kind ContentKind, data []byte) error
}
