package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chartcheck"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// TemplateOptions renders a chart locally, like `helm template`.
type TemplateOptions struct {
	genericiooptions.IOStreams
	// cluster is the factory's, asked for only when --validate or
	// --dry-run=server need it.
	cluster    func() (ports.Cluster, error)
	charts     ports.ChartSource
	chartFlags *flagChartSource
	values     valuesFlags
	postRender postRenderFlags
	pr         *render.PostRender
	compat     compatFlags
	dialect    dialect.Dialect
	install    templateInstallFlags
	flags      *pflag.FlagSet
	// flagWarnings are what Helm 4 prints of the flags before it runs.
	flagWarnings []string

	generateName         bool
	nameTemplate         string
	showOnly             []string
	apiVersions          []string
	kubeVersion          string
	isUpgrade            bool
	includeCRDs          bool
	skipCRDs             bool
	skipTests            bool
	noHooks              bool
	outputDir            string
	useReleaseName       bool
	skipSchemaValidation bool
	subNotes             bool
	enableDNS            bool
	budget               budgetFlags
	debug                bool
	graph                string
	dryRun               string
	// dryRunWarning is what Helm 4 says of a deprecated --dry-run spelling.
	dryRunWarning string

	releaseName string
	chartRef    string
	namespace   string
	caps        *capabilities.Capabilities
}

// NewCmdTemplate builds `kubectl chart template`.
func NewCmdTemplate(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TemplateOptions{IOStreams: streams}
	o.charts = withGetterPlugins(&o.postRender.plugins, chartsource.NewLocal())
	return newCmdTemplate(f, o)
}

