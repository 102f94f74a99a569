package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

// NewCmdUninstall builds `kubectl chart uninstall`.
func NewCmdUninstall(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	var (
		wait           waitFlags
		lf             lifecycleFlags
		keepHistory    bool
		ignoreNotFound bool
		noHooks        bool
		cascade        string
		dryRun         bool
		description    string
		usePlan        usePlanFlag
	)
	cmd := &cobra.Command{
		Use:     "uninstall RELEASE_NAME [...]",
		Aliases: []string{"del", "delete", "un"},
		Short:   "Uninstall a release",
		Long: `Delete a release's objects (CRDs from crds/ and objects annotated
helm.sh/resource-policy: keep stay) and its history, as helm uninstall does.`,
		Args: usePlan.args(minimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := lf.validate(); err != nil {
				return err
			}
			prop, err := cascadeFlag(cascade)
			if err != nil {
				return err
			}
			ns := releaseNamespace(flags)
			lc, printer, err := lf.lifecycle(flags, streams)
			if err != nil {
				return err
			}
			for _, name := range args {
				var res *action.UninstallResult
				if usePlan.file != "" {
					var out *action.Outcome
					out, err = usePlan.execute(cmd.Context(), lc, plan.OpUninstall, name, ns, action.ExecOptions{WaitSpec: action.WaitSpec{Wait: wait.wait, Timeout: wait.timeout}})
					if out != nil {
						res = out.Uninstall
					}
				} else {
					res, err = lc.Uninstall(cmd.Context(), action.UninstallRequest{
						ReleaseName: name, Namespace: ns, KeepHistory: keepHistory, IgnoreNotFound: ignoreNotFound,
						NoHooks: noHooks, Cascade: prop, Wait: wait.wait, Timeout: wait.timeout, DryRun: dryRun,
						Description: description,
					})
				}
				printer.done()
				if res != nil && printer.result(res.Release, err) {
					if err != nil {
						return err
					}
					continue
				}
				if err != nil {
					return err
				}
				if len(res.Kept) > 0 {
					fmt.Fprintln(streams.Out, "These resources were kept due to the resource policy:")
					for _, k := range res.Kept {
						fmt.Fprintf(streams.Out, "[%s] %s\n", k.Kind, k.Name)
					}
					fmt.Fprintln(streams.Out)
				}
				if res.NotFound {
					fmt.Fprintf(streams.Out, "release %q not found, ignoring\n", name)
					continue
				}
				fmt.Fprintf(streams.Out, "release %q uninstalled\n", name)
			}
			return nil
		},
	}
	f := cmd.Flags()
	lf.AddFlags(f)
	usePlan.AddFlags(f)
	f.BoolVar(&wait.wait, "wait", false, "wait until all the resources are deleted before returning; bounded by --timeout")
	f.DurationVar(&wait.timeout, "timeout", 0, "time to wait for any individual Kubernetes operation (default 5m)")
	f.BoolVar(&keepHistory, "keep-history", false, "remove all associated resources and mark the release as deleted, but retain the release history")
	f.BoolVar(&ignoreNotFound, "ignore-not-found", false, "treat \"release not found\" as a successful uninstall")
	f.BoolVar(&noHooks, "no-hooks", false, "prevent hooks from running during uninstallation")
	f.StringVar(&cascade, "cascade", "background", "must be \"background\", \"orphan\", or \"foreground\"; selects the deletion cascading strategy for the dependents")
	f.BoolVar(&dryRun, "dry-run", false, "simulate a uninstall")
	f.StringVar(&description, "description", "", "add a custom description")
	return cmd
}
