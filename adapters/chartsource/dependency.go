package chartsource

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/archive"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// ErrLockOutOfSync is returned by Build when Chart.lock does not match Chart.yaml.
var ErrLockOutOfSync = errors.New("the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). Please update the dependencies")

// lockOutOfSync is ErrLockOutOfSync in the words of dialect d's Helm: Helm 4
// names the command that fixes it.
func lockOutOfSync(d dialect.Dialect) error {
	if d == dialect.Helm3 {
		return ErrLockOutOfSync
	}
	return fmt.Errorf("%w with 'kubectl chart dependency update'", ErrLockOutOfSync)
}

// Dependencies downloads a chart's dependencies into its charts/ directory and keeps
// its Chart.lock, as `helm dependency update|build` do.
type Dependencies struct {
	Repos *repo.Manager
	OCI   OCIPuller
	Out   io.Writer
	// Pulls, when set, is told of each chart pulled from a registry, as
	// Helm's registry client tells (on stderr in Helm 3, stdout in Helm 4).
	Pulls io.Writer
	Now   func() time.Time
	// SkipRefresh uses the cached indexes of configured repositories as they
	// are; otherwise each is downloaded afresh, once per run.
	SkipRefresh bool
	// Warn reports what is worth saying but no failure (Helm logs it); nil
	// writes the text to Out.
	Warn func(format string, args ...any)
	// Limits are the rules charts are read by (loader.LimitsFor a dialect: Helm 4 reads
	// every document of a values.yaml); the zero value is Helm 3's (loader.DefaultLimits).
	Limits loader.Limits
	// Verify, when set, checks each dependency downloaded from a repository or
	// a registry against its provenance file before it is kept (--verify);
	// filename is the archive's. Its errors are reported as they are.
	Verify func(archive []byte, filename string, prov []byte) error
	// Dialect is whose words refuse a repository's unusable TLS files.
	Dialect dialect.Dialect
	// ProvOptional keeps a dependency without a provenance file, unverified,
	// with a warning, as Helm's build does; Helm's update refuses it.
	ProvOptional bool
}

// local is the loader of the charts whose dependencies are managed.
func (d *Dependencies) local() Local {
	if d.Limits == (loader.Limits{}) {
		return NewLocal()
	}
	// Helm 4's dependency manager loads charts with its chart v2 loader, whatever
	// their apiVersion, so its errors name the v2 types.
	return Local{Limits: d.Limits, NoDetect: true}
}

// unmanagedPrefix names the cached indexes of the repositories a chart names
// by URL without their being configured, as Helm names them, so the cache
// stays shared with Helm's.
const unmanagedPrefix = "helm-manager-"

func unmanagedName(u string) string {
	sum := sha256.Sum256([]byte(u))
	return unmanagedPrefix + hex.EncodeToString(sum[:])
}

// Update resolves Chart.yaml's dependencies to the newest matching versions, downloads
// them into charts/ and writes the lock file. What it says on Out, and when,
// is what Helm says: the repositories refreshed, the charts saved, a failed
// download.
func (d *Dependencies) Update(ctx context.Context, dir string) error {
	c, err := d.local().LoadChart(ctx, dir)
	if err != nil {
		return err
	}
	req := c.Metadata.Dependencies
	if len(req) == 0 {
		return nil
	}
	for _, name := range []string{"Chart.lock", "requirements.lock"} {
		// Checked before anything is downloaded, and again when writing.
		if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink: refusing to write through it", filepath.Join(dir, name))
		}
	}
	names, err := d.resolveRepoNames(dir, req)
	if err != nil {
		return err
	}
	if err := d.refreshUnmanaged(ctx, req, names); err != nil {
		return err
	}
	if err := d.refreshConfigured(ctx); err != nil {
		return err
	}
	locked, pulled, err := d.resolve(ctx, dir, req, names)
	if err != nil {
		return err
	}
	files, err := d.downloadAll(ctx, dir, locked, pulled)
	if err != nil {
		return err
	}
	if err := d.writeCharts(dir, locked, files); err != nil {
		return err
	}
	sum, err := HashReq(req, locked)
	if err != nil {
		return err
	}
	lock := &chart.Lock{Generated: d.Now().UTC(), Digest: sum, Dependencies: locked}
	if c.Lock != nil && c.Lock.Digest == sum {
		lock.Generated = c.Lock.Generated
	}
	name := "Chart.lock"
	if c.Metadata.APIVersion == chart.APIVersionV1 {
		name = "requirements.lock"
	}
	data, err := yaml.Marshal(lock)
	if err != nil {
		return err
	}
	return writeNoFollow(filepath.Join(dir, name), data)
}

