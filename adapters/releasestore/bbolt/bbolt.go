// Package bbolt stores releases in a local bbolt file, for development without a
// cluster (--storage bbolt). Every write is one bbolt transaction, so a crash
// never leaves half a revision. The file is opened for each operation and
// closed after it: bbolt locks the file while open, so several processes can
// share it, and one that waits longer than the lock timeout gets ErrBusy
// instead of hanging.
//
// Layout: bucket "releases" maps <namespace>\x00<name>\x00<revision, 10 digits>
// to the release JSON; bucket "meta" maps the same key to the storage labels and
// the summary, so listing decodes no release; bucket "locks" holds the release
// locks (lock.go).
package bbolt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// DefaultLockTimeout is how long an operation waits for another process to
// release the file.
const DefaultLockTimeout = 2 * time.Second

// ErrBusy means another process held the database file past the lock timeout.
var ErrBusy = errors.New("release database is in use by another process")

var (
	bucketReleases = []byte("releases")
	bucketMeta     = []byte("meta")
)

// Store is a ports.ReleaseStore in a bbolt file.
type Store struct {
	path    string
	timeout time.Duration
	// mu serialises this process's operations: bbolt's file lock would make
	// them wait for each other anyway, with the timeout.
	mu sync.Mutex
}

var _ ports.ReleaseStore = (*Store)(nil)

// New returns a store in the file at path, created (with its directory) on first write.
func New(path string, lockTimeout time.Duration) *Store {
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	return &Store{path: path, timeout: lockTimeout}
}

type meta struct {
	Labels  map[string]string `json:"labels"`
	Summary release.Summary   `json:"summary"`
}

func key(namespace, name string, revision int) []byte {
	return fmt.Appendf(nil, "%s\x00%s\x00%010d", namespace, name, revision)
}

func releasePrefix(namespace, name string) []byte {
	return fmt.Appendf(nil, "%s\x00%s\x00", namespace, name)
}

func (s *Store) do(ctx context.Context, write bool, fn func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if write {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return fmt.Errorf("create directory of release database: %w", err)
		}
	} else if _, err := os.Stat(s.path); errors.Is(err, os.ErrNotExist) {
		// Reading a database that does not exist yet is reading an empty one.
		return fn(nil)
	}
	db, err := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: s.timeout, ReadOnly: !write})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return fmt.Errorf("open %s: %w (waited %s; is another kubectl chart running?)", s.path, ErrBusy, s.timeout)
		}
		return fmt.Errorf("open release database %s: %w", s.path, err)
	}
	defer db.Close()
	if write {
		return db.Update(func(tx *bolt.Tx) error {
			for _, b := range [][]byte{bucketReleases, bucketMeta, bucketLocks} {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return err
				}
			}
			return fn(tx)
		})
	}
	return db.View(fn)
}

func bucket(tx *bolt.Tx, name []byte) *bolt.Bucket {
	if tx == nil {
		return nil
	}
	return tx.Bucket(name)
}

func (s *Store) put(ctx context.Context, r *release.Release, create bool) error {
	if err := helmrecord.Validate(r); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode release %q: %w", r.Name, err)
	}
	sum := r.Summarize()
	sum.Labels = nil
	m, err := json.Marshal(meta{Labels: helmrecord.StorageLabels(r), Summary: sum})
	if err != nil {
		return fmt.Errorf("encode release %q: %w", r.Name, err)
	}
	k := key(r.Namespace, r.Name, r.Version)
	return s.do(ctx, true, func(tx *bolt.Tx) error {
		rb := tx.Bucket(bucketReleases)
		exists := rb.Get(k) != nil
		switch {
		case create && exists:
			return fmt.Errorf("create release %s/%s revision %d: %w", r.Namespace, r.Name, r.Version, ports.ErrReleaseExists)
		case !create && !exists:
			return fmt.Errorf("update release %s/%s revision %d: %w", r.Namespace, r.Name, r.Version, ports.ErrReleaseNotFound)
		}
		if err := rb.Put(k, data); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(k, m)
	})
}

// Create stores a new revision.
func (s *Store) Create(ctx context.Context, r *release.Release) error { return s.put(ctx, r, true) }

// Update replaces a stored revision.
func (s *Store) Update(ctx context.Context, r *release.Release) error { return s.put(ctx, r, false) }

