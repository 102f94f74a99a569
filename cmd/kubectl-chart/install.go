package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chartcheck"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// deployFlags are the flags install and upgrade share.
type deployFlags struct {
	values     valuesFlags
	postRender postRenderFlags
	wait       waitFlags
	lifecycle  lifecycleFlags
	chartRefs  *flagChartSource
	compat     compatFlags
	// flags are the command's, to tell which spelling of a flag was used.
	flags *pflag.FlagSet
	// warnings are what the flags said while parsed (Helm 4's deprecations),
	// printed before the operation runs.
	warnings flagWarnings
	// only are the flags one Helm has and the other lacks.
	only dialectOnlyFlags
	// helm3DryRun is Helm 3's refusal of --dry-run's value, which it reports
	// once it has found the chart (upgrade) or loaded it (install).
	helm3DryRun error
	// upgrade: the flags are upgrade's.
	upgrade bool

	createNamespace      bool
	dryRun               string
	atomic               bool
	noHooks              bool
	skipCRDs             bool
	crds                 crdsFlag
	description          string
	labels               map[string]string
	takeOwnership        bool
	subNotes             bool
	skipSchemaValidation bool
	enableDNS            bool
	forceConflicts       bool
	hideNotes            bool
	hideSecret           bool
	disableOpenAPI       bool
	budget               budgetFlags
}

// AddFlags adds the flags to cmd, with the defaults f reads.
func (d *deployFlags) AddFlags(cmd *cobra.Command, f Factory, streams genericiooptions.IOStreams) {
	fs := cmd.Flags()
	d.flags = fs
	d.values.AddFlags(fs)
	d.values.plugins = &d.postRender.plugins
	d.postRender.AddFlags(fs)
	d.postRender.RegisterCompletion(cmd)
	d.wait.AddFlags(fs, &d.warnings)
	d.lifecycle.AddFlags(fs, f.StorageDefaults())
	fs.BoolVar(&d.createNamespace, "create-namespace", false, "create the release namespace if not present")
	fs.BoolVar(&d.hideSecret, "hide-secret", false, "hide Kubernetes Secrets when also using the --dry-run flag")
	fs.StringVar(&d.dryRun, "dry-run", "none", `simulate the operation: "client" renders without contacting the cluster, "server" validates with it`)
	fs.Lookup("dry-run").NoOptDefVal = dryRunUnset
	fs.BoolVar(&d.atomic, "rollback-on-failure", false, "on failure, undo the operation (uninstall, or roll back to the last deployed revision); waits as --wait=watcher unless --wait says otherwise")
	fs.BoolVar(&d.atomic, "atomic", false, "deprecated: use --rollback-on-failure")
	deprecate(fs, "atomic", "use --rollback-on-failure instead", &d.warnings)
	fs.BoolVar(&d.noHooks, "no-hooks", false, "prevent hooks from running")
	fs.BoolVar(&d.skipCRDs, "skip-crds", false, "if set, no CRDs will be installed")
	d.crds.AddFlags(fs)
	fs.StringVar(&d.description, "description", "", "add a custom description")
	fs.StringToStringVarP(&d.labels, "labels", "l", nil, "labels added to the release metadata (key1=val1,key2=val2)")
	fs.BoolVar(&d.takeOwnership, "take-ownership", false, "adopt existing objects that the release does not own")
	fs.BoolVar(&d.subNotes, "render-subchart-notes", false, "if set, render subchart notes along with the parent")
	fs.BoolVar(&d.skipSchemaValidation, "skip-schema-validation", false, "if set, disables JSON schema validation")
	fs.BoolVar(&d.enableDNS, "enable-dns", false, "enable DNS lookups when rendering templates")
	fs.BoolVar(&d.forceConflicts, "force-conflicts", false, "take over fields that other field managers own (server-side apply)")
	fs.BoolVar(&d.hideNotes, "hide-notes", false, "if set, do not show notes in the output; they are still rendered and stored")
	// Objects are applied server-side: the API server checks them against its
	// schema whatever the client does.
	fs.BoolVar(&d.disableOpenAPI, "disable-openapi-validation", false, "accepted as Helm accepts it, with no effect: the API server validates what is applied server-side")
	d.chartRefs = newFlagChartSource(fs, streams)
	d.compat.AddFlags(fs, "")
	d.budget.AddFlags(fs)
}