// Build downloads exactly the versions in the lock file; without one it updates.
func (d *Dependencies) Build(ctx context.Context, dir string) error {
	c, err := d.local().LoadChart(ctx, dir)
	if err != nil {
		return err
	}
	if c.Lock == nil {
		return d.Update(ctx, dir)
	}
	req := c.Metadata.Dependencies
	// A requirements.lock may come from Helm 2, which hashed the requirements
	// as written (before repository names are resolved), as Helm 3 accepts.
	var v2Sum string
	if c.Metadata.APIVersion == chart.APIVersionV1 {
		if v2Sum, err = hashV2Req(req); err != nil {
			return err
		}
	}
	if _, err := d.resolveRepoNames(dir, req); err != nil {
		return err
	}
	if sum, err := HashReq(req, c.Lock.Dependencies); err != nil || sum != c.Lock.Digest {
		if c.Metadata.APIVersion != chart.APIVersionV1 {
			return lockOutOfSync(d.Dialect)
		}
		d.warnf("warning: a valid Helm v3 hash was not found. Checking against Helm v2 hash...")
		if v2Sum != c.Lock.Digest {
			return errors.New("the lock file (requirements.lock) is out of sync with the dependencies file (requirements.yaml). Please update the dependencies")
		}
	}
	for _, l := range c.Lock.Dependencies {
		if l == nil {
			return errors.New("Chart.lock: dependencies must not contain empty entries") //nolint:staticcheck // file name
		}
	}
	// Build takes only configured repositories, as Helm's does.
	if err := d.hasAllRepos(c.Lock.Dependencies); err != nil {
		return err
	}
	if err := d.refreshConfigured(ctx); err != nil {
		return err
	}
	files, err := d.downloadAll(ctx, dir, c.Lock.Dependencies, nil)
	if err != nil {
		return err
	}
	return d.writeCharts(dir, c.Lock.Dependencies, files)
}

// repoFile is the repository configuration; none without a manager.
func (d *Dependencies) repoFile() (*domrepo.File, error) {
	if d.Repos == nil {
		return &domrepo.File{}, nil
	}
	return d.Repos.Load()
}

// configured finds the configured repository a dependency names, by URL,
// @NAME or alias:NAME; byName says it was named.
func configured(f *domrepo.File, repository string) (e *domrepo.Entry, byName bool) {
	for _, e := range f.Repositories {
		if strings.TrimPrefix(repository, "@") == e.Name && strings.HasPrefix(repository, "@") ||
			strings.TrimPrefix(repository, "alias:") == e.Name && strings.HasPrefix(repository, "alias:") {
			return e, true
		}
		if urlEqual(e.URL, repository) {
			return e, false
		}
	}
	return nil, false
}

// urlEqual compares repository URLs as Helm does: a trailing slash or a
// dot segment makes no difference.
func urlEqual(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	for _, u := range []*url.URL{ua, ub} {
		if u.Path == "" {
			u.Path = "/"
		}
		u.Path = path.Clean(u.Path)
	}
	return ua.String() == ub.String()
}