func decode(k, data, metaData []byte) (*release.Release, error) {
	var r release.Release
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, ports.RecordError{Object: "bbolt record " + printableKey(k), Err: err}
	}
	var m meta
	if err := json.Unmarshal(metaData, &m); err != nil {
		return nil, ports.RecordError{Object: "bbolt metadata " + printableKey(k), Err: err}
	}
	r.Labels, r.StorageLabels = helmrecord.UserLabels(m.Labels), maps.Clone(m.Labels)
	return &r, nil
}

func printableKey(k []byte) string { return string(bytes.ReplaceAll(k, []byte{0}, []byte("/"))) }

// Get returns one revision.
func (s *Store) Get(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	var r *release.Release
	err := s.do(ctx, false, func(tx *bolt.Tx) error {
		k := key(namespace, name, revision)
		rb := bucket(tx, bucketReleases)
		if rb == nil || rb.Get(k) == nil {
			return fmt.Errorf("get release %s/%s revision %d: %w", namespace, name, revision, ports.ErrReleaseNotFound)
		}
		var err error
		r, err = decode(k, rb.Get(k), bucket(tx, bucketMeta).Get(k))
		return err
	})
	return r, err
}

// History returns every revision of a release, oldest first.
func (s *Store) History(ctx context.Context, namespace, name string) (release.History, error) {
	var h release.History
	err := s.do(ctx, false, func(tx *bolt.Tx) error {
		rb := bucket(tx, bucketReleases)
		if rb == nil {
			return nil
		}
		mb := tx.Bucket(bucketMeta)
		prefix := releasePrefix(namespace, name)
		c := rb.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			r, err := decode(k, v, mb.Get(k))
			if err != nil {
				return err
			}
			h = append(h, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("history of release %s/%s: %w", namespace, name, err)
	}
	if len(h) == 0 {
		return nil, fmt.Errorf("history of release %s/%s: %w", namespace, name, ports.ErrReleaseNotFound)
	}
	return h.Sorted(), nil
}

// List summarises matching revisions from the metadata bucket alone.
func (s *Store) List(ctx context.Context, q ports.ListQuery) (ports.ListResult, error) {
	m, err := helmrecord.NewMatcher(q)
	if err != nil {
		return ports.ListResult{}, err
	}
	var res ports.ListResult
	err = s.do(ctx, false, func(tx *bolt.Tx) error {
		mb := bucket(tx, bucketMeta)
		if mb == nil {
			return nil
		}
		var prefix []byte
		if q.Namespace != "" {
			prefix = append([]byte(q.Namespace), 0)
		}
		type item struct {
			ns string
			md meta
		}
		var scope []item
		c := mb.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			ns, _, _ := bytes.Cut(k, []byte{0})
			var md meta
			if err := json.Unmarshal(v, &md); err != nil {
				res.Problems = append(res.Problems, ports.RecordError{Object: "bbolt metadata " + printableKey(k), Namespace: string(ns), Err: err})
				continue
			}
			if m.MatchScope(string(ns), md.Labels) {
				scope = append(scope, item{string(ns), md})
			}
		}
		if m.LatestOnly() {
			idx := helmrecord.Latest(scope, func(it item) string { return it.ns }, func(it item) map[string]string { return it.md.Labels })
			latest := make([]item, len(idx))
			for i, j := range idx {
				latest[i] = scope[j]
			}
			scope = latest
		}
		for _, it := range scope {
			if !m.Match(it.ns, it.md.Labels) {
				continue
			}
			sum := it.md.Summary
			sum.Namespace = it.ns
			sum.Status = release.Status(it.md.Labels[helmrecord.LabelStatus])
			if rev, err := strconv.Atoi(it.md.Labels[helmrecord.LabelVersion]); err == nil {
				sum.Revision = rev
			}
			sum.Labels = helmrecord.UserLabels(it.md.Labels)
			res.Releases = append(res.Releases, sum)
		}
		return nil
	})
	return res, err
}

// Delete removes one revision and returns it.
func (s *Store) Delete(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	var r *release.Release
	err := s.do(ctx, true, func(tx *bolt.Tx) error {
		k := key(namespace, name, revision)
		rb, mb := tx.Bucket(bucketReleases), tx.Bucket(bucketMeta)
		data := rb.Get(k)
		if data == nil {
			return fmt.Errorf("delete release %s/%s revision %d: %w", namespace, name, revision, ports.ErrReleaseNotFound)
		}
		var err error
		// Decode before deleting: bbolt's slices die with the change.
		if r, err = decode(k, data, mb.Get(k)); err != nil {
			return err
		}
		if err := rb.Delete(k); err != nil {
			return err
		}
		return mb.Delete(k)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}