func (d *deployFlags) validate() error {
	// The Helm of the command line: the dialect of an upgrade may still
	// change with its release's, but its flags are this Helm's.
	c, _ := d.compat.Dialect()
	cmdLine := cmp.Or(c, dialect.Default)
	if !cmdLine.IsHelm4() {
		// Helm 3's own spellings (--atomic, --force, a bare --dry-run): no
		// deprecations, before any refusal either.
		d.warnings.lines = nil
	}
	if err := d.only.check(cmdLine); err != nil {
		return err
	}
	switch d.dryRun {
	case "none", "", "client", "server", "true", "false", dryRunUnset:
	default:
		if cmdLine.IsHelm4() {
			return cmdLineError{fmt.Errorf(`invalid dry-run value (%q). Must be "none", "server", or "client"`, d.dryRun)}
		}
		d.helm3DryRun = errors.New("Invalid dry-run flag. Flag must one of the following: false, true, none, client, server") //nolint:staticcheck // Helm's words
	}
	if d.hideSecret && d.dryRunMode() == action.DryRunNone {
		return &render.HideSecretError{Helm3: c == dialect.Helm3}
	}
	if cmdLine.IsHelm4() {
		dryRunWarnings(d.dryRun, &d.warnings)
	}
	// Helm makes its registry client before anything else runs; the words
	// are Helm 4's until the dialect is known (an upgrade's is the release's).
	if err := d.chartRefs.flags.checkTLSFiles(cmp.Or(c, dialect.Default)); err != nil {
		return err
	}
	if _, err := d.crds.policy(d.skipCRDs); err != nil {
		return err
	}
	return d.lifecycle.validate()
}

func (d *deployFlags) dryRunMode() action.DryRun {
	switch d.dryRun {
	case "client", "true", dryRunUnset:
		return action.DryRunClient
	case "server":
		return action.DryRunServer
	}
	return action.DryRunNone
}

// deployAdapters are what install and upgrade keep of the factory once
// completed: how to make their lifecycle, chart source and release store
// when they run, and what the settings say.
type deployAdapters struct {
	newLifecycle lifecycleMaker
	charts       func(refs ports.ChartSource) ports.ChartSource
	releaseStore func() (ports.ReleaseStore, error)
	// asHelm says the program was installed as helm; summaryLines that the
	// plan's summary is ours to write to stderr.
	asHelm, summaryLines bool
}

// adapters are the deployAdapters of these flags (parsed) from f.
func (d *deployFlags) adapters(f Factory, streams genericiooptions.IOStreams) deployAdapters {
	storage := d.lifecycle.storage.StorageSettings
	return deployAdapters{
		newLifecycle: d.lifecycle.maker(f, streams),
		charts:       f.ChartSource,
		releaseStore: func() (ports.ReleaseStore, error) { return f.ReleaseStore(storage) },
		asHelm:       f.Settings().asHelm,
		summaryLines: ourLinesTo(f.Settings(), streams.ErrOut),
	}
}

// specFor loads the chart and values into a release spec, by the rules of the
// dialect that --compat or $KUBECTL_CHART_COMPAT names, else def's (install and
// upgrade choose def, compat_deploy.go).
// Charts come from a's source.
func (d *deployFlags) specFor(ctx context.Context, a deployAdapters, def dialect.Dialect, name, chartRef, namespace string, streams genericiooptions.IOStreams) (action.ReleaseSpec, error) {
	dia, err := d.compat.Dialect()
	if err != nil {
		return action.ReleaseSpec{}, err
	}
	if dia == "" {
		dia = def
	}
	charts := a.charts(d.chartRefs.For(dia))
	if missingLocalChart(chartRef) {
		// Helm finds the chart before it reads the values: a local path that
		// is not there fails first.
		_, err := loadChart(ctx, charts, dia, chartRef, streams)
		return action.ReleaseSpec{}, err
	}
	if d.helm3DryRun != nil && d.upgrade {
		return action.ReleaseSpec{}, d.helm3DryRun
	}
	vals, err := d.values.MergeFor(ctx, streams.In, dia)
	if err != nil {
		return action.ReleaseSpec{}, err
	}
	ch, err := loadChart(ctx, charts, dia, chartRef, streams)
	if err != nil {
		return action.ReleaseSpec{}, err
	}
	if d.helm3DryRun != nil {
		return action.ReleaseSpec{}, d.helm3DryRun
	}
	pr, err := d.postRender.PostRenderer(dia)
	if err != nil {
		return action.ReleaseSpec{}, err
	}
	if pr != nil {
		pr.HideSecrets = d.hideSecret
	}
	labels, err := parseLabels(d.labels)
	if err != nil {
		return action.ReleaseSpec{}, err
	}
	ws := d.wait.spec()
	if d.atomic && d.wait.strategy == waitHookOnly {
		// As Helm 4: --rollback-on-failure waits as watcher unless --wait says how.
		ws.Wait = true
	}
	return action.ReleaseSpec{
		Chart: ch, Values: vals, ReleaseName: name, Namespace: namespace, Description: d.description,
		Labels: labels, WaitSpec: ws, Atomic: d.atomic, NoHooks: d.noHooks, TakeOwnership: d.takeOwnership,
		SubNotes: d.subNotes, SkipSchemaValidation: d.skipSchemaValidation, EnableDNS: d.enableDNS,
		ForceConflicts: d.forceConflicts, DryRun: d.dryRunMode(), PostRender: pr, HideSecrets: d.hideSecret, Dialect: dia,
		RenderBudget: d.budget.budget,
		Warn:         func(string, ...any) {},
		// Helm's stdout stays as it is: the plan's summary goes to stderr.
		// Installed as helm, stderr off a terminal is Helm's (as the progress).
		OnPlan: func(p *plan.Plan) {
			if a.summaryLines || d.lifecycle.progress || d.lifecycle.jsonEvents {
				writeSummary(streams.ErrOut, p)
			}
		},
	}, nil
}