// resolveRepoNames turns "@name" and "alias:name" into the named repository's
// URL and maps each dependency, by position, to where its index is cached:
// the name of its configured repository; refreshUnmanaged names those not
// configured. (Helm keys this by the dependency's name, so two aliases of a
// chart from different repositories fail there; they work here.)
func (d *Dependencies) resolveRepoNames(dir string, req []*chart.Dependency) (map[int]string, error) {
	f, err := d.repoFile()
	if err != nil {
		return nil, err
	}
	names := map[int]string{}
	var missing []string
	for i, dep := range req {
		switch {
		case dep.Repository == "":
			continue
		case strings.HasPrefix(dep.Repository, "file://"):
			if _, err := localPath(dep.Repository, dir); err != nil {
				return nil, err
			}
			names[i] = dep.Repository
			continue
		case strings.HasPrefix(dep.Repository, "oci://"):
			names[i] = dep.Repository
			continue
		}
		if e, byName := configured(f, dep.Repository); e != nil {
			if byName {
				dep.Repository = e.URL
			}
			names[i] = e.Name
			continue
		}
		if _, err := url.ParseRequestURI(dep.Repository); err == nil {
			continue
		}
		missing = append(missing, dep.Repository)
	}
	if len(missing) == 0 {
		return names, nil
	}
	msg := fmt.Sprintf("no repository definition for %s. Please add them via 'kubectl chart repo add'", strings.Join(missing, ", "))
	for _, r := range missing {
		if !strings.Contains(r, "//") && !strings.HasPrefix(r, "@") && !strings.HasPrefix(r, "alias:") {
			// Helm's hint for the common mistake of naming a repository bare.
			msg += "\nNote that repositories must be URLs or aliases. For example, to refer to the \"example\"\n" +
				"repository, use \"https://charts.example.com/\" or \"@example\" instead of\n" +
				"\"example\". Don't forget to add the repo, too ('kubectl chart repo add')."
			break
		}
	}
	return nil, errors.New(msg)
}

// hasAllRepos checks that every repository of the locked dependencies is
// configured.
func (d *Dependencies) hasAllRepos(deps []*chart.Dependency) error {
	f, err := d.repoFile()
	if err != nil {
		return err
	}
	var missing []string
	for _, dep := range deps {
		if dep.Repository == "" || strings.HasPrefix(dep.Repository, "file://") || strings.HasPrefix(dep.Repository, "oci://") {
			continue
		}
		if e, _ := configured(f, strings.TrimSuffix(dep.Repository, "/")); e == nil {
			missing = append(missing, dep.Repository)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no repository definition for %s. Please add the missing repos via 'kubectl chart repo add'", strings.Join(missing, ", "))
	}
	return nil
}

// localPath is where a file:// dependency (or charts/NAME) lives.
func localPath(repository, dir string) (string, error) {
	p := strings.TrimPrefix(repository, "file://")
	if filepath.IsAbs(p) {
		p = filepath.Clean(p)
	} else {
		p = filepath.Join(dir, p)
	}
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("directory %s not found", p)
	} else if err != nil {
		return "", err
	}
	return p, nil
}

// refreshUnmanaged downloads the index of each repository the chart names by
// an URL that is not configured, cached under Helm's generated name, which it
// records in names.
func (d *Dependencies) refreshUnmanaged(ctx context.Context, req []*chart.Dependency, names map[int]string) error {
	var entries []*domrepo.Entry
	seen := map[string]bool{}
	for i, dep := range req {
		if dep.Repository == "" {
			continue
		}
		if _, ok := names[i]; ok {
			continue
		}
		n := unmanagedName(dep.Repository)
		names[i] = n
		if k := strings.TrimSuffix(dep.Repository, "/"); !seen[k] {
			seen[k] = true
			entries = append(entries, &domrepo.Entry{Name: n, URL: dep.Repository})
		}
	}
	if d.SkipRefresh || len(entries) == 0 {
		return nil
	}
	if d.Repos == nil {
		return errors.New("no repository cache to keep the indexes in")
	}
	fmt.Fprintln(d.Out, "Getting updates for unmanaged Helm repositories...")
	d.refreshAll(ctx, entries, true)
	return nil
}

// refreshConfigured downloads the index of every configured repository
// (once per URL) unless SkipRefresh; a repository that fails is reported,
// not fatal.
func (d *Dependencies) refreshConfigured(ctx context.Context) error {
	if d.SkipRefresh || d.Repos == nil {
		return nil
	}
	f, err := d.Repos.Load()
	if err != nil {
		return err
	}
	if len(f.Repositories) == 0 {
		return nil
	}
	var entries []*domrepo.Entry
	at := map[string]int{}
	for _, e := range f.Repositories {
		k := strings.TrimSuffix(e.URL, "/")
		if i, ok := at[k]; ok {
			entries[i] = e
			continue
		}
		at[k] = len(entries)
		entries = append(entries, e)
	}
	fmt.Fprintln(d.Out, "Hang tight while we grab the latest from your chart repositories...")
	d.refreshAll(ctx, entries, false)
	fmt.Fprintln(d.Out, "Update Complete. ⎈Happy Helming!⎈")
	return nil
}

