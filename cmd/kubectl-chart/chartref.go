package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/adapters/contentcache"
	"github.com/kubectl-chart/kubectl-chart/adapters/oci"
	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/chartcheck"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// repoSettings locates the repository configuration, the index cache and the registry
// credentials; commands that read them add these flags.
type repoSettings struct {
	paths          repo.Paths
	registryConfig string
}

// AddFlags adds the flags, whose defaults the settings give (applySettings).
func (s *repoSettings) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.paths.Config, "repository-config", "", "path to the file containing repository names and URLs")
	fs.StringVar(&s.paths.Cache, "repository-cache", "", "path to the directory containing cached repository indexes")
	addRegistryConfigFlag(fs, &s.registryConfig)
}

// addRegistryConfigFlag adds --registry-config, whose default the settings give.
func addRegistryConfigFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "registry-config", "", "path to the registry config file")
}

func (s *repoSettings) manager(warn io.Writer) *repo.Manager {
	m := repo.NewManager(s.paths)
	m.Warn = func(format string, args ...any) {
		fmt.Fprintln(warn, "WARNING: "+humanText(fmt.Sprintf(format, args...)))
	}
	return m
}

// chartRefFlags resolves chart references (paths, REPO/NAME, URLs, oci://) for
// commands that load a chart: template, show, install, upgrade.
type chartRefFlags struct {
	repoSettings
	version string
	devel   bool
	// OCI client settings.
	plainHTTP             bool
	insecureSkipTLSVerify bool
	caFile                string
	certFile, keyFile     string
	username, password    string
	repoURL               string
	passCredentials       bool
	// contentCache is Helm 4's --content-cache, the global flag's value
	// (applySettings).
	contentCache string
}

// AddFlags adds the flags. --insecure-skip-tls-verify, --username and
// --password mean the chart download's, as in Helm, on every command: the API
// server's certificate check is kubectl's flag under Helm's name,
// --kube-insecure-skip-tls-verify.
func (f *chartRefFlags) AddFlags(fs *pflag.FlagSet) {
	f.repoSettings.AddFlags(fs)
	fs.StringVar(&f.version, "version", "", "specify a version constraint for the chart version to use (exact version or range, e.g. ^1.2.0); latest if empty")
	fs.BoolVar(&f.devel, "devel", false, "use development versions, too (equivalent to version '>0.0.0-0'); ignored if --version is set")
	fs.BoolVar(&f.plainHTTP, "plain-http", false, "use insecure HTTP connections for the chart download from an OCI registry")
	f.addTLSFlags(fs)
	fs.StringVar(&f.repoURL, "repo", "", "chart repository url where to locate the requested chart")
	fs.BoolVar(&f.passCredentials, "pass-credentials", false, "pass credentials to all domains")
	fs.StringVar(&f.username, "username", "", "chart repository or registry username")
	fs.StringVar(&f.password, "password", "", "chart repository or registry password")
	fs.StringVar(&f.contentCache, contentCacheFlag, "", "Helm 4 only: path to the directory of cached content (e.g. charts)")
	_ = fs.MarkHidden(contentCacheFlag)
	helmOnly(fs, dialect.Helm4, contentCacheFlag)
}

// addTLSFlags adds the chart download's TLS flags.
func (f *chartRefFlags) addTLSFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.caFile, "ca-file", "", "verify certificates of HTTPS-enabled servers using this CA bundle")
	fs.StringVar(&f.certFile, "cert-file", "", "identify HTTPS client using this SSL certificate file")
	fs.StringVar(&f.keyFile, "key-file", "", "identify HTTPS client using this SSL key file")
	fs.BoolVar(&f.insecureSkipTLSVerify, "insecure-skip-tls-verify", false, "skip tls certificate checks for the chart download")
}

func (f *chartRefFlags) ociClient(d dialect.Dialect) (*oci.Client, error) {
	return oci.NewClient(oci.Options{
		CredentialsFile: f.registryConfig, PlainHTTP: f.plainHTTP,
		InsecureSkipTLSVerify: f.insecureSkipTLSVerify, CAFile: f.caFile, CertFile: f.certFile, KeyFile: f.keyFile,
		Username: f.username, Password: f.password,
		// Helm 3 speaks HTTP to a registry that answers TLS with HTTP.
		FallbackToHTTP: !d.IsHelm4(),
	})
}

// resolver builds the chart source for the flags' settings; d's Helm's
// words refuse unusable TLS files.
func (f *chartRefFlags) resolver(warn io.Writer, d dialect.Dialect) (*chartsource.Resolver, error) {
	oc, err := f.ociClient(d)
	if err != nil {
		return nil, err
	}
	m := f.manager(warn)
	m.Dialect = d
	var content ports.ContentCache
	var contentErr error
	if d.IsHelm4() {
		content = contentcache.Disk{Root: f.contentCache}
		if f.contentCache == "" {
			contentErr = errContentCacheUnset
		}
	}
	return &chartsource.Resolver{
		Content: content, ContentErr: contentErr,
		Local: chartsource.NewLocal(), Repos: m, OCI: oc, Dialect: d,
		Version: f.version, Devel: f.devel, RepoURL: f.repoURL,
		URLAccess: domrepo.Entry{
			Username: f.username, Password: f.password, CAFile: f.caFile, CertFile: f.certFile, KeyFile: f.keyFile,
			InsecureSkipTLSverify: f.insecureSkipTLSVerify, PassCredentialsAll: f.passCredentials,
		},
	}, nil
}

