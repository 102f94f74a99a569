package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// UpgradeOptions upgrades a release.
type UpgradeOptions struct {
	genericiooptions.IOStreams
	deployFlags
	// adapters are what Run needs of the factory; Complete sets them.
	adapters deployAdapters

	install              bool
	reuseValues          bool
	resetValues          bool
	resetThenReuseValues bool
	historyMax           int
	cleanupOnFail        bool
	forceReplace         bool
	correctDrift         bool
	recreatePods         bool
	serverSide           string
	usePlan              usePlanFlag

	releaseName string
	chartRef    string
	namespace   string
}

// NewCmdUpgrade builds `kubectl chart upgrade`.
func NewCmdUpgrade(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &UpgradeOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "upgrade NAME CHART",
		Short: "Upgrade a release",
		Long: `Upgrade a release to a new chart or new values, as helm upgrade does.

Objects are server-side applied; objects the new revision no longer has are deleted
unless annotated helm.sh/resource-policy: keep. A revision left pending by an
interrupted operation is marked failed once its lock expires, and the upgrade proceeds.`,
		Example: `  kubectl chart upgrade web ./mychart --reuse-values --set image.tag=1.2.4 --wait
  kubectl chart upgrade --install web ./mychart -n prod --atomic --timeout 2m`,
		Args: o.usePlan.args(exactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.usePlan.file != "" {
				return o.runSaved(cmd.Context(), f, args[0])
			}
			if err := o.Complete(f, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd, f, streams)
	o.upgrade = true
	o.addUpgradeFlags(cmd.Flags())
	o.usePlan.AddFlags(cmd.Flags())
	o.only.only(f.Settings(), cmd.Flags(), dialect.Helm4, "rollback-on-failure", "force-replace", "force-conflicts", "server-side")
	o.only.only(f.Settings(), cmd.Flags(), dialect.Helm3, "recreate-pods")
	o.only.deprecatedIn(cmd.Flags(), "recreate-pods", "functionality will no longer be updated. Consult the documentation for other methods to recreate pods")
	o.only.checked(cmd.Flags(), "output", validateOutput)
	exclusiveForceFlags(cmd)
	return cmd
}

// runSaved executes a saved upgrade plan (an install plan when the release
// did not exist and the plan was made with --install).
func (o *UpgradeOptions) runSaved(ctx context.Context, f Factory, name string) error {
	if err := o.lifecycle.validate(); err != nil {
		return err
	}
	o.warnings.print(o.ErrOut)
	lc, printer, err := o.lifecycle.lifecycle(f, o.IOStreams)
	if err != nil {
		return err
	}
	ws := o.wait.spec()
	ws.Wait = ws.Wait || (o.atomic && o.wait.strategy == waitHookOnly)
	out, err := o.usePlan.execute(ctx, lc, plan.OpUpgrade, name, f.Namespace(), action.ExecOptions{
		WaitSpec: ws, Atomic: o.atomic, HistoryMax: o.historyMax, CleanupOnFail: o.cleanupOnFail,
	})
	printer.done()
	var rel *release.Release
	if out != nil {
		rel = out.Release
	}
	if printer.result(rel, err) {
		return err
	}
	if err != nil {
		return upgradeError(err)
	}
	o.hideSaved(rel)
	if ok, err := o.lifecycle.printRelease(o.Out, rel); ok {
		return err
	}
	if out.Operation == plan.OpInstall {
		fmt.Fprintf(o.Out, "Release %q does not exist. Installing it now.\n", rel.Name)
	} else {
		fmt.Fprintf(o.Out, "Release %q has been upgraded. Happy Helming!\n", rel.Name)
	}
	return printStatus(o.Out, rel, statusView{hideNotes: o.hideNotes, helm4: rel.Dialect().IsHelm4()})
}

// upgradeError adds Helm's prefix to failures of the operation itself.
func upgradeError(err error) error {
	var oe *action.OwnershipError
	if isCmdLineError(err) || errors.Is(err, ports.ErrLocked) || errors.As(err, &oe) || errors.Is(err, plan.ErrInvalidFile) ||
		errors.Is(err, action.ErrPlanStale) || errors.Is(err, action.ErrPlanMismatch) {
		return err
	}
	return fmt.Errorf("UPGRADE FAILED: %w", err)
}

// Complete takes the release name and chart, and keeps what Run needs of the
// factory.
func (o *UpgradeOptions) Complete(f Factory, args []string) error {
	o.adapters = o.deployFlags.adapters(f, o.IOStreams)
	o.releaseName, o.chartRef = args[0], args[1]
	o.namespace = f.Namespace()
	return nil
}

// Validate checks flags.
func (o *UpgradeOptions) Validate() error {
	if err := o.validate(); err != nil {
		// Helm 4 prints a flag's deprecation as it parses it, before any error.
		o.warnings.print(o.ErrOut)
		var hs *render.HideSecretError
		if errors.As(err, &hs) {
			return upgradeError(err)
		}
		return err
	}
	if _, err := action.ParseServerSide(o.serverSide); err != nil {
		return err
	}
	return nil
}

// request is the upgrade the flags and arguments ask for.
func (o *UpgradeOptions) request(spec action.ReleaseSpec, onInstall func()) action.UpgradeRequest {
	spec.ServerSide, _ = action.ParseServerSide(o.serverSide) // checked by Validate
	return action.UpgradeRequest{
		ReleaseSpec: spec, Install: o.install, CreateNamespace: o.createNamespace, SkipCRDs: o.skipCRDs, CRDs: o.crdPolicy(),
		ReuseValues: o.reuseValues, ResetValues: o.resetValues, ResetThenReuseValues: o.resetThenReuseValues,
		HistoryMax: o.historyMax, CleanupOnFail: o.cleanupOnFail, ForceReplace: o.forceReplace, HelmForceReplace: o.adapters.asHelm,
		CorrectDrift: o.correctDrift,
		OnInstall:    onInstall,
	}
}

// addUpgradeFlags adds the flags upgrade has beyond install's.
func (o *UpgradeOptions) addUpgradeFlags(f *pflag.FlagSet) {
	f.BoolVarP(&o.install, "install", "i", false, "if a release by this name doesn't already exist, run an install")
	f.BoolVar(&o.reuseValues, "reuse-values", false, "when upgrading, reuse the last release's values and merge in any overrides from the command line")
	f.BoolVar(&o.resetValues, "reset-values", false, "when upgrading, reset the values to the ones built into the chart")
	f.BoolVar(&o.resetThenReuseValues, "reset-then-reuse-values", false, "when upgrading, reset the values to the chart's, apply the last release's values and merge in any overrides")
	f.IntVar(&o.historyMax, "history-max", 10, "limit the maximum number of revisions saved per release; 0 for no limit")
	f.BoolVar(&o.cleanupOnFail, "cleanup-on-fail", false, "allow deletion of new resources created in this upgrade when upgrade fails")
	f.BoolVar(&o.forceReplace, "force-replace", false, "delete and recreate objects whose change the server refuses (immutable fields)")
	f.BoolVar(&o.forceReplace, "force", false, "deprecated: use --force-replace")
	deprecate(f, "force", "use --force-replace instead", &o.warnings)
	f.StringVar(&o.serverSide, "server-side", string(action.ServerSideAuto), serverSideUsage)
	// Helm 3's: its pods restart anyway when the upgrade changes their template.
	f.BoolVar(&o.recreatePods, "recreate-pods", false, "Helm 3 only: accepted, with no effect")
	_ = f.MarkHidden("recreate-pods")
	f.BoolVar(&o.correctDrift, "correct-drift", false, "also put back what changed behind the release's back (see kubectl chart drift), on objects the upgrade does not change too")
}

// Run upgrades the release.
func (o *UpgradeOptions) Run(ctx context.Context) error {
	o.warnings.print(o.ErrOut)
	// Helm reads the history of --install first, in the history's words;
	// otherwise it names an invalid release after loading the chart.
	nameErr := releasename.CheckUpgrade(o.releaseName)
	if nameErr != nil && o.install {
		return nameErr
	}
	spec, err := o.spec(ctx, o.releaseName, o.chartRef, o.namespace, o.IOStreams)
	if err != nil {
		// Helm looks the release up first: the install it starts says so
		// before the chart or the values fail to load.
		if o.install && (o.lifecycle.output == "" || o.lifecycle.output == "table") && o.releaseMissing(ctx) {
			fmt.Fprintf(o.Out, "Release %q does not exist. Installing it now.\n", o.releaseName)
		}
		return err
	}
	if nameErr != nil {
		return upgradeError(nameErr)
	}
	lc, printer, err := o.adapters.newLifecycle()
	if err != nil {
		return err
	}
	installing := false
	rel, err := lc.Upgrade(ctx, o.request(spec, func() { installing = true }))
	printer.done()
	if printer.result(rel, err) {
		return err
	}
	if err != nil && installing {
		// As Helm: the install it started says so, then fails in the
		// install's own words, without upgrade's prefix.
		if o.lifecycle.output == "" || o.lifecycle.output == "table" {
			fmt.Fprintf(o.Out, "Release %q does not exist. Installing it now.\n", o.releaseName)
		}
		return err
	}
	if spec.Dialect.IsHelm4() && !installing {
		logHelm4Baselines(o.ErrOut, printer)
	}
	if err != nil {
		if spec.Dialect.IsHelm4() && !installing {
			logHelm4ChangeFailures(o.ErrOut, o.releaseName, err)
		}
		return upgradeError(err)
	}
	if ok, err := o.lifecycle.printRelease(o.Out, rel); ok {
		return err
	}
	if installing {
		fmt.Fprintf(o.Out, "Release %q does not exist. Installing it now.\n", rel.Name)
	} else {
		fmt.Fprintf(o.Out, "Release %q has been upgraded. Happy Helming!\n", rel.Name)
	}
	return printStatus(o.Out, rel, statusView{hideNotes: o.hideNotes, helm4: rel.Dialect().IsHelm4()})
}

// releaseMissing reports whether upgrade --install would install: the
// release has no revision, or its latest is uninstalled.
func (o *UpgradeOptions) releaseMissing(ctx context.Context) bool {
	store, err := o.adapters.releaseStore()
	if err != nil {
		return false
	}
	h, err := store.History(ctx, o.namespace, o.releaseName)
	if errors.Is(err, ports.ErrReleaseNotFound) {
		return true
	}
	return err == nil && (len(h) == 0 || h.Latest().Info.Status == release.StatusUninstalled)
}