// refreshAll downloads the entries' indexes in parallel and reports each in
// Helm's words, naming unmanaged repositories by URL.
func (d *Dependencies) refreshAll(ctx context.Context, entries []*domrepo.Entry, unmanaged bool) {
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.Repos.Refresh(ctx, e)
		}()
	}
	wg.Wait()
	for i, e := range entries {
		switch {
		case errs[i] != nil && unmanaged:
			fmt.Fprintf(d.Out, "...Unable to get an update from the %q chart repository:\n\t%s\n", e.URL, errs[i])
		case errs[i] != nil:
			fmt.Fprintf(d.Out, "...Unable to get an update from the %q chart repository (%s):\n\t%s\n", e.Name, e.URL, errs[i])
		case unmanaged:
			fmt.Fprintf(d.Out, "...Successfully got an update from the %q chart repository\n", e.URL)
		default:
			fmt.Fprintf(d.Out, "...Successfully got an update from the %q chart repository\n", e.Name)
		}
	}
}

// resolve picks the version of each dependency: a local chart's own, the
// newest of a cached repository index that matches, an OCI dependency's
// exact version or the newest tag that matches (pulled then).
func (d *Dependencies) resolve(ctx context.Context, dir string, req []*chart.Dependency, names map[int]string) ([]*chart.Dependency, map[int]*oci.Pulled, error) {
	locked := make([]*chart.Dependency, len(req))
	pulled := map[int]*oci.Pulled{}
	var missing []string
	for i, dep := range req {
		cons, err := semver.NewConstraint(dep.Version)
		if err != nil {
			return nil, nil, fmt.Errorf("dependency %q has an invalid version/constraint format: %w", dep.Name, err)
		}
		locked[i] = &chart.Dependency{Name: dep.Name, Repository: dep.Repository, Version: dep.Version}
		var ok bool
		switch {
		case dep.Repository == "":
			_, err = localPath(filepath.Join("charts", dep.Name), dir)
			ok = true
		case strings.HasPrefix(dep.Repository, "file://"):
			ok, err = d.resolveLocal(ctx, dir, dep, cons, locked[i])
		case strings.HasPrefix(dep.Repository, "oci://"):
			var p *oci.Pulled
			p, err = d.resolveOCI(ctx, dep, locked[i])
			if p != nil {
				pulled[i] = p
			}
			ok = true
		default:
			ok, err = d.resolveIndexed(dep, names[i], cons, locked[i])
		}
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			missing = append(missing, fmt.Sprintf("%q (repository %q, version %q)", dep.Name, dep.Repository, dep.Version))
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("can't get a valid version for %d subchart(s): %s. Make sure a matching chart version exists in the repo, or change the version constraint in Chart.yaml", len(missing), strings.Join(missing, ", "))
	}
	return locked, pulled, nil
}

// resolveLocal locks a file:// dependency to its chart's version; false when
// that does not match.
func (d *Dependencies) resolveLocal(ctx context.Context, dir string, dep *chart.Dependency, cons *semver.Constraints, l *chart.Dependency) (bool, error) {
	p, err := localPath(dep.Repository, dir)
	if err != nil {
		return false, err
	}
	sub, err := d.local().LoadChart(ctx, p)
	if err != nil {
		return false, err
	}
	v, err := semver.NewVersion(sub.Metadata.Version)
	if err != nil || !cons.Check(v) {
		return false, nil
	}
	l.Version = sub.Metadata.Version
	return true, nil
}

// resolveOCI locks an OCI dependency: an exact version as it is, a range to
// the newest matching tag, pulling that chart.
func (d *Dependencies) resolveOCI(ctx context.Context, dep *chart.Dependency, l *chart.Dependency) (*oci.Pulled, error) {
	if _, err := semver.NewVersion(dep.Version); err == nil {
		return nil, nil
	}
	if d.OCI == nil {
		return nil, fmt.Errorf("dependency %q: OCI registries are not supported here", dep.Name)
	}
	ref := strings.TrimSuffix(dep.Repository, "/") + "/" + dep.Name
	p, err := d.OCI.PullChart(ctx, ref, dep.Version, d.Verify != nil)
	if err != nil {
		return nil, fmt.Errorf("could not retrieve list of tags for repository %s: %w", dep.Repository, err)
	}
	sub, err := loader.LoadArchive(bytes.NewReader(p.Chart), loader.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("dependency %q: %w", dep.Name, err)
	}
	l.Version = sub.Metadata.Version
	return p, nil
}