// ConfigureGetter gives a getter plugin the chart download's TLS files,
// credentials and connection settings, as Helm 4 gives them
// (plugin.DownloadSettings).
func (f *chartRefFlags) ConfigureGetter(g *plugin.Getter) {
	g.CertFile, g.KeyFile, g.CAFile = f.certFile, f.keyFile, f.caFile
	g.Username, g.Password, g.PassCredentialsAll = f.username, f.password, f.passCredentials
	g.InsecureSkipTLS, g.PlainHTTP = f.insecureSkipTLSVerify, f.plainHTTP
}

// errContentCacheUnset is Helm 4's refusal of an empty --content-cache.
var errContentCacheUnset = errors.New("content cache must be set")

// flagChartSource is a ports.ChartSource configured by command-line flags: it resolves
// paths, REPO/NAME, URLs and oci:// references, and with --dependency-update refreshes a
// chart directory's dependencies before loading it.
type flagChartSource struct {
	flags            chartRefFlags
	streams          genericiooptions.IOStreams
	dependencyUpdate bool
	check            chartVerifyFlags
}

// newFlagChartSource adds the chart reference flags to fs and returns the source they configure.
func newFlagChartSource(fs *pflag.FlagSet, streams genericiooptions.IOStreams) *flagChartSource {
	s := &flagChartSource{streams: streams}
	s.flags.AddFlags(fs)
	s.check.AddFlags(fs)
	fs.BoolVar(&s.dependencyUpdate, "dependency-update", false, "update dependencies if they are missing before installing the chart")
	return s
}

// For is the source the flags configure, reading charts by the rules of
// dialect d (loader.LimitsFor).
func (s *flagChartSource) For(d dialect.Dialect) ports.ChartSource {
	return dialectChartSource{flagChartSource: s, dialect: d}
}

// dialectChartSource loads charts as its flags say, by a dialect's rules.
type dialectChartSource struct {
	*flagChartSource
	dialect dialect.Dialect
}

func (s dialectChartSource) LoadChart(ctx context.Context, ref string) (*chart.Chart, error) {
	r, err := s.flags.resolver(s.streams.ErrOut, s.dialect)
	if err != nil {
		return nil, err
	}
	r.Local.Limits = loader.LimitsFor(s.dialect)
	c, err := s.check.load(ctx, s.dialect, r, s.flags.repoURL, ref)
	if err != nil || !s.dependencyUpdate || chartcheck.DependenciesFor(s.dialect, c) == nil {
		return c, err
	}
	// As Helm: only a chart directory with dependencies missing from charts/ is updated
	// (by its absolute path, which errors name), then loaded again.
	if fi, err := os.Stat(ref); err != nil || !fi.IsDir() {
		return c, nil
	}
	abs, err := filepath.Abs(ref)
	if err != nil {
		return nil, err
	}
	d, err := s.flags.dependencies(genericiooptions.IOStreams{In: s.streams.In, Out: s.streams.ErrOut, ErrOut: s.streams.ErrOut}, s.dialect)
	if err != nil {
		return nil, err
	}
	d.Limits = loader.LimitsFor(s.dialect)
	if err := d.Update(ctx, abs); err != nil {
		return nil, err
	}
	c, err = s.check.load(ctx, s.dialect, r, s.flags.repoURL, ref)
	if err != nil {
		return nil, fmt.Errorf("failed reloading chart after repo update: %w", err)
	}
	return c, nil
}

// chartVerifyFlags are --verify and --keyring of the commands that load a
// chart: install, upgrade, template and show, as Helm's.
type chartVerifyFlags struct {
	verify  bool
	keyring string
}

// AddFlags adds the flags; --keyring's default comes from the settings
// (applySettings).
func (v *chartVerifyFlags) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&v.verify, "verify", false, "verify the package before using it")
	fs.StringVar(&v.keyring, "keyring", "", "location of public keys used for verification")
}

// load loads the chart ref names through r, with --verify once its
// provenance file verified it, as Helm's: a local archive against PATH.prov,
// a downloaded one against the .prov file beside it (repoURL is --repo); a
// chart directory is refused. Errors are in dialect d's Helm's words.
func (v *chartVerifyFlags) load(ctx context.Context, d dialect.Dialect, r *chartsource.Resolver, repoURL, ref string) (*chart.Chart, error) {
	// Helm 4 keeps the charts these commands download in its content cache.
	r.StoreContent = true
	if !v.verify {
		return r.LoadChart(ctx, ref)
	}
	if !chartsource.IsRemote(ref) && repoURL == "" {
		abs, err := filepath.Abs(ref)
		if err != nil {
			return nil, err
		}
		if _, err := verifyChartFile(d, abs, v.keyring); err != nil {
			return nil, err
		}
		return r.LoadChart(ctx, ref)
	}
	r.Provenance = true
	f, err := r.Fetch(ctx, ref)
	if err != nil {
		return nil, err
	}
	prov, err := fetchProvenance(ctx, r, f, ref)
	if err != nil {
		return nil, err
	}
	if _, err := verifyProvenance(d, f.Data, f.Filename, prov, v.keyring); err != nil {
		return nil, err
	}
	c, err := loader.LoadArchive(bytes.NewReader(f.Data), r.Local.Limits)
	if err != nil {
		return nil, fmt.Errorf("load chart %q: %w", ref, err)
	}
	return c, nil
}

// ConfigureGetter gives a getter plugin the flags' download settings.
func (s dialectChartSource) ConfigureGetter(g *plugin.Getter) { s.flags.ConfigureGetter(g) }