// hideSaved hides the Secrets of a saved plan's result with --hide-secret
// (the use cases hide those of dry runs).
func (d *deployFlags) hideSaved(rel *release.Release) {
	if d.hideSecret && rel != nil {
		rel.Manifest = render.HideSecrets(rel.Manifest)
	}
}

// loadChart loads the chart ref from charts and checks it, in the dialect d.
func loadChart(ctx context.Context, charts ports.ChartSource, d dialect.Dialect, ref string, streams genericiooptions.IOStreams) (*chart.Chart, error) {
	ch, err := charts.LoadChart(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := chartcheck.Installable(ch); err != nil {
		return nil, err
	}
	if ch.Metadata.Deprecated {
		deprecatedChartWarning(d, streams.ErrOut, false)
	}
	if err := chartcheck.DependenciesFor(d, ch); err != nil {
		return nil, err
	}
	return ch, nil
}

// InstallOptions installs a chart into the cluster.
type InstallOptions struct {
	genericiooptions.IOStreams
	deployFlags
	// adapters are what Run needs of the factory; Complete sets them.
	adapters deployAdapters

	generateName bool
	nameTemplate string
	replace      bool
	forceReplace bool
	serverSide   bool
	usePlan      usePlanFlag

	releaseName string
	chartRef    string
	namespace   string
}

// NewCmdInstall builds `kubectl chart install`.
func NewCmdInstall(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &InstallOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "install [NAME] [CHART]",
		Short: "Install a chart",
		Long: `Install a chart as a new release, as helm install does.

Objects are server-side applied (field manager kubectl-chart) after the chart's CRDs,
carry Helm's ownership metadata, and existing objects the release does not own are
refused unless --take-ownership. The release is locked while the install runs.`,
		Example: `  kubectl chart install web ./mychart -n prod --create-namespace --wait
  kubectl chart install ./mychart --generate-name --set image.tag=1.2.3 --atomic --timeout 2m`,
		Args: o.usePlan.args(minimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.usePlan.file != "" {
				return o.runSaved(cmd.Context(), f, args[0])
			}
			// As Helm: everything past the argument count fails as the install.
			if err := o.Complete(f, args); err != nil {
				return installError(err)
			}
			if err := o.Validate(); err != nil {
				logHelm4Failure(o.ErrOut, err)
				return installError(err)
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd, f, streams)
	o.addInstallFlags(cmd.Flags())
	o.usePlan.AddFlags(cmd.Flags())
	o.only.only(f.Settings(), cmd.Flags(), dialect.Helm4, "rollback-on-failure", "force-replace", "force-conflicts", "server-side")
	o.only.checked(cmd.Flags(), "output", validateOutput)
	exclusiveForceFlags(cmd)
	return cmd
}

// runSaved executes a saved install plan.
func (o *InstallOptions) runSaved(ctx context.Context, f Factory, name string) error {
	if err := o.lifecycle.validate(); err != nil {
		return err
	}
	o.warnings.print(o.ErrOut)
	lc, printer, err := o.lifecycle.lifecycle(f, o.IOStreams)
	if err != nil {
		return installError(err)
	}
	ws := o.wait.spec()
	ws.Wait = ws.Wait || (o.atomic && o.wait.strategy == waitHookOnly)
	out, err := o.usePlan.execute(ctx, lc, plan.OpInstall, name, f.Namespace(), action.ExecOptions{WaitSpec: ws, Atomic: o.atomic})
	printer.done()
	var rel *release.Release
	if out != nil {
		rel = out.Release
	}
	if printer.result(rel, err) {
		return err
	}
	if err != nil {
		return installError(err)
	}
	o.hideSaved(rel)
	if ok, err := o.lifecycle.printRelease(o.Out, rel); ok {
		return err
	}
	return printStatus(o.Out, rel, statusView{hideNotes: o.hideNotes, helm4: rel.Dialect().IsHelm4()})
}

// addInstallFlags adds the flags install has beyond upgrade's.
func (o *InstallOptions) addInstallFlags(f *pflag.FlagSet) {
	f.BoolVarP(&o.generateName, "generate-name", "g", false, "generate the name (and omit the NAME parameter)")
	f.StringVar(&o.nameTemplate, "name-template", "", "specify template used to name the release")
	f.BoolVar(&o.replace, "replace", false, "re-use the given name, only if that name is a deleted release which remains in the history")
	f.BoolVar(&o.forceReplace, "force-replace", false, "delete and recreate objects whose change the server refuses (immutable fields)")
	f.BoolVar(&o.forceReplace, "force", false, "deprecated: use --force-replace")
	deprecate(f, "force", "use --force-replace instead", &o.warnings)
	f.BoolVar(&o.serverSide, "server-side", true, "apply objects server-side, the only way kubectl chart applies them (the revision records it for Helm 4); false, client-side apply, is refused")
}

// request is the install the flags and arguments ask for.
func (o *InstallOptions) request(spec action.ReleaseSpec) action.InstallRequest {
	spec.ServerSide = action.ServerSideTrue
	if !o.serverSide {
		spec.ServerSide = action.ServerSideFalse
	}
	return action.InstallRequest{ReleaseSpec: spec, CreateNamespace: o.createNamespace, SkipCRDs: o.skipCRDs, CRDs: o.crdPolicy(), Replace: o.replace, ForceReplace: o.forceReplace}
}

// Complete resolves the release name, chart and namespace, and keeps what
// Run needs of the factory.
func (o *InstallOptions) Complete(f Factory, args []string) error {
	o.adapters = o.deployFlags.adapters(f, o.IOStreams)
	var err error
	o.releaseName, o.chartRef, err = releasename.Args{
		Args: args, GenerateName: o.generateName, NameTemplate: o.nameTemplate, Now: f.Clock().Now(),
	}.Resolve()
	if err != nil {
		return err
	}
	o.namespace = f.Namespace()
	return nil
}

// Validate checks flags.
func (o *InstallOptions) Validate() error {
	err := o.validate()
	if err != nil {
		// Helm 4 prints a flag's deprecation as it parses it, before any error.
		o.warnings.print(o.ErrOut)
	}
	return err
}

// Run installs the release.
func (o *InstallOptions) Run(ctx context.Context) error {
	o.warnings.print(o.ErrOut)
	spec, err := o.spec(ctx, o.releaseName, o.chartRef, o.namespace, o.IOStreams)
	if err != nil {
		return installError(err)
	}
	lc, printer, err := o.adapters.newLifecycle()
	if err != nil {
		return installError(err)
	}
	if spec.DryRun == action.DryRunClient {
		lc.Locker = nil
	}
	rel, err := lc.Install(ctx, o.request(spec))
	printer.done()
	if printer.result(rel, err) {
		return err
	}
	if err != nil {
		logHelm4Failure(o.ErrOut, err)
		return installError(err)
	}
	if ok, err := o.lifecycle.printRelease(o.Out, rel); ok {
		return err
	}
	return printStatus(o.Out, rel, statusView{hideNotes: o.hideNotes, helm4: rel.Dialect().IsHelm4()})
}

// installError adds Helm's prefix to failures of the operation itself.
func installError(err error) error {
	var oe *action.OwnershipError
	var rc *registryClientError
	if isCmdLineError(err) || errors.Is(err, ports.ErrLocked) || errors.As(err, &oe) || errors.As(err, &rc) || errors.Is(err, plan.ErrInvalidFile) ||
		errors.Is(err, action.ErrPlanStale) || errors.Is(err, action.ErrPlanMismatch) {
		return err
	}
	return fmt.Errorf("INSTALLATION FAILED: %w", err)
}

// missingLocalChart reports whether ref names a local chart (a path Helm
// takes as one: absolute, or starting with a dot) that does not exist.
func missingLocalChart(ref string) bool {
	if !filepath.IsAbs(ref) && !strings.HasPrefix(ref, ".") {
		return false
	}
	_, err := os.Stat(ref)
	return errors.Is(err, fs.ErrNotExist)
}
