package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// NewCmdRollback builds `kubectl chart rollback`.
func NewCmdRollback(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	var (
		wait           waitFlags
		lf             lifecycleFlags
		noHooks        bool
		forceReplace   bool
		forceConflicts bool
		cleanupOnFail  bool
		dryRun         bool
		historyMax     int
		usePlan        usePlanFlag
	)
	cmd := &cobra.Command{
		Use:   "rollback NAME [REVISION]",
		Short: "Roll a release back to a previous revision",
		Long: `Roll a release back to a previous revision (by default the one before the
latest), as a new revision, as helm rollback does.`,
		Args: usePlan.args(rangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := lf.validate(); err != nil {
				return err
			}
			rev, err := revisionArg(args)
			if err != nil {
				return err
			}
			ns := releaseNamespace(flags)
			lc, printer, err := lf.lifecycle(flags, streams)
			if err != nil {
				return err
			}
			var rel *release.Release
			if usePlan.file != "" {
				var out *action.Outcome
				out, err = usePlan.execute(cmd.Context(), lc, plan.OpRollback, args[0], ns, action.ExecOptions{
					WaitSpec: wait.spec(), HistoryMax: historyMax, CleanupOnFail: cleanupOnFail,
				})
				if out != nil {
					rel = out.Release
				}
			} else {
				rel, err = lc.Rollback(cmd.Context(), action.RollbackRequest{
					ReleaseName: args[0], Namespace: ns, Revision: rev, WaitSpec: wait.spec(), NoHooks: noHooks,
					ForceReplace: forceReplace, ForceConflicts: forceConflicts, CleanupOnFail: cleanupOnFail,
					DryRun: dryRun, HistoryMax: historyMax,
				})
			}
			printer.done()
			if printer.result(rel, err) {
				return err
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(streams.Out, "Rollback was a success! Happy Helming!")
			return nil
		},
	}
	f := cmd.Flags()
	wait.AddFlags(f)
	lf.AddFlags(f)
	f.BoolVar(&noHooks, "no-hooks", false, "prevent hooks from running during rollback")
	f.BoolVar(&forceReplace, "force-replace", false, "delete and recreate objects whose change the server refuses")
	f.BoolVar(&forceReplace, "force", false, "alias of --force-replace")
	f.BoolVar(&forceConflicts, "force-conflicts", false, "take over fields that other field managers own")
	f.BoolVar(&cleanupOnFail, "cleanup-on-fail", false, "allow deletion of new resources created in this rollback when rollback fails")
	f.BoolVar(&dryRun, "dry-run", false, "simulate a rollback")
	f.IntVar(&historyMax, "history-max", 10, "limit the maximum number of revisions saved per release; 0 for no limit")
	usePlan.AddFlags(f)
	return cmd
}
