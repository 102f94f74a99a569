package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// UpgradeOptions upgrades a release.
type UpgradeOptions struct {
	genericiooptions.IOStreams
	configFlags *genericclioptions.ConfigFlags
	deployFlags

	install              bool
	reuseValues          bool
	resetValues          bool
	resetThenReuseValues bool
	historyMax           int
	cleanupOnFail        bool
	forceReplace         bool

	releaseName string
	chartRef    string
	namespace   string
}

// NewCmdUpgrade builds `kubectl chart upgrade`.
func NewCmdUpgrade(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &UpgradeOptions{IOStreams: streams, configFlags: flags}
	cmd := &cobra.Command{
		Use:   "upgrade NAME CHART",
		Short: "Upgrade a release",
		Long: `Upgrade a release to a new chart or new values, as helm upgrade does.

Objects are server-side applied; objects the new revision no longer has are deleted
unless annotated helm.sh/resource-policy: keep. A revision left pending by an
interrupted operation is marked failed once its lock expires, and the upgrade proceeds.`,
		Example: `  kubectl chart upgrade web ./mychart --reuse-values --set image.tag=1.2.4 --wait
  kubectl chart upgrade --install web ./mychart -n prod --atomic --timeout 2m`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.releaseName, o.chartRef = args[0], args[1]
			o.namespace = releaseNamespace(o.configFlags)
			if err := o.validate(); err != nil {
				return err
			}
			if o.historyMax < 0 {
				return errors.New("--history-max must not be negative")
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd, streams)
	f := cmd.Flags()
	f.BoolVarP(&o.install, "install", "i", false, "if a release by this name doesn't already exist, run an install")
	f.BoolVar(&o.reuseValues, "reuse-values", false, "when upgrading, reuse the last release's values and merge in any overrides from the command line")
	f.BoolVar(&o.resetValues, "reset-values", false, "when upgrading, reset the values to the ones built into the chart")
	f.BoolVar(&o.resetThenReuseValues, "reset-then-reuse-values", false, "when upgrading, reset the values to the chart's, apply the last release's values and merge in any overrides")
	f.IntVar(&o.historyMax, "history-max", 10, "limit the maximum number of revisions saved per release; 0 for no limit")
	f.BoolVar(&o.cleanupOnFail, "cleanup-on-fail", false, "allow deletion of new resources created in this upgrade when upgrade fails")
	f.BoolVar(&o.forceReplace, "force-replace", false, "delete and recreate objects whose change the server refuses (immutable fields)")
	f.BoolVar(&o.forceReplace, "force", false, "alias of --force-replace")
	return cmd
}

// Run upgrades the release.
func (o *UpgradeOptions) Run(ctx context.Context) error {
	if err := action.ValidateReleaseName(o.releaseName); err != nil {
		return fmt.Errorf("release name %q: %w", o.releaseName, err)
	}
	spec, err := o.spec(ctx, o.releaseName, o.chartRef, o.namespace, o.IOStreams)
	if err != nil {
		return err
	}
	lc, printer, err := o.lifecycle.lifecycle(o.configFlags, o.IOStreams)
	if err != nil {
		return err
	}
	installing := false
	rel, err := lc.Upgrade(ctx, action.UpgradeRequest{
		ReleaseSpec: spec, Install: o.install, CreateNamespace: o.createNamespace, SkipCRDs: o.skipCRDs,
		ReuseValues: o.reuseValues, ResetValues: o.resetValues, ResetThenReuseValues: o.resetThenReuseValues,
		HistoryMax: o.historyMax, CleanupOnFail: o.cleanupOnFail, ForceReplace: o.forceReplace,
		OnInstall: func() { installing = true },
	})
	printer.done()
	if printer.result(rel, err) {
		return err
	}
	if err != nil {
		var oe *action.OwnershipError
		if errors.Is(err, ports.ErrLocked) || errors.As(err, &oe) {
			return err
		}
		return fmt.Errorf("UPGRADE FAILED: %w", err)
	}
	if installing {
		fmt.Fprintf(o.Out, "Release %q does not exist. Installing it now.\n", rel.Name)
	} else {
		fmt.Fprintf(o.Out, "Release %q has been upgraded. Happy Helming!\n", rel.Name)
	}
	return printStatus(o.Out, rel, statusView{hideNotes: o.hideNotes})
}
