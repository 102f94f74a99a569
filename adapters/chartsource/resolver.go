package chartsource

import (
	"bytes"
	"context"
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
)

// OCIPuller fetches a chart archive from an OCI registry reference (oci://...),
// with withProv its provenance file too (nil when the chart has none).
type OCIPuller interface {
	PullChart(ctx context.Context, ref, version string, withProv bool) (*oci.Pulled, error)
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

// Fetch downloads the archive ref names.
func (r *Resolver) Fetch(ctx context.Context, ref string) (*Fetched, error) {
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
		p, err := r.OCI.PullChart(ctx, ref, r.Version, r.Provenance)
		if err != nil {
			return nil, err
		}
		return &Fetched{Data: p.Chart, Filename: p.Filename, URL: ref, Prov: p.Prov}, nil
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		g, err := repo.NewGetter(r.accessFor(ref), r.Dialect)
		if err != nil {
			return nil, err
		}
		data, err := g.Get(ctx, ref, repo.MaxDownloadSize)
		if err != nil {
			return nil, err
		}
		name := path.Base(strings.SplitN(strings.SplitN(ref, "?", 2)[0], "#", 2)[0])
		if !strings.HasSuffix(name, ".tgz") || name == "." || name == "/" {
			name = "chart.tgz"
		}
		return &Fetched{Data: data, Filename: name, URL: ref, Getter: g}, nil
	case strings.Contains(ref, "://"):
		return nil, fmt.Errorf("could not find protocol handler for: %s", strings.SplitN(ref, "://", 2)[0])
	}
	parts := strings.SplitN(ref, "/", 2)
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" || strings.Contains(parts[1], "/") {
		return nil, fmt.Errorf("non-absolute URLs should be in form of repo_name/path_to_chart, got: %s", ref)
	}
	if r.Repos == nil {
		return nil, fmt.Errorf("repository references are not supported here: %s", ref)
	}
	d, err := r.Repos.DownloadChart(ctx, parts[0], parts[1], r.Version, r.Devel)
	if err != nil {
		return nil, err
	}
	return &Fetched{Data: d.Data, Filename: d.Filename, URL: d.URL, Getter: d.Getter}, nil
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
