package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// Paths locates the repository configuration and the index cache.
type Paths struct {
	// Config is repositories.yaml.
	Config string
	// Cache is the directory of cached indexes, NAME-index.yaml.
	Cache string
}

// ErrNoRepositories is returned when no repository is configured.
var ErrNoRepositories = errors.New("no repositories configured")

// Manager keeps repositories.yaml and the index cache.
type Manager struct {
	Paths Paths
	Now   func() time.Time
	// Warn receives skipped index entries.
	Warn func(format string, args ...any)
	// Dialect is whose words refuse a repository's unusable TLS files.
	Dialect dialect.Dialect
	// IndexTimeout bounds an index download, as Helm's repo add and update
	// --timeout (zero: none, as there).
	IndexTimeout time.Duration
}

// DefaultTimeout bounds a download, as Helm's HTTP getter does by default
// (its repo add and update --timeout default).
const DefaultTimeout = 2 * time.Minute

// NewManager returns a manager over paths.
func NewManager(p Paths) *Manager {
	return &Manager{Paths: p, Now: time.Now, Warn: func(string, ...any) {}, IndexTimeout: DefaultTimeout}
}

// Load reads repositories.yaml; a missing file is an empty one.
func (m *Manager) Load() (*domrepo.File, error) {
	data, err := os.ReadFile(m.Paths.Config)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read repository config: %w", err)
	}
	return domrepo.ParseFile(data, m.Paths.Config)
}

// Save writes repositories.yaml atomically, readable only by its owner: it holds credentials.
func (m *Manager) Save(f *domrepo.File) error {
	f.Generated = m.Now().UTC()
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	return writeAtomic(m.Paths.Config, data, 0o600)
}

// Entry returns the configured repository name.
func (m *Manager) Entry(name string) (*domrepo.Entry, error) {
	f, err := m.Load()
	if err != nil {
		return nil, err
	}
	e := f.Get(name)
	if e == nil {
		return nil, fmt.Errorf("repo %s not found", name)
	}
	return e, nil
}

// IndexPath is the cached index of repository name.
func (m *Manager) IndexPath(name string) string {
	return filepath.Join(m.Paths.Cache, name+"-index.yaml")
}

// Add checks that e serves a valid index, caches it and records e. An existing
// repository of the same name is replaced only when its settings are identical or force is set.
func (m *Manager) Add(ctx context.Context, e *domrepo.Entry, force bool) error {
	if err := domrepo.ValidateName(e.Name); err != nil {
		return err
	}
	if strings.Contains(e.Name, "/") {
		return fmt.Errorf("repository name (%s) contains '/', please specify a different name without '/'", e.Name)
	}
	unlock, err := lockConfig(m.Paths.Config)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := m.Load()
	if err != nil {
		return err
	}
	if old := f.Get(e.Name); old != nil && !force {
		if *old == *e {
			return ErrSameRepository
		}
		return fmt.Errorf("repository name (%s) already exists, please specify a different name", e.Name)
	}
	if _, err := m.fetchIndex(ctx, e); err != nil {
		return fmt.Errorf("looks like %q is not a valid chart repository or cannot be reached: %w", e.URL, err)
	}
	f.Update(e)
	return m.Save(f)
}

// ErrSameRepository is returned by Add when the repository is already configured identically.
var ErrSameRepository = errors.New("repository already exists with the same configuration")

// UpdateResult is the outcome of refreshing one repository's index.
type UpdateResult struct {
	Entry *domrepo.Entry
	Err   error
}

// UpdateEach refreshes the named repositories (all when names is empty) in parallel and
// reports each outcome, in configuration order.
func (m *Manager) UpdateEach(ctx context.Context, names ...string) ([]UpdateResult, error) {
	f, err := m.Load()
	if err != nil {
		return nil, err
	}
	if len(f.Repositories) == 0 {
		return nil, ErrNoRepositories
	}
	entries := f.Repositories
	if len(names) > 0 {
		entries = nil
		for _, n := range names {
			e := f.Get(n)
			if e == nil {
				return nil, fmt.Errorf("no repositories found matching '%s'.  Nothing will be updated", n)
			}
			entries = append(entries, e)
		}
	}
	results := make([]UpdateResult, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := m.fetchIndex(ctx, e)
			results[i] = UpdateResult{Entry: e, Err: err}
		}()
	}
	wg.Wait()
	return results, nil
}

// Update refreshes the cached index of each named repository (all when names is empty).
func (m *Manager) Update(ctx context.Context, names ...string) error {
	f, err := m.Load()
	if err != nil {
		return err
	}
	if len(f.Repositories) == 0 {
		return ErrNoRepositories
	}
	var entries []*domrepo.Entry
	if len(names) == 0 {
		entries = f.Repositories
	}
	for _, n := range names {
		e := f.Get(n)
		if e == nil {
			return fmt.Errorf("no repositories found matching '%s'.  Nothing will be updated", n)
		}
		entries = append(entries, e)
	}
	var errs []error
	for _, e := range entries {
		if _, err := m.fetchIndex(ctx, e); err != nil {
			errs = append(errs, fmt.Errorf("unable to get an update from the %q chart repository (%s): %w", e.Name, e.URL, err))
		}
	}
	return errors.Join(errs...)
}

