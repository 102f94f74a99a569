package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// UninstallOptions uninstalls releases.
type UninstallOptions struct {
	genericiooptions.IOStreams
	wait      waitFlags
	lifecycle lifecycleFlags
	usePlan   usePlanFlag

	keepHistory    bool
	ignoreNotFound bool
	noHooks        bool
	cascade        string
	dryRun         bool
	description    string
	// warnings are what the flags said while parsed (Helm 4's deprecations).
	warnings flagWarnings

	newLifecycle lifecycleMaker
	// cmdDialect is the dialect of the command line (--compat, else the
	// environment's, else the default).
	cmdDialect  dialect.Dialect
	names       []string
	namespace   string
	propagation ports.Propagation
}

// NewCmdUninstall builds `kubectl chart uninstall`.
func NewCmdUninstall(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &UninstallOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:     "uninstall RELEASE_NAME [...]",
		Aliases: []string{"del", "delete", "un"},
		Short:   "Uninstall a release",
		Long: `Delete a release's objects (CRDs from crds/ and objects annotated
helm.sh/resource-policy: keep stay) and its history, as helm uninstall does.`,
		Args: o.usePlan.args(minimumNArgs(1)),
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
	o.AddFlags(cmd.Flags(), f)
	return cmd
}

// AddFlags adds uninstall's flags to fs, with the defaults f reads.
func (o *UninstallOptions) AddFlags(fs *pflag.FlagSet, f Factory) {
	o.lifecycle.AddFlags(fs, f.StorageDefaults())
	helmLacks(fs, "output")
	o.usePlan.AddFlags(fs)
	addWaitFlag(fs, &o.wait.strategy, &o.warnings, `wait until all the resources are deleted before returning, bounded by --timeout: "watcher" (--wait alone) or "legacy" wait, "hookOnly" (the default) waits for hooks only`)
	fs.DurationVar(&o.wait.timeout, "timeout", 0, "time to wait for any individual Kubernetes operation (default 5m)")
	fs.BoolVar(&o.keepHistory, "keep-history", false, "remove all associated resources and mark the release as deleted, but retain the release history")
	fs.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "treat \"release not found\" as a successful uninstall")
	fs.BoolVar(&o.noHooks, "no-hooks", false, "prevent hooks from running during uninstallation")
	fs.StringVar(&o.cascade, "cascade", "background", "must be \"background\", \"orphan\", or \"foreground\"; selects the deletion cascading strategy for the dependents")
	fs.BoolVar(&o.dryRun, "dry-run", false, "simulate a uninstall")
	fs.StringVar(&o.description, "description", "", "add a custom description")
}

// Complete takes the release names and namespace, and how to make the
// lifecycle from the factory.
func (o *UninstallOptions) Complete(f Factory, args []string) error {
	o.names, o.namespace = args, f.Namespace()
	o.newLifecycle, o.cmdDialect = o.lifecycle.maker(f, o.IOStreams), commandDialect(f.Settings())
	return nil
}

// Validate checks the flags and reads --cascade.
func (o *UninstallOptions) Validate() error {
	if err := o.lifecycle.validate(); err != nil {
		return err
	}
	var err error
	o.propagation, err = cascadeFlag(o.cascade)
	return err
}

// Run uninstalls the releases in order, or executes saved uninstall plans; it
// stops at the first failure.
func (o *UninstallOptions) Run(ctx context.Context) error {
	o.warnings.print(o.ErrOut)
	lc, printer, err := o.newLifecycle()
	if err != nil {
		return err
	}
	// Helm 3's dry run only reads the release, and fails when there is none.
	ignoreNotFound := o.ignoreNotFound && (!o.dryRun || o.cmdDialect.IsHelm4())
	for _, name := range o.names {
		var res *action.UninstallResult
		if o.usePlan.file != "" {
			var out *action.Outcome
			out, err = o.usePlan.execute(ctx, lc, plan.OpUninstall, name, o.namespace, action.ExecOptions{WaitSpec: action.WaitSpec{Wait: o.wait.waits(), Timeout: o.wait.timeout}})
			if out != nil {
				res = out.Uninstall
			}
		} else {
			res, err = lc.Uninstall(ctx, action.UninstallRequest{
				ReleaseName: name, Namespace: o.namespace, KeepHistory: o.keepHistory, IgnoreNotFound: ignoreNotFound,
				NoHooks: o.noHooks, Cascade: o.propagation, Wait: o.wait.waits(), Timeout: o.wait.timeout, DryRun: o.dryRun,
				Description: o.description,
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
		if res.Release != nil {
			if ok, err := o.lifecycle.printRelease(o.Out, res.Release); ok {
				if err != nil {
					return err
				}
				continue
			}
		}
		printKept(o.Out, o.ErrOut, name, res)
		// Both Helms say so of a release --ignore-not-found did not find too.
		fmt.Fprintf(o.Out, "release %q uninstalled\n", name)
	}
	return nil
}

// printKept says which objects the uninstall of release name left, as Helm
// does: those of the keep policy, then (Helm 4) those another release owns,
// each also logged.
func printKept(out, errOut io.Writer, name string, res *action.UninstallResult) {
	for _, k := range res.NotOwned {
		helm4Logger(errOut, false).Warn("skipping delete of resource not owned by this release",
			"kind", k.Kind, "name", k.Name, "namespace", k.Namespace, "release", name)
	}
	if len(res.Kept) > 0 {
		fmt.Fprintln(out, "These resources were kept due to the resource policy:")
		for _, k := range res.Kept {
			fmt.Fprintf(out, "[%s] %s\n", k.Kind, k.Name)
		}
	}
	if len(res.NotOwned) > 0 {
		if len(res.Kept) > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "%d resource(s) were not deleted because they are not owned by this release:\n", len(res.NotOwned))
		for _, k := range res.NotOwned {
			fmt.Fprintf(out, "[%s] %s\n", k.Kind, k.Name)
		}
	}
	if len(res.Kept)+len(res.NotOwned) > 0 {
		fmt.Fprintln(out)
	}
}
