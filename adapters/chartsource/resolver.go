package chartsource

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// OCIPuller fetches a chart archive from an OCI registry reference (oci://...),
// with withProv its provenance file too (nil when the chart has none).
type OCIPuller interface {
	PullChart(ctx context.Context, ref, version string, withProv bool) (*oci.Pulled, error)
	// ContentDigest is the key the content cache holds ref's chart under
	// before it is downloaded, "" when only the archive's digest will do.
	ContentDigest(ctx context.Context, ref, version string) (string, error)
}

// Resolver loads charts by any reference Helm accepts: a local directory or archive,
// REPO/NAME from a configured repository, an http(s) URL of an archive, or oci://.
type Resolver struct {
	Local   Local
	Repos   *repo.Manager
	OCI     OCIPuller
	Version string
	Devel   bool
	// URLAccess holds credentials and TLS settings for http(s) references that belong
	// to no configured repository (its URL is ignored).
	URLAccess domrepo.Entry
	// RepoURL, when set, is a repository (not configured) that bare chart names are
	// looked up in, as with Helm's --repo.
	RepoURL string
	// Provenance has Fetch pull an OCI chart's provenance layer into Fetched.Prov.
	Provenance bool
	// Dialect is whose words refuse unusable TLS files of URLAccess.
	Dialect dialect.Dialect
	// Content is Helm 4's content cache, nil for none (Helm 3). Fetch reads
	// a chart from it when its digest is known before the download (a
	// repository index's), and with StoreContent stores what it downloads,
	// under that digest or the archive's own: Helm 4's install, upgrade,
	// template and show store, its pull only reads.
	Content      ports.ContentCache
	StoreContent bool
	// ContentErr, when set, is returned by every download: Helm 4 refuses
	// to download without a content cache.
	ContentErr error
	// Plugins, when set, returns the getter plugin serving a URL scheme.
	Plugins func(scheme string) (ports.Getter, bool)
}

// Fetched is a chart archive obtained from a remote reference.
type Fetched struct {
	Data     []byte
	Filename string
	// URL is where the archive came from (for .prov files next to it).
	URL    string
	Getter *repo.Getter
	// Prov is the provenance file pulled with an OCI chart (Resolver.Provenance),
	// nil when there is none.
	Prov []byte
	// key is the content cache's key for the archive, when known.
	key   [sha256.Size]byte
	keyed bool
}

// ErrLocal is returned by Fetch for references that name local files.
var ErrLocal = errors.New("reference is a local path")

// IsRemote reports whether ref names something to download.
func IsRemote(ref string) bool {
	if _, err := os.Stat(ref); err == nil {
		return false
	}
	// As Helm: what does not exist locally is a path only when it is absolute
	// or starts with "."; anything else names a repository chart or a URL.
	return !filepath.IsAbs(ref) && !strings.HasPrefix(ref, ".")
}

// LoadChart implements ports.ChartSource.
func (r *Resolver) LoadChart(ctx context.Context, ref string) (*chart.Chart, error) {
	if !IsRemote(ref) && r.RepoURL == "" {
		return r.Local.LoadChart(ctx, ref)
	}
	f, err := r.Fetch(ctx, ref)
	if err != nil {
		return nil, err
	}
	c, err := loader.LoadArchive(bytes.NewReader(f.Data), r.Local.Limits)
	if err != nil {
		return nil, fmt.Errorf("load chart %q: %w", ref, err)
	}
	return c, nil
}

