// Package memory is a release store held in process memory, for tests and for
// commands that must not touch a cluster (template). Revisions are stored
// encoded, so callers never share state with the store.
package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

type key struct {
	namespace, name string
	revision        int
}

type record struct {
	data   []byte
	labels map[string]string
}

// Store is an in-memory ports.ReleaseStore, safe for concurrent use.
type Store struct {
	mu      sync.RWMutex
	records map[key]record
}

var _ ports.ReleaseStore = (*Store)(nil)

// New returns an empty store.
func New() *Store { return &Store{records: map[key]record{}} }

func keyOf(r *release.Release) key { return key{r.Namespace, r.Name, r.Version} }

func encode(r *release.Release) (record, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return record{}, fmt.Errorf("encode release %q revision %d: %w", r.Name, r.Version, err)
	}
	return record{data: data, labels: helmrecord.StorageLabels(r)}, nil
}

func (rec record) decode() (*release.Release, error) {
	var r release.Release
	if err := json.Unmarshal(rec.data, &r); err != nil {
		return nil, err
	}
	r.Labels, r.StorageLabels = helmrecord.UserLabels(rec.labels), maps.Clone(rec.labels)
	return &r, nil
}

// Create stores a new revision.
func (s *Store) Create(_ context.Context, r *release.Release) error {
	if err := helmrecord.Validate(r); err != nil {
		return err
	}
	rec, err := encode(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := keyOf(r)
	if _, ok := s.records[k]; ok {
		return fmt.Errorf("create release %s/%s revision %d: %w", r.Namespace, r.Name, r.Version, ports.ErrReleaseExists)
	}
	s.records[k] = rec
	return nil
}

// Update replaces a stored revision.
func (s *Store) Update(_ context.Context, r *release.Release) error {
	if err := helmrecord.Validate(r); err != nil {
		return err
	}
	rec, err := encode(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := keyOf(r)
	if _, ok := s.records[k]; !ok {
		return fmt.Errorf("update release %s/%s revision %d: %w", r.Namespace, r.Name, r.Version, ports.ErrReleaseNotFound)
	}
	s.records[k] = rec
	return nil
}

// Get returns one revision.
func (s *Store) Get(_ context.Context, namespace, name string, revision int) (*release.Release, error) {
	s.mu.RLock()
	rec, ok := s.records[key{namespace, name, revision}]
	s.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("get release %s/%s revision %d: %w", namespace, name, revision, ports.ErrReleaseNotFound)
	}
	r, err := rec.decode()
	if err != nil {
		return nil, fmt.Errorf("get release %s/%s revision %d: %w", namespace, name, revision, err)
	}
	return r, nil
}

// History returns every revision of a release, oldest first.
func (s *Store) History(_ context.Context, namespace, name string) (release.History, error) {
	s.mu.RLock()
	var recs []record
	for k, rec := range s.records {
		if k.namespace == namespace && k.name == name {
			recs = append(recs, rec)
		}
	}
	s.mu.RUnlock()
	if len(recs) == 0 {
		return nil, fmt.Errorf("history of release %s/%s: %w", namespace, name, ports.ErrReleaseNotFound)
	}
	h := make(release.History, 0, len(recs))
	for _, rec := range recs {
		r, err := rec.decode()
		if err != nil {
			return nil, fmt.Errorf("history of release %s/%s: %w", namespace, name, err)
		}
		h = append(h, r)
	}
	return h.Sorted(), nil
}

// List returns summaries of matching revisions, ordered by namespace, name and revision.
func (s *Store) List(_ context.Context, q ports.ListQuery) (ports.ListResult, error) {
	m, err := helmrecord.NewMatcher(q)
	if err != nil {
		return ports.ListResult{}, err
	}
	s.mu.RLock()
	var scope []key
	for k, rec := range s.records {
		if m.MatchScope(k.namespace, rec.labels) {
			scope = append(scope, k)
		}
	}
	sortKeys(scope)
	if m.LatestOnly() {
		idx := helmrecord.Latest(scope, func(k key) string { return k.namespace }, func(k key) map[string]string { return s.records[k].labels })
		latest := make([]key, len(idx))
		for i, j := range idx {
			latest[i] = scope[j]
		}
		scope = latest
	}
	var keys []key
	for _, k := range scope {
		if m.Match(k.namespace, s.records[k].labels) {
			keys = append(keys, k)
		}
	}
	recs := make([]record, len(keys))
	for i, k := range keys {
		recs[i] = s.records[k]
	}
	s.mu.RUnlock()
	var res ports.ListResult
	for i, rec := range recs {
		r, err := rec.decode()
		if err != nil {
			k := keys[i]
			res.Problems = append(res.Problems, ports.RecordError{Object: fmt.Sprintf("memory %s/%s", k.namespace, helmrecord.ObjectName(k.name, k.revision)), Namespace: k.namespace, Release: k.name, Err: err})
			continue
		}
		sum := r.Summarize()
		sum.Status = release.Status(rec.labels[helmrecord.LabelStatus])
		sum.Labels = maps.Clone(r.Labels)
		res.Releases = append(res.Releases, sum)
	}
	return res, nil
}

func sortKeys(keys []key) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.revision < b.revision
	})
}

// Delete removes one revision and returns it.
func (s *Store) Delete(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{namespace, name, revision}
	rec, ok := s.records[k]
	if !ok {
		return nil, fmt.Errorf("delete release %s/%s revision %d: %w", namespace, name, revision, ports.ErrReleaseNotFound)
	}
	delete(s.records, k)
	r, err := rec.decode()
	if err != nil {
		return nil, fmt.Errorf("delete release %s/%s revision %d: %w", namespace, name, revision, err)
	}
	return r, nil
}