// Remove forgets the named repository and its cached index.
func (m *Manager) Remove(name string) error {
	unlock, err := lockConfig(m.Paths.Config)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := m.Load()
	if err != nil {
		return err
	}
	if !f.Remove(name) {
		return fmt.Errorf("no repo named %q found", name)
	}
	if err := m.Save(f); err != nil {
		return err
	}
	if err := os.Remove(m.IndexPath(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove cached index: %w", err)
	}
	return nil
}

// Refresh downloads the index of e, which need not be configured, into the
// cache under e's name.
func (m *Manager) Refresh(ctx context.Context, e *domrepo.Entry) error {
	_, err := m.fetchIndex(ctx, e)
	return err
}

func (m *Manager) fetchIndex(ctx context.Context, e *domrepo.Entry) (*domrepo.Index, error) {
	g, err := NewGetter(e, m.Dialect)
	if err != nil {
		return nil, err
	}
	g.client.Timeout = m.IndexTimeout
	u := IndexURL(e.URL)
	data, err := g.Get(ctx, u, domrepo.DefaultMaxIndexSize)
	if err != nil {
		return nil, err
	}
	idx, warnings, err := domrepo.ParseIndex(data, u)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		m.Warn("index of repository %q: %s", e.Name, w)
	}
	if err := os.MkdirAll(m.Paths.Cache, 0o755); err != nil {
		return nil, fmt.Errorf("create repository cache: %w", err)
	}
	if err := writeAtomic(m.IndexPath(e.Name), data, 0o644); err != nil {
		return nil, err
	}
	return idx, nil
}

// Index reads the cached index of repository name.
func (m *Manager) Index(name string) (*domrepo.Index, error) {
	idx, err := m.readIndex(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no cached index for repository %q: run 'kubectl chart repo update %s'", name, name)
	}
	return idx, err
}

func (m *Manager) readIndex(name string) (*domrepo.Index, error) {
	p := m.IndexPath(name)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	idx, _, err := domrepo.ParseIndex(data, p)
	return idx, err
}

// Indexes reads the cached index of every configured repository; one it
// cannot read is left out and handed to unreadable (when not nil) with the
// read's own error, for the caller to warn in its Helm's words.
func (m *Manager) Indexes(unreadable func(name string, err error)) (map[string]*domrepo.Index, error) {
	f, err := m.Load()
	if err != nil {
		return nil, err
	}
	if len(f.Repositories) == 0 {
		return nil, ErrNoRepositories
	}
	out := map[string]*domrepo.Index{}
	for _, e := range f.Repositories {
		idx, err := m.readIndex(e.Name)
		if err != nil {
			if unreadable != nil {
				unreadable(e.Name, err)
			}
			continue
		}
		out[e.Name] = idx
	}
	return out, nil
}

// Download is a chart archive fetched from a repository.
type Download struct {
	Data     []byte
	Filename string
	Version  *domrepo.ChartVersion
	URL      string
	Getter   *Getter
}

// Located is a chart version found in a repository's cached index, not yet
// downloaded.
type Located struct {
	Version  *domrepo.ChartVersion
	URL      string
	Filename string
	Getter   *Getter
	name     string
}

// DownloadChart fetches chart from repository repoName at the newest version matching version.
func (m *Manager) DownloadChart(ctx context.Context, repoName, chartName, version string, devel bool) (*Download, error) {
	l, err := m.LocateChart(repoName, chartName, version, devel)
	if err != nil {
		return nil, err
	}
	data, err := l.Download(ctx)
	if err != nil {
		return nil, err
	}
	return &Download{Data: data, Filename: l.Filename, Version: l.Version, URL: l.URL, Getter: l.Getter}, nil
}

// LocateChart finds chart in repository repoName's cached index at the
// newest version matching version.
func (m *Manager) LocateChart(repoName, chartName, version string, devel bool) (*Located, error) {
	e, err := m.Entry(repoName)
	if err != nil {
		return nil, err
	}
	idx, err := m.Index(repoName)
	if err != nil {
		return nil, err
	}
	var cv *domrepo.ChartVersion
	if devel {
		cv, err = idx.GetDevel(chartName, version)
	} else {
		cv, err = idx.Get(chartName, version)
	}
	if err != nil {
		matching := version
		if devel && matching == "" {
			matching = domrepo.DevelConstraint
		}
		return nil, fmt.Errorf("chart %q matching %s not found in %s index. (try 'kubectl chart repo update'): %w", chartName, matching, repoName, err)
	}
	if len(cv.URLs) == 0 {
		return nil, fmt.Errorf("chart %q version %s has no downloadable URLs", chartName, cv.Version)
	}
	u, err := domrepo.ResolveURL(e.URL, cv.URLs[0])
	if err != nil {
		return nil, err
	}
	g, err := NewGetter(e, m.Dialect)
	if err != nil {
		return nil, err
	}
	return &Located{Version: cv, URL: u, Filename: archiveName(u, chartName, cv.Version), Getter: g, name: chartName}, nil
}

// Download fetches the archive, which must have the index's digest when the
// index records one.
func (l *Located) Download(ctx context.Context) ([]byte, error) {
	data, err := l.Getter.Get(ctx, l.URL, MaxDownloadSize)
	if err != nil {
		return nil, err
	}
	if l.Version.Digest != "" {
		if got := domrepo.Digest(data); got != l.Version.Digest {
			return nil, fmt.Errorf("chart %s-%s: digest %s does not match the index's %s", l.name, l.Version.Version, got, l.Version.Digest)
		}
	}
	return data, nil
}

func archiveName(u, name, version string) string {
	base := u
	if i := strings.IndexAny(base, "?#"); i >= 0 {
		base = base[:i]
	}
	base = base[strings.LastIndex(base, "/")+1:]
	if !strings.HasSuffix(base, ".tgz") || base != filepath.Base(base) || strings.HasPrefix(base, ".") {
		return fmt.Sprintf("%s-%s.tgz", name, version)
	}
	return base
}

// writeAtomic replaces path with data, creating its directory first.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return atomicfile.Write(path, data, mode)
}
