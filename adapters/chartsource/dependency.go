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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/archive"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
)

// ErrLockOutOfSync is returned by Build when Chart.lock does not match Chart.yaml.
var ErrLockOutOfSync = errors.New("the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). Please update the dependencies")

// Dependencies downloads a chart's dependencies into its charts/ directory and keeps
// its Chart.lock, as `helm dependency update|build` do.
type Dependencies struct {
	Repos *repo.Manager
	OCI   OCIPuller
	Out   io.Writer
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
	// ProvOptional keeps a dependency without a provenance file, unverified,
	// with a warning, as Helm's build does; Helm's update refuses it.
	ProvOptional bool

	refreshed map[string]bool
}

// local is the loader of the charts whose dependencies are managed.
func (d *Dependencies) local() Local {
	if d.Limits == (loader.Limits{}) {
		return NewLocal()
	}
	return Local{Limits: d.Limits}
}

// Update resolves Chart.yaml's dependencies to the newest matching versions, downloads
// them into charts/ and writes the lock file.
func (d *Dependencies) Update(ctx context.Context, dir string) error {
	c, err := d.local().LoadChart(ctx, dir)
	if err != nil {
		return err
	}
	req := c.Metadata.Dependencies
	if len(req) == 0 {
		fmt.Fprintln(d.Out, "No requirements found in Chart.yaml.")
		return nil
	}
	for _, name := range []string{"Chart.lock", "requirements.lock"} {
		// Checked before anything is downloaded, and again when writing.
		if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink: refusing to write through it", filepath.Join(dir, name))
		}
	}
	if err := d.resolveRepoNames(req); err != nil {
		return err
	}
	locked := make([]*chart.Dependency, len(req))
	files := map[string][]byte{}
	for i, dep := range req {
		l, name, data, err := d.fetch(ctx, dir, dep, dep.Version, false)
		if err != nil {
			return err
		}
		locked[i] = l
		if data != nil {
			files[name] = data
		}
	}
	if err := d.writeCharts(dir, req, files); err != nil {
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
	if err := d.resolveRepoNames(req); err != nil {
		return err
	}
	if sum, err := HashReq(req, c.Lock.Dependencies); err != nil || sum != c.Lock.Digest {
		if c.Metadata.APIVersion != chart.APIVersionV1 {
			return ErrLockOutOfSync
		}
		d.warnf("warning: a valid Helm v3 hash was not found. Checking against Helm v2 hash...")
		if v2Sum != c.Lock.Digest {
			return errors.New("the lock file (requirements.lock) is out of sync with the dependencies file (requirements.yaml). Please update the dependencies")
		}
	}
	files := map[string][]byte{}
	for _, l := range c.Lock.Dependencies {
		if l == nil {
			return errors.New("Chart.lock: dependencies must not contain empty entries") //nolint:staticcheck // file name
		}
		_, name, data, err := d.fetch(ctx, dir, l, l.Version, true)
		if err != nil {
			return err
		}
		if data != nil {
			files[name] = data
		}
	}
	return d.writeCharts(dir, c.Lock.Dependencies, files)
}

// resolveRepoNames turns "@name" and "alias:name" into the named repository's URL.
func (d *Dependencies) resolveRepoNames(req []*chart.Dependency) error {
	var f *domrepo.File
	for _, dep := range req {
		var name string
		switch {
		case strings.HasPrefix(dep.Repository, "@"):
			name = strings.TrimPrefix(dep.Repository, "@")
		case strings.HasPrefix(dep.Repository, "alias:"):
			name = strings.TrimPrefix(dep.Repository, "alias:")
		default:
			continue
		}
		if f == nil {
			if d.Repos == nil {
				return fmt.Errorf("dependency %q: no repository configuration", dep.Name)
			}
			var err error
			if f, err = d.Repos.Load(); err != nil {
				return err
			}
		}
		e := f.Get(name)
		if e == nil {
			return fmt.Errorf("no repository definition for %s. Please add the missing repos via 'kubectl chart repo add'", dep.Repository)
		}
		dep.Repository = e.URL
	}
	return nil
}