// resolveIndexed locks a repository dependency to the newest version of the
// cached index that matches; false when none does.
func (d *Dependencies) resolveIndexed(dep *chart.Dependency, name string, cons *semver.Constraints, l *chart.Dependency) (bool, error) {
	if d.Repos == nil {
		return false, fmt.Errorf("dependency %q: no repository configuration", dep.Name)
	}
	p := d.Repos.IndexPath(name)
	data, err := os.ReadFile(p)
	var idx *domrepo.Index
	if err == nil {
		idx, _, err = domrepo.ParseIndex(data, p)
	}
	if err != nil {
		return false, fmt.Errorf("no cached repository for %s found. (try 'kubectl chart repo update'): %w", name, err)
	}
	vs, ok := idx.Entries[dep.Name]
	if !ok {
		return false, fmt.Errorf("%s chart not found in repo %s", dep.Name, dep.Repository)
	}
	l.Version = ""
	for _, cv := range vs {
		v, err := semver.NewVersion(cv.Version)
		if err != nil || len(cv.URLs) == 0 {
			continue
		}
		if cons.Check(v) {
			l.Version = v.Original()
			return true, nil
		}
	}
	return false, nil
}

// downloadAll fetches the archives of the locked dependencies, saying which
// as Helm does; the first failure stops it, reported on Out and returned.
// pulled holds the OCI charts resolve already has, by position.
func (d *Dependencies) downloadAll(ctx context.Context, dir string, deps []*chart.Dependency, pulled map[int]*oci.Pulled) (map[string][]byte, error) {
	fmt.Fprintf(d.Out, "Saving %d charts\n", len(deps))
	files := map[string][]byte{}
	downloaded := map[string]bool{}
	var saveErr error
	for i, dep := range deps {
		switch {
		case dep.Repository == "":
			fmt.Fprintf(d.Out, "Dependency %s did not declare a repository. Assuming it exists in the charts directory\n", dep.Name)
			// A chart that is not there stops at once; one of another
			// version is a failure to save.
			v, cons, err := d.vendoredVersion(ctx, dir, dep)
			if err != nil {
				return nil, err
			}
			if !cons.Check(v) {
				saveErr = fmt.Errorf("dependency %s at version %s does not satisfy the constraint %s", dep.Name, v.Original(), dep.Version)
			}
		case strings.HasPrefix(dep.Repository, "file://"):
			var name string
			var data []byte
			if name, data, saveErr = d.archiveLocal(ctx, dir, dep); saveErr == nil {
				files[name] = data
			}
		default:
			var name string
			var data []byte
			if name, data, saveErr = d.download(ctx, dep, pulled[i], downloaded); saveErr == nil && data != nil {
				files[name] = data
			}
		}
		if saveErr != nil {
			fmt.Fprintln(d.Out, "Save error occurred: ", saveErr)
			return nil, saveErr
		}
	}
	return files, nil
}

// vendoredVersion is the version of the chart in charts/ that a dependency
// without a repository names, checked against its constraint.
func (d *Dependencies) vendoredVersion(ctx context.Context, dir string, dep *chart.Dependency) (*semver.Version, *semver.Constraints, error) {
	p := filepath.Join(dir, "charts", dep.Name)
	sub, err := d.local().LoadChart(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("unable to load chart '%s': %w", p, err)
	}
	cons, err := semver.NewConstraint(dep.Version)
	if err != nil {
		return nil, nil, fmt.Errorf("dependency %s has an invalid version/constraint format: %w", dep.Name, err)
	}
	v, err := semver.NewVersion(sub.Metadata.Version)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid version %s for dependency %s: %w", dep.Version, dep.Name, err)
	}
	return v, cons, nil
}