// newCmdTemplate is `kubectl chart template` running o with f's adapters.
func newCmdTemplate(f Factory, o *TemplateOptions) *cobra.Command {
	streams := o.IOStreams
	cmd := &cobra.Command{
		Use:   "template [NAME] CHART",
		Args:  minimumNArgs(1),
		Short: "Render chart templates locally and print them",
		Long: `Render chart templates locally and print the output, exactly as Helm does.

Values that would be looked up in a cluster are faked: lookup returns nothing and
.Capabilities describe a default cluster unless --kube-version and --api-versions say otherwise.`,
		Example: `  # Render a chart directory with extra values
  kubectl chart template my-release ./mychart -f values-prod.yaml --set image.tag=1.2.3

  # Render only some templates
  kubectl chart template my-release ./mychart -s templates/deployment.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(f, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	o.values.AddFlags(fs)
	o.compat.AddFlags(fs, dialect.Default)
	o.values.plugins = &o.postRender.plugins
	o.postRender.AddFlags(fs)
	o.postRender.RegisterCompletion(cmd)
	fs.BoolVarP(&o.generateName, "generate-name", "g", false, "generate the name (and omit the NAME parameter)")
	fs.StringVar(&o.nameTemplate, "name-template", "", "specify template used to name the release")
	fs.StringArrayVarP(&o.showOnly, "show-only", "s", nil, "only show manifests rendered from the given templates")
	fs.StringSliceVarP(&o.apiVersions, "api-versions", "a", nil, "Kubernetes api versions used for Capabilities.APIVersions")
	fs.StringVar(&o.kubeVersion, "kube-version", "", "Kubernetes version used for Capabilities.KubeVersion")
	fs.BoolVar(&o.isUpgrade, "is-upgrade", false, "set .Release.IsUpgrade instead of .Release.IsInstall")
	fs.BoolVar(&o.includeCRDs, "include-crds", false, "include CRDs in the templated output")
	fs.BoolVar(&o.skipCRDs, "skip-crds", false, "if set, no CRDs will be installed (no effect on template output unless --include-crds)")
	fs.BoolVar(&o.skipTests, "skip-tests", false, "skip tests from templated output")
	fs.BoolVar(&o.noHooks, "no-hooks", false, "prevent hooks from being rendered")
	fs.StringVar(&o.outputDir, "output-dir", "", "writes the executed templates to files in output-dir instead of stdout")
	fs.BoolVar(&o.useReleaseName, "release-name", false, "use release name in the output-dir path")
	fs.BoolVar(&o.skipSchemaValidation, "skip-schema-validation", false, "if set, disables JSON schema validation")
	fs.BoolVar(&o.subNotes, "render-subchart-notes", false, "if set, render subchart notes along with the parent")
	fs.BoolVar(&o.enableDNS, "enable-dns", false, "enable DNS lookups when rendering templates")
	o.budget.AddFlags(fs)
	fs.BoolVar(&o.debug, "debug", false, "print the rendered output even when it is not valid YAML")
	addGraphFlag(fs, &o.graph, "print instead of the manifest how an install would apply it:")
	fs.StringVar(&o.dryRun, "dry-run", "", `as in Helm: "server" (also "none" or "false") lets lookup read the cluster; "client" (or "true") renders without it`)
	fs.Lookup("dry-run").NoOptDefVal = dryRunUnset
	o.chartFlags = newFlagChartSource(fs, streams)
	o.install.AddFlags(fs)
	o.flags = fs
	return cmd
}

// Complete resolves names, the namespace and the capabilities.
func (o *TemplateOptions) Complete(f Factory, args []string) error {
	var err error
	o.namespace, o.cluster = f.Namespace(), f.Cluster
	if o.dialect, err = o.compat.Dialect(); err != nil {
		return err
	}
	if o.chartFlags != nil {
		o.charts = withGetterPluginsFor(&o.postRender.plugins, o.chartFlags.For(o.dialect), o.dialect)
	}
	o.caps = capabilities.Default(runtime.Version())
	if o.kubeVersion != "" {
		kv, err := capabilities.ParseKubeVersionFor(o.dialect, o.kubeVersion)
		if err != nil {
			return capabilities.InvalidKubeVersionError(o.kubeVersion, err)
		}
		o.caps.KubeVersion = *kv
	}
	o.caps = o.caps.WithExtraAPIVersions(o.apiVersions)
	// Helm checks --kube-version before the release name and --name-template.
	o.releaseName, o.chartRef, err = releasename.Args{
		Args: args, GenerateName: o.generateName, NameTemplate: o.nameTemplate,
		ReleaseName: "release-name", Now: time.Now(),
	}.Resolve()
	if err != nil {
		return err
	}
	o.pr, err = o.postRender.PostRenderer(o.dialect)
	return err
}

// Validate checks flag combinations.
func (o *TemplateOptions) Validate() error {
	if o.outputDir != "" && len(o.showOnly) > 0 {
		return errors.New("--output-dir and --show-only cannot be used together")
	}
	if err := validateGraph(o.graph); err != nil {
		return err
	}
	if o.flags != nil {
		var err error
		if o.flagWarnings, err = o.install.validateFor(o.dialect, o.flags); err != nil {
			printLines(o.ErrOut, o.flagWarnings)
			return err
		}
	}
	if o.chartFlags != nil {
		if err := o.chartFlags.flags.checkTLSFiles(o.dialect); err != nil {
			return err
		}
	}
	if o.install.validate && o.dialect.IsHelm4() {
		// Helm 4 renders against the cluster then, as with --dry-run=server;
		// Helm 3 reads only the cluster's capabilities (lookup).
		o.dryRun = "server"
	}
	if o.dialect.IsHelm4() {
		var err error
		o.dryRun, o.dryRunWarning, err = helm4TemplateDryRun(o.dryRun)
		return err
	}
	if o.dryRun == dryRunUnset {
		o.dryRun = "client"
	}
	return nil
}

// helm3DryRun checks template's --dry-run as Helm 3 does, once the chart is
// loaded and its dependencies checked.
func helm3DryRun(v string) error {
	switch v {
	case "", "client", "true", "server", "none", "false":
		return nil
	}
	return errors.New("Invalid dry-run flag. Flag must one of the following: false, true, none, client, server") //nolint:staticcheck // Helm's words
}

// helm4TemplateDryRun reads template's --dry-run as Helm 4 does: "client" (the
// default, also a bare --dry-run or a true boolean, which are deprecated) or
// "server"; a template is always a dry run, so "none" and a false boolean are
// refused. It returns "client" or "server" and the deprecation to print.
func helm4TemplateDryRun(v string) (mode, warning string, err error) {
	switch v {
	case "", "client":
		return "client", "", nil
	case dryRunUnset:
		return "client", "--dry-run is deprecated and should be replaced with '--dry-run=client'", nil
	case "server":
		return "server", "", nil
	case "none":
		return "", "", fmt.Errorf(`invalid dry-run value (%q). Must be "server" or "client"`, v)
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return "", "", fmt.Errorf(`invalid dry-run value (%q). Must be "none", "server", or "client"`, v)
	}
	if !b {
		return "", "", fmt.Errorf(`invalid dry-run value (%q). Must be "server" or "client"`, v)
	}
	return "client", fmt.Sprintf("boolean '--dry-run=%s' flag is deprecated and must be replaced with '--dry-run=client'", v), nil
}

// lookup is what answers the lookup template function: nothing, unless
// --dry-run asks for the cluster, as Helm's template does for "server",
// "none" and "false". Capabilities stay the defaults, unless --validate
// asks for the cluster's (it also means --dry-run=server in Helm 4).
func (o *TemplateOptions) lookup(ctx context.Context) (engine.LookupFunc, error) {
	var reads bool
	switch o.dryRun {
	case "server", "none", "false":
		reads = true
	}
	if !reads && !o.install.validate {
		return nil, nil
	}
	cluster, err := o.cluster()
	if err != nil {
		return nil, err
	}
	if o.install.validate {
		// Helm renders for the cluster then: its capabilities, read first,
		// once it has checked that the cluster answers.
		if err := cluster.Reachable(ctx); err != nil {
			return nil, unreachableError(o.dialect, o.ErrOut, o.debug, err)
		}
		caps, err := cluster.Capabilities(ctx)
		if err != nil {
			return nil, err
		}
		o.caps = caps.WithExtraAPIVersions(o.apiVersions)
	}
	if !reads {
		return nil, nil
	}
	return action.ClusterLookup(ctx, cluster), nil
}

// Run renders and prints (or writes) the chart.
func (o *TemplateOptions) Run(ctx context.Context) error {
	printLines(o.ErrOut, o.flagWarnings)
	if o.dryRunWarning != "" {
		helm4Logger(o.ErrOut, o.debug).Warn(o.dryRunWarning)
	}
	vals, err := o.values.MergeFor(ctx, o.In, o.dialect)
	if err != nil {
		return err
	}
	ch, err := o.charts.LoadChart(ctx, o.chartRef)
	if err != nil {
		return err
	}
	if err := chartcheck.Installable(ch); err != nil {
		return err
	}
	if ch.Metadata.Deprecated {
		deprecatedChartWarning(o.dialect, o.ErrOut, o.debug)
	}
	if err := chartcheck.DependenciesFor(o.dialect, ch); err != nil {
		return err
	}
	if !o.dialect.IsHelm4() {
		if err := helm3DryRun(o.dryRun); err != nil {
			return err
		}
	}
	if err := checkLabels(o.install.labels); err != nil {
		return err
	}

	lookup, err := o.lookup(ctx)
	if err != nil {
		return err
	}
	rendered, err := render.Chart(ctx, render.Request{
		Chart: ch, Values: vals, ReleaseName: o.releaseName, Namespace: o.namespace,
		Revision: 1, IsUpgrade: o.isUpgrade, Capabilities: o.caps,
		IncludeCRDs: o.includeCRDs, SubNotes: o.subNotes,
		SkipSchemaValidation: o.skipSchemaValidation, EnableDNS: o.enableDNS,
		Warn: o.warnf, Lookup: lookup, Dialect: o.dialect, Budget: o.budget.budget,
		PostRender: o.pr, ToFiles: o.outputDir != "" && o.graph == "",
	})
	if errors.Is(err, releasename.ErrInvalid) && o.dialect.IsHelm4() {
		// Helm 4 logs it and says which check failed.
		helm4Logger(o.ErrOut, o.debug).Error("release name check failed", "error", err.Error())
		return fmt.Errorf("release name check failed: %w", err)
	}
	opts := render.TemplateOptions{DisableHooks: o.noHooks, SkipTests: o.skipTests, ShowOnly: o.showOnly, Dialect: o.dialect}
	var renderErr *render.Error
	if errors.As(err, &renderErr) {
		if renderErr.PostRenderFailed && o.outputDir != "" && !o.dialect.IsHelm4() {
			return o.failedPostRenderToFiles(ch, renderErr, opts)
		}
		if !o.debug {
			return fmt.Errorf("%w\n\nUse --debug flag to render out invalid YAML", err)
		}
		// Helm prints what was rendered (maybe nothing) as it prints a release, and
		// still fails; --show-only may fail first, except in Helm 4, which takes a
		// template missing from a failed render for one too malformed to show.
		partial := renderErr.Partial
		if partial == nil {
			partial = &render.Rendered{}
		}
		text, terr := render.TemplateText(partial, opts)
		var missing *render.MissingTemplateError
		if errors.As(terr, &missing) && o.dialect.IsHelm4() {
			return err
		}
		if terr != nil {
			return terr
		}
		if _, werr := io.WriteString(o.Out, text); werr != nil {
			return werr
		}
		return err
	}
	if err != nil {
		return err
	}

	if o.graph != "" {
		// The order never changes the manifest: the graph is printed instead.
		stages, seq, err := action.TemplateStages(ch, rendered.Manifest, false)
		if err != nil {
			return err
		}
		return graphView{stages: stages, sequencing: seq}.write(o.Out, o.graph)
	}
	if o.outputDir != "" {
		if err := o.writeOutputDir(ch, rendered, opts); err != nil {
			return err
		}
		// Helm still prints the manifest text, empty unless Helm 3's
		// post-renderer made something of nothing.
		_, err := fmt.Fprintln(o.Out, strings.TrimSpace(rendered.Manifest))
		return err
	}
	text, err := render.TemplateText(rendered, opts)
	if err != nil {
		return err
	}
	_, err = io.WriteString(o.Out, text)
	return err
}

// failedPostRenderToFiles ends a template --output-dir whose post-renderer
// failed as Helm 3 does: it wrote the manifests before it post-rendered the
// (empty) manifest text, and with --debug it still writes the hooks and
// prints that text.
func (o *TemplateOptions) failedPostRenderToFiles(ch *chart.Chart, err *render.Error, opts render.TemplateOptions) error {
	if !o.debug {
		opts.DisableHooks = true
	}
	if werr := o.writeOutputDir(ch, err.Partial, opts); werr != nil {
		return werr
	}
	if !o.debug {
		return fmt.Errorf("%w\n\nUse --debug flag to render out invalid YAML", err)
	}
	if _, werr := fmt.Fprintln(o.Out); werr != nil {
		return werr
	}
	return err
}

// warnf reports what rendering found on stderr, as the dialect's Helm logs it.
func (o *TemplateOptions) warnf(format string, args ...any) {
	if o.dialect.IsHelm4() {
		helm4Warn(helm4Logger(o.ErrOut, o.debug))(format, args...)
		return
	}
	helm3Warn(o.ErrOut)(format, args...)
}

// writeOutputDir writes each document under the output directory at its template
// path, appending documents of the same template, and never outside the directory.
func (o *TemplateOptions) writeOutputDir(ch *chart.Chart, r *render.Rendered, opts render.TemplateOptions) error {
	dir := o.outputDir
	if o.useReleaseName {
		dir = filepath.Join(dir, o.releaseName)
	}
	written := map[string]bool{}
	write := func(name, content string) error {
		if err := writeTemplateFile(dir, name, content, written[name]); err != nil {
			return err
		}
		// Helm says so for every document, also when it appends to a file.
		fmt.Fprintf(o.Out, "wrote %s\n", filepath.Join(dir, filepath.FromSlash(name)))
		written[name] = true
		return nil
	}
	if o.includeCRDs {
		for _, crd := range ch.CRDObjects() {
			if err := write(crd.Filename, string(crd.File.Data)); err != nil {
				return err
			}
		}
	}
	for _, m := range r.Manifests {
		if err := write(m.Name, m.Content); err != nil {
			return err
		}
	}
	for _, h := range render.OutputHooks(r, opts) {
		if err := write(h.Path, h.Manifest); err != nil {
			return err
		}
	}
	return nil
}

func writeTemplateFile(dir, name, content string, appendTo bool) error {
	rel := filepath.FromSlash(name)
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || !filepath.IsLocal(rel) {
		return fmt.Errorf("template path %q would be written outside %s", name, dir)
	}
	target := filepath.Join(dir, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", target, err)
	}
	// Below the output directory nothing already there is followed: a symbolic link
	// planted at a template's directory or file is refused, and os.Root keeps every
	// step inside the directory even if one appears meanwhile.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	defer func() { _ = root.Close() }()
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		fi, err := root.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist) && i < len(parts)-1:
			if err := root.Mkdir(p, 0o755); err != nil {
				return fmt.Errorf("create directory for %s: %w", target, err)
			}
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return fmt.Errorf("write %s: %w", target, err)
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("write %s: %s is a symbolic link: output-dir never follows one", target, filepath.Join(dir, p))
		}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flags = os.O_APPEND | os.O_WRONLY
	}
	f, err := root.OpenFile(rel, flags, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	if _, err := fmt.Fprintf(f, "---\n# Source: %s\n%s\n", name, content); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", target, err)
	}
	return f.Close()
}