// fetch resolves one dependency: the locked entry, and the archive to place in charts/
// (nil for dependencies that already live in charts/).
func (d *Dependencies) fetch(ctx context.Context, dir string, dep *chart.Dependency, version string, exact bool) (*chart.Dependency, string, []byte, error) {
	constraint := version
	if constraint == "" {
		constraint = "*"
	}
	cons, err := semver.NewConstraint(constraint)
	if err != nil {
		return nil, "", nil, fmt.Errorf("dependency %q has an invalid version/constraint format: %w", dep.Name, err)
	}
	switch {
	case dep.Repository == "":
		return &chart.Dependency{Name: dep.Name, Version: dep.Version}, "", nil, nil
	case strings.HasPrefix(dep.Repository, "file://"):
		p := strings.TrimPrefix(dep.Repository, "file://")
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		sub, err := d.local().LoadChart(ctx, p)
		if err != nil {
			return nil, "", nil, fmt.Errorf("dependency %q: %w", dep.Name, err)
		}
		v, err := semver.NewVersion(sub.Metadata.Version)
		if err != nil || !cons.Check(v) {
			return nil, "", nil, fmt.Errorf("can't get a valid version for dependency %s: %s at %s is version %s", dep.Name, dep.Repository, p, sub.Metadata.Version)
		}
		var buf bytes.Buffer
		if err := archive.Write(&buf, sub); err != nil {
			return nil, "", nil, err
		}
		return &chart.Dependency{Name: dep.Name, Version: sub.Metadata.Version, Repository: dep.Repository}, archive.FileName(sub), buf.Bytes(), nil
	case strings.HasPrefix(dep.Repository, "oci://"):
		if d.OCI == nil {
			return nil, "", nil, fmt.Errorf("dependency %q: OCI registries are not supported here", dep.Name)
		}
		ref := strings.TrimSuffix(dep.Repository, "/") + "/" + dep.Name
		data, prov, name, err := d.OCI.PullChart(ctx, ref, version, d.Verify != nil)
		if err != nil {
			return nil, "", nil, fmt.Errorf("dependency %q: %w", dep.Name, err)
		}
		sub, err := loader.LoadArchive(bytes.NewReader(data), loader.DefaultLimits())
		if err != nil {
			return nil, "", nil, fmt.Errorf("dependency %q: %w", dep.Name, err)
		}
		var noProv error
		if prov == nil {
			noProv = errors.New("the chart has no provenance layer")
		}
		if err := d.verify(ref, ref+":"+sub.Metadata.Version+".prov", data, name, prov, noProv); err != nil {
			return nil, "", nil, err
		}
		return &chart.Dependency{Name: dep.Name, Version: sub.Metadata.Version, Repository: dep.Repository}, name, data, nil
	}
	idx, entry, err := d.indexFor(ctx, dep.Repository)
	if err != nil {
		return nil, "", nil, fmt.Errorf("dependency %q: %w", dep.Name, err)
	}
	cv, err := idx.Get(dep.Name, version)
	if err != nil {
		return nil, "", nil, fmt.Errorf("can't get a valid version for repositories %s. Try changing the version constraint in Chart.yaml: %w", dep.Name, err)
	}
	if len(cv.URLs) == 0 {
		return nil, "", nil, fmt.Errorf("dependency %q version %s has no URL", dep.Name, cv.Version)
	}
	u, err := domrepo.ResolveURL(dep.Repository, cv.URLs[0])
	if err != nil {
		return nil, "", nil, err
	}
	g, err := repo.NewGetter(entry)
	if err != nil {
		return nil, "", nil, err
	}
	data, err := g.Get(ctx, u, repo.MaxDownloadSize)
	if err != nil {
		return nil, "", nil, fmt.Errorf("dependency %q: %w", dep.Name, err)
	}
	if cv.Digest != "" && domrepo.Digest(data) != cv.Digest {
		return nil, "", nil, fmt.Errorf("dependency %q: digest of %s does not match the index", dep.Name, u)
	}
	name := fmt.Sprintf("%s-%s.tgz", dep.Name, cv.Version)
	if d.Verify != nil {
		prov, err := g.Get(ctx, u+".prov", maxProvSize)
		if err := d.verify(u, u+".prov", data, name, prov, err); err != nil {
			return nil, "", nil, err
		}
	}
	return &chart.Dependency{Name: dep.Name, Version: cv.Version, Repository: dep.Repository}, name, data, nil
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
	if d.Repos != nil {
		f, err := d.Repos.Load()
		if err != nil {
			return nil, nil, err
		}
		for _, e := range f.Repositories {
			if strings.TrimSuffix(e.URL, "/") == strings.TrimSuffix(u, "/") {
				if !d.SkipRefresh && !d.refreshed[e.Name] {
					if err := d.Repos.Update(ctx, e.Name); err != nil {
						return nil, nil, err
					}
					if d.refreshed == nil {
						d.refreshed = map[string]bool{}
					}
					d.refreshed[e.Name] = true
				}
				idx, err := d.Repos.Index(e.Name)
				return idx, e, err
			}
		}
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, nil, fmt.Errorf("repository %q is not a URL, @name, file:// or oci:// reference", u)
	}
	g, err := repo.NewGetter(nil)
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
	// Helm's words: how many dependencies it saves.
	fmt.Fprintf(d.Out, "Saving %d charts\n", len(deps))
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