// archiveLocal packs a file:// dependency, locking it to its version.
func (d *Dependencies) archiveLocal(ctx context.Context, dir string, dep *chart.Dependency) (string, []byte, error) {
	p, err := localPath(dep.Repository, dir)
	if err != nil {
		return "", nil, err
	}
	sub, err := d.local().LoadChart(ctx, p)
	if err != nil {
		return "", nil, err
	}
	cons, err := semver.NewConstraint(dep.Version)
	if err != nil {
		return "", nil, fmt.Errorf("dependency %s has an invalid version/constraint format: %w", dep.Name, err)
	}
	v, err := semver.NewVersion(sub.Metadata.Version)
	if err != nil {
		return "", nil, err
	}
	if !cons.Check(v) {
		return "", nil, fmt.Errorf("can't get a valid version for dependency %s", dep.Name)
	}
	var buf bytes.Buffer
	if err := archive.Write(&buf, sub); err != nil {
		return "", nil, err
	}
	dep.Version = sub.Metadata.Version
	return archive.FileName(sub), buf.Bytes(), nil
}

// download fetches a repository or OCI dependency at its locked version;
// nil data when the same archive was already fetched.
func (d *Dependencies) download(ctx context.Context, dep *chart.Dependency, pulled *oci.Pulled, downloaded map[string]bool) (string, []byte, error) {
	if strings.HasPrefix(dep.Repository, "oci://") {
		return d.downloadOCI(ctx, dep, pulled, downloaded)
	}
	idx, entry, err := d.indexFor(ctx, dep.Repository)
	if err != nil {
		return "", nil, fmt.Errorf("could not find : %w", err)
	}
	cv, err := idx.Get(dep.Name, dep.Version)
	if err != nil || len(cv.URLs) == 0 {
		return "", nil, fmt.Errorf("could not find : chart %s not found in %s: %w", dep.Name, dep.Repository, domrepo.ErrNoChartVersion)
	}
	u, err := domrepo.ResolveURL(dep.Repository, cv.URLs[0])
	if err != nil {
		return "", nil, fmt.Errorf("could not find %s: %w", cv.URLs[0], err)
	}
	if downloaded[u] {
		fmt.Fprintf(d.Out, "Already downloaded %s from repo %s\n", dep.Name, dep.Repository)
		return "", nil, nil
	}
	fmt.Fprintf(d.Out, "Downloading %s from repo %s\n", dep.Name, dep.Repository)
	g, err := repo.NewGetter(entry, d.Dialect)
	if err != nil {
		return "", nil, fmt.Errorf("could not download %s: %w", u, err)
	}
	data, err := g.Get(ctx, u, repo.MaxDownloadSize)
	if err != nil {
		return "", nil, fmt.Errorf("could not download %s: %w", u, err)
	}
	if cv.Digest != "" && domrepo.Digest(data) != cv.Digest {
		return "", nil, fmt.Errorf("could not download %s: digest does not match the index", u)
	}
	downloaded[u] = true
	name := fmt.Sprintf("%s-%s.tgz", dep.Name, cv.Version)
	if d.Verify != nil {
		prov, err := g.Get(ctx, u+".prov", maxProvSize)
		if err := d.verify(u, u+".prov", data, name, prov, err); err != nil {
			return "", nil, err
		}
	}
	dep.Version = cv.Version
	return name, data, nil
}

// downloadOCI pulls an OCI dependency at its locked version, unless resolve
// has already.
func (d *Dependencies) downloadOCI(ctx context.Context, dep *chart.Dependency, pulled *oci.Pulled, downloaded map[string]bool) (string, []byte, error) {
	ref := strings.TrimSuffix(dep.Repository, "/") + "/" + dep.Name
	if downloaded[ref+":"+dep.Version] {
		fmt.Fprintf(d.Out, "Already downloaded %s from repo %s\n", dep.Name, dep.Repository)
		return "", nil, nil
	}
	fmt.Fprintf(d.Out, "Downloading %s from repo %s\n", dep.Name, dep.Repository)
	if pulled == nil {
		if d.OCI == nil {
			return "", nil, fmt.Errorf("dependency %q: OCI registries are not supported here", dep.Name)
		}
		var err error
		if pulled, err = d.OCI.PullChart(ctx, ref, dep.Version, d.Verify != nil); err != nil {
			return "", nil, fmt.Errorf("could not download %s: %w", ref, err)
		}
	}
	if d.Pulls != nil {
		fmt.Fprintf(d.Pulls, "Pulled: %s\nDigest: %s\n", pulled.Ref, pulled.Digest)
	}
	downloaded[ref+":"+dep.Version] = true
	var noProv error
	if pulled.Prov == nil {
		noProv = errors.New("the chart has no provenance layer")
	}
	if err := d.verify(ref, ref+":"+dep.Version+".prov", pulled.Chart, pulled.Filename, pulled.Prov, noProv); err != nil {
		return "", nil, err
	}
	return pulled.Filename, pulled.Chart, nil
}