// Fetch downloads the archive ref names, or reads it from the content cache.
func (r *Resolver) Fetch(ctx context.Context, ref string) (*Fetched, error) {
	if r.ContentErr != nil {
		return nil, r.ContentErr
	}
	f, err := r.fetch(ctx, ref)
	if err != nil || r.Content == nil || !r.StoreContent || f.keyed {
		return f, err
	}
	f.key, f.keyed = sha256.Sum256(f.Data), true
	if err := r.Content.Put(ctx, f.key, ports.ContentChart, f.Data); err != nil {
		return nil, err
	}
	if f.Prov != nil {
		if err := r.Content.Put(ctx, f.key, ports.ContentProv, f.Prov); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// fetchWithPlugin downloads ref through a getter plugin; the file is named
// after the URL's last element, as for http(s) URLs.
func fetchWithPlugin(ctx context.Context, g ports.Getter, ref string) (*Fetched, error) {
	data, err := g.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	return &Fetched{Data: data, Filename: urlFilename(ref), URL: ref}, nil
}

// urlFilename is the archive name a URL's last element gives, chart.tgz when
// it names no .tgz.
func urlFilename(ref string) string {
	name := path.Base(strings.SplitN(strings.SplitN(ref, "?", 2)[0], "#", 2)[0])
	if !strings.HasSuffix(name, ".tgz") || name == "." || name == "/" {
		name = "chart.tgz"
	}
	return name
}

func (r *Resolver) fetch(ctx context.Context, ref string) (*Fetched, error) {
	if r.RepoURL != "" {
		return r.fetchFromRepoURL(ctx, ref)
	}
	switch {
	case !IsRemote(ref):
		return nil, fmt.Errorf("%w: %s", ErrLocal, ref)
	case strings.HasPrefix(ref, "oci://"):
		if r.OCI == nil {
			return nil, errors.New("OCI registries are not supported here")
		}
		return r.fetchOCI(ctx, ref)
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		g, err := repo.NewGetter(r.accessFor(ref), r.Dialect)
		if err != nil {
			return nil, err
		}
		data, err := g.Get(ctx, ref, repo.MaxDownloadSize)
		if err != nil {
			return nil, err
		}
		return &Fetched{Data: data, Filename: urlFilename(ref), URL: ref, Getter: g}, nil
	case strings.Contains(ref, "://"):
		scheme := strings.SplitN(ref, "://", 2)[0]
		if r.Plugins != nil {
			if g, ok := r.Plugins(scheme); ok {
				return fetchWithPlugin(ctx, g, ref)
			}
		}
		return nil, fmt.Errorf("could not find protocol handler for: %s", scheme)
	}
	parts := strings.SplitN(ref, "/", 2)
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" || strings.Contains(parts[1], "/") {
		return nil, fmt.Errorf("non-absolute URLs should be in form of repo_name/path_to_chart, got: %s", ref)
	}
	if r.Repos == nil {
		return nil, fmt.Errorf("repository references are not supported here: %s", ref)
	}
	l, err := r.Repos.LocateChart(parts[0], parts[1], r.Version, r.Devel)
	if err != nil {
		return nil, err
	}
	f := &Fetched{Filename: l.Filename, URL: l.URL, Getter: l.Getter}
	if r.Content != nil && l.Version.Digest != "" {
		if f.key, err = contentKey(l.Version.Digest, r.StoreContent); err != nil {
			return nil, err
		}
		f.keyed = true
		data, err := r.Content.Get(ctx, f.key, ports.ContentChart)
		switch {
		case err == nil && sha256.Sum256(data) == f.key:
			f.Data = data
			return f, nil
		case err == nil:
			// Not the content its name says (Helm 4 stores under an
			// index's digest unchecked): downloaded again, and replaced.
		case r.StoreContent && !errors.Is(err, ports.ErrNotCached):
			// Helm 4's install and template fail on an unreadable entry;
			// its pull downloads instead.
			return nil, err
		}
	}
	if f.Data, err = l.Download(ctx); err != nil {
		return nil, err
	}
	if f.keyed && r.StoreContent {
		if err := r.Content.Put(ctx, f.key, ports.ContentChart, f.Data); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// CachedOCIChart returns the chart archive ref names from the content cache
// when its tag confirms its digest (ContentDigest, asked of puller) and the
// cache holds it; nil when not (Helm 4's pull downloads what it cannot read
// from the cache).
func (r *Resolver) CachedOCIChart(ctx context.Context, puller OCIPuller, ref string) ([]byte, error) {
	data, _, _, err := r.cachedOCI(ctx, puller, ref)
	return data, err
}

// cachedOCI looks ref up in the content cache under the digest its tag
// confirms: the entry's data when there is one, and the key (keyed false when
// ref has none). An entry that cannot be read is an error only for a storing
// download, as in Helm 4.
func (r *Resolver) cachedOCI(ctx context.Context, puller OCIPuller, ref string) (data []byte, key [sha256.Size]byte, keyed bool, err error) {
	if r.Content == nil {
		return nil, key, false, nil
	}
	digest, err := puller.ContentDigest(ctx, ref, r.Version)
	if err != nil || digest == "" {
		return nil, key, false, err
	}
	if key, err = contentKey(digest, r.StoreContent); err != nil {
		return nil, key, false, err
	}
	data, err = r.Content.Get(ctx, key, ports.ContentChart)
	if err != nil && (!r.StoreContent || errors.Is(err, ports.ErrNotCached)) {
		err = nil
	}
	return data, key, true, err
}

// fetchOCI pulls an OCI chart, or reads it from the content cache when the
// reference's digest is confirmed by its tag, as Helm 4 does; such an entry is
// kept under the reference's (manifest's) digest, not its archive's. A chart
// pulled with its provenance is always pulled.
func (r *Resolver) fetchOCI(ctx context.Context, ref string) (*Fetched, error) {
	f := &Fetched{URL: ref}
	if !r.Provenance {
		data, key, keyed, err := r.cachedOCI(ctx, r.OCI, ref)
		if err != nil {
			return nil, err
		}
		f.key, f.keyed = key, keyed
		if data != nil {
			// An entry that is not a chart is pulled again, and replaced.
			if f.Filename, err = oci.ArchiveFilename(data); err == nil {
				f.Data = data
				return f, nil
			}
		}
	}
	p, err := r.OCI.PullChart(ctx, ref, r.Version, r.Provenance)
	if err != nil {
		return nil, err
	}
	f.Data, f.Filename, f.Prov = p.Chart, p.Filename, p.Prov
	if f.keyed && r.StoreContent {
		if err := r.Content.Put(ctx, f.key, ports.ContentChart, f.Data); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// contentKey reads a digest as Helm 4 does for its content cache: hex after
// an optional algorithm prefix, 32 bytes; storing is whether the words are
// those of Helm 4's storing download.
func contentKey(digest string, storing bool) ([sha256.Size]byte, error) {
	var key [sha256.Size]byte
	if _, after, ok := strings.Cut(digest, ":"); ok {
		digest = after
	}
	b, err := hex.DecodeString(digest)
	if err != nil {
		if storing {
			return key, fmt.Errorf("unable to decode digest: %w", err)
		}
		return key, err
	}
	if len(b) != sha256.Size {
		return key, fmt.Errorf("invalid digest length: %d", len(b))
	}
	copy(key[:], b)
	return key, nil
}

// CachedProvenance returns the provenance file of f from the content cache,
// or an error that wraps ports.ErrNotCached.
func (r *Resolver) CachedProvenance(ctx context.Context, f *Fetched) ([]byte, error) {
	if r.Content == nil || !f.keyed {
		return nil, ports.ErrNotCached
	}
	prov, err := r.Content.Get(ctx, f.key, ports.ContentProv)
	if err != nil && !r.StoreContent {
		// Helm 4's pull downloads whatever the cache says.
		return nil, fmt.Errorf("%w: %w", ports.ErrNotCached, err)
	}
	return prov, err
}

// StoreProvenance keeps f's downloaded provenance file in the content cache
// when Fetch stores what it downloads.
func (r *Resolver) StoreProvenance(ctx context.Context, f *Fetched, prov []byte) error {
	if r.Content == nil || !r.StoreContent || !f.keyed {
		return nil
	}
	return r.Content.Put(ctx, f.key, ports.ContentProv, prov)
}

// accessFor picks the settings for a chart URL: those of the configured repository
// the URL lies under, else the command's own (whose credentials then go to that URL's host only).
func (r *Resolver) accessFor(ref string) *domrepo.Entry {
	if r.Repos != nil {
		if f, err := r.Repos.Load(); err == nil {
			for _, e := range f.Repositories {
				if strings.HasPrefix(ref, strings.TrimSuffix(e.URL, "/")+"/") {
					return e
				}
			}
		}
	}
	e := r.URLAccess
	e.URL = ref
	return &e
}

// fetchFromRepoURL downloads chart name from the repository at r.RepoURL.
func (r *Resolver) fetchFromRepoURL(ctx context.Context, name string) (*Fetched, error) {
	if name == "" || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return nil, fmt.Errorf("with --repo, the chart is a name in that repository, got %q", name)
	}
	access := r.URLAccess
	access.URL = r.RepoURL
	g, err := repo.NewGetter(&access, r.Dialect)
	if err != nil {
		return nil, err
	}
	indexURL := repo.IndexURL(r.RepoURL)
	data, err := g.Get(ctx, indexURL, domrepo.DefaultMaxIndexSize)
	if err != nil {
		return nil, fmt.Errorf("looks like %q is not a valid chart repository or cannot be reached: %w", r.RepoURL, err)
	}
	idx, _, err := domrepo.ParseIndex(data, indexURL)
	if err != nil {
		return nil, err
	}
	var cv *domrepo.ChartVersion
	if r.Devel {
		cv, err = idx.GetDevel(name, r.Version)
	} else {
		cv, err = idx.Get(name, r.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("chart %q not found in %s: %w", name, r.RepoURL, err)
	}
	if len(cv.URLs) == 0 {
		return nil, fmt.Errorf("chart %q version %s has no downloadable URLs", name, cv.Version)
	}
	u, err := domrepo.ResolveURL(r.RepoURL, cv.URLs[0])
	if err != nil {
		return nil, err
	}
	archive, err := g.Get(ctx, u, repo.MaxDownloadSize)
	if err != nil {
		return nil, err
	}
	if cv.Digest != "" && domrepo.Digest(archive) != cv.Digest {
		return nil, fmt.Errorf("chart %s-%s: digest does not match the index", name, cv.Version)
	}
	return &Fetched{Data: archive, Filename: fmt.Sprintf("%s-%s.tgz", name, cv.Version), URL: u, Getter: g}, nil
}