// maxProvSize bounds a provenance file: a signed Chart.yaml and a sum.
const maxProvSize = 1 << 20

// verify checks a downloaded dependency against its provenance file (prov,
// or noProv why there is none) with Helm's strategies and words: update
// needs the file, build warns without one; u and provURL name the archive
// and the file as Helm's errors do.
func (d *Dependencies) verify(u, provURL string, data []byte, filename string, prov []byte, noProv error) error {
	if d.Verify == nil {
		return nil
	}
	if noProv != nil {
		if !d.ProvOptional {
			return fmt.Errorf("could not download %s: failed to fetch provenance %q", u, provURL)
		}
		fmt.Fprintf(d.Out, "WARNING: Verification not found for %s: %v\n", u, noProv)
		return nil
	}
	if err := d.Verify(data, filename, prov); err != nil {
		return fmt.Errorf("could not download %s: %w", u, err)
	}
	return nil
}

// indexFor finds the index of a repository URL: a configured repository's cached
// index (with its credentials), or the index fetched anonymously from the URL.
func (d *Dependencies) indexFor(ctx context.Context, u string) (*domrepo.Index, *domrepo.Entry, error) {
	f, err := d.repoFile()
	if err != nil {
		return nil, nil, err
	}
	if e, _ := configured(f, u); e != nil {
		idx, err := d.Repos.Index(e.Name)
		return idx, e, err
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, nil, fmt.Errorf("repository %q is not a URL, @name, file:// or oci:// reference", u)
	}
	g, err := repo.NewGetter(nil, d.Dialect)
	if err != nil {
		return nil, nil, err
	}
	data, err := g.Get(ctx, repo.IndexURL(u), domrepo.DefaultMaxIndexSize)
	if err != nil {
		return nil, nil, err
	}
	idx, _, err := domrepo.ParseIndex(data, repo.IndexURL(u))
	return idx, nil, err
}

// writeCharts puts the archives into charts/ and removes older archives of the same
// dependencies.
func (d *Dependencies) writeCharts(dir string, deps []*chart.Dependency, files map[string][]byte) error {
	chartsDir := filepath.Join(dir, "charts")
	if fi, err := os.Lstat(chartsDir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink: refusing to write through it", chartsDir)
	}
	if err := os.MkdirAll(chartsDir, 0o755); err != nil {
		return err
	}
	names := map[string]bool{}
	for _, dep := range deps {
		names[dep.Name] = true
	}
	existing, _ := filepath.Glob(filepath.Join(chartsDir, "*.tgz"))
	for _, p := range existing {
		base := filepath.Base(p)
		if _, keep := files[base]; keep {
			continue
		}
		fh, err := os.Open(p)
		if err != nil {
			continue
		}
		c, err := loader.LoadArchive(fh, loader.DefaultLimits())
		_ = fh.Close()
		if err == nil && names[c.Name()] {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, name := range keys {
		if name != filepath.Base(name) || !filepath.IsLocal(name) {
			return fmt.Errorf("refusing dependency archive name %q", name)
		}
		if err := writeNoFollow(filepath.Join(chartsDir, name), files[name]); err != nil {
			return err
		}
	}
	fmt.Fprintln(d.Out, "Deleting outdated charts")
	return nil
}

// HashReq is the lock digest Helm computes over the requirements and the locked versions.
func HashReq(req, lock []*chart.Dependency) (string, error) {
	// depends-on (HIP-0025) is not in Helm's model: the digest stays Helm's.
	plain := make([]*chart.Dependency, len(req))
	for i, d := range req {
		c := *d
		c.DependsOn = nil
		plain[i] = &c
	}
	data, err := json.Marshal([2][]*chart.Dependency{plain, lock})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// hashV2Req is Helm 2's digest of a requirements.yaml's dependencies.
func hashV2Req(req []*chart.Dependency) (string, error) {
	plain := make([]*chart.Dependency, len(req))
	for i, d := range req {
		c := *d
		c.DependsOn = nil
		plain[i] = &c
	}
	data, err := json.Marshal(map[string][]*chart.Dependency{"dependencies": plain})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func (d *Dependencies) warnf(format string, args ...any) {
	if d.Warn != nil {
		d.Warn(format, args...)
		return
	}
	fmt.Fprintf(d.Out, format+"\n", args...)
}

// writeNoFollow replaces path through a temporary file; a symlink at path is an error,
// so nothing is ever written through a link.
func writeNoFollow(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink: refusing to write through it", path)
	}
	return atomicfile.Write(path, data, 0o644)
}

// DependencyStatus is a row of `dependency list`.
type DependencyStatus struct {
	Name, Version, Repository, Status string
}

// List reports each dependency of the chart in dir and its state, in Helm's
// words: an archive charts/NAME-*.tgz is "ok" (or "corrupt", "misnamed",
// "wrong version", "invalid version", "too many matches"); otherwise a
// dependency vendored another way (a directory, an archive of another name)
// is "unpacked", or "wrong version", and one not vendored is "missing". The chart and
// its archives are read by l's rules.
func (l Local) List(ctx context.Context, dir string) ([]DependencyStatus, error) {
	c, err := l.LoadChart(ctx, dir)
	if err != nil {
		return nil, err
	}
	var out []DependencyStatus
	for _, dep := range c.Metadata.Dependencies {
		out = append(out, DependencyStatus{Name: dep.Name, Version: dep.Version, Repository: dep.Repository, Status: l.dependencyStatus(ctx, dir, dep, c)})
	}
	return out, nil
}

func (l Local) dependencyStatus(ctx context.Context, dir string, dep *chart.Dependency, parent *chart.Chart) string {
	archives, err := filepath.Glob(filepath.Join(dir, "charts", dep.Name+"-*.tgz"))
	if err != nil {
		return "bad pattern"
	}
	if len(archives) > 1 {
		// Only the archives named NAME-SEMVER.tgz count then.
		var versioned []string
		for _, a := range archives {
			v := strings.TrimPrefix(strings.TrimSuffix(filepath.Base(a), ".tgz"), dep.Name+"-")
			if _, err := semver.StrictNewVersion(v); err == nil {
				versioned = append(versioned, a)
			}
		}
		if len(versioned) > 1 {
			return "too many matches"
		}
		archives = versioned
	}
	if len(archives) == 1 {
		if st := l.archiveStatus(ctx, archives[0], dep); st != "" {
			return st
		}
	}
	for _, sub := range parent.Dependencies() {
		if sub.Name() == dep.Name {
			if st := versionStatus(dep.Version, sub.Metadata.Version); st != "" {
				return st
			}
			return "unpacked"
		}
	}
	return "missing"
}

// archiveStatus is the state of a dependency vendored as archive; "" when
// the archive is gone.
func (l Local) archiveStatus(ctx context.Context, archive string, dep *chart.Dependency) string {
	if _, err := os.Stat(archive); err != nil {
		return ""
	}
	c, err := l.LoadChart(ctx, archive)
	if err != nil {
		return "corrupt"
	}
	if c.Name() != dep.Name {
		return "misnamed"
	}
	if st := versionStatus(dep.Version, c.Metadata.Version); st != "" {
		return st
	}
	return "ok"
}

// versionStatus checks a vendored version against the constraint: "" when
// it satisfies it (or is the same string).
func versionStatus(constraint, version string) string {
	if version == constraint {
		return ""
	}
	cons, err := semver.NewConstraint(constraint)
	if err != nil {
		return "invalid version"
	}
	v, err := semver.NewVersion(version)
	if err != nil {
		return "invalid version"
	}
	if !cons.Check(v) {
		return "wrong version"
	}
	return ""
}
