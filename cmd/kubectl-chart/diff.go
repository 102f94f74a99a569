package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// diffExitChanges is --detailed-exitcode's status when the plan changes something.
const diffExitChanges = 2

// diffFlags are the flags every diff subcommand has.
type diffFlags struct {
	// lifecycle holds -o, which prints the plan itself (json or yaml).
	lifecycle        *lifecycleFlags
	context          int
	showSecrets      bool
	detailedExitCode bool
	savePlan         string
	noColour         bool
	graph            string
	// externalDiff is $KUBECTL_EXTERNAL_DIFF, from the settings.
	externalDiff string
	// helm holds helm-diff's flags (diff_helm.go).
	helm helmDiffFlags
}

// AddFlags adds diff's flags; lf already added -o to f.
func (d *diffFlags) AddFlags(f *pflag.FlagSet, lf *lifecycleFlags, s *settings) {
	d.lifecycle, lf.planOutput, d.externalDiff = lf, true, s.externalDiff
	f.Lookup("output").Usage = "print the plan itself (json or yaml) instead of a diff, or the changes as helm-diff's --output: diff, simple, template ($HELM_DIFF_TPL), structured or dyff (as diff)"
	f.IntVarP(&d.context, "context", "C", 3, "lines of context around each change (-1: whole objects)")
	f.BoolVar(&d.showSecrets, "show-secrets", false, "show the values of Secrets (hidden by default: shown as changed or unchanged)")
	f.BoolVar(&d.detailedExitCode, "detailed-exitcode", false, "exit 0 when nothing changes, 2 when something does, 1 on error")
	f.StringVar(&d.savePlan, "save-plan", "", "write the plan to this file, to be applied exactly with --use-plan")
	f.BoolVar(&d.noColour, "no-color", false, "never colour the diff (it is coloured on a terminal)")
	addGraphFlag(f, &d.graph, "print instead of the diff the plan")
	d.helm.addFlags(f, s)
}

func (d *diffFlags) validate() error {
	if err := d.helm.resolve(&d.lifecycle.output, &d.context); err != nil {
		return err
	}
	if err := d.lifecycle.validate(); err != nil {
		return err
	}
	if d.context < 0 {
		return errors.New("--context must not be negative")
	}
	return validateGraph(d.graph)
}

// show prints the plan, saves it when asked, and turns "something changes"
// into exit status 2 with --detailed-exitcode.
func (d *diffFlags) show(ctx context.Context, streams genericiooptions.IOStreams, p *plan.Plan) error {
	if d.savePlan != "" {
		var buf bytes.Buffer
		if err := plan.Write(&buf, p); err != nil {
			return err
		}
		if err := atomicfile.Write(d.savePlan, buf.Bytes(), 0o600); err != nil {
			return fmt.Errorf("save plan: %w", err)
		}
	}
	// Hooks' changes are shown and counted, never saved nor printed with -o.
	shown := d.helm.withHooks(p)
	v := planView{
		out: streams.Out, context: d.context, showSecrets: d.showSecrets,
		colour: d.helm.colours(d.noColour, streams.Out), externalDiff: d.externalDiff,
	}
	var err error
	switch out := d.lifecycle.output; {
	case d.graph != "":
		err = graphView{stages: p.Stages, crds: p.CRDs, sequencing: p.Sequencing, actions: true}.write(streams.Out, d.graph)
		writeProblems(streams.Out, p)
	case out != "":
		err = v.print(p, out)
	case d.helm.reports():
		err = diffReport{out: streams.Out, flags: &d.helm, context: v.context, colour: v.colour}.write(shown, d.showSecrets)
	default:
		err = v.diff(ctx, shown)
	}
	if err != nil {
		return err
	}
	if d.savePlan != "" {
		fmt.Fprintf(streams.ErrOut, "plan saved to %s; apply it with: kubectl chart %s %s --use-plan %s\n",
			d.savePlan, p.Command, p.Release.Name, d.savePlan)
	}
	if d.detailedExitCode && shown.HasChanges() {
		return &exitCodeError{code: diffExitChanges}
	}
	return nil
}

// NewCmdDiff builds `kubectl chart diff`.
func NewCmdDiff(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show what an install, upgrade, rollback or uninstall would change",
		Long: `Show what an operation would change, changing nothing: its plan, as a unified diff
per object of the live object against what the API server says it would be after
the change (server-side dry run, so defaults and mutating webhooks show).

Each subcommand takes the arguments and flags of the operation it previews, as
helm diff does. Secret values are shown as changed or unchanged unless --show-secrets.
$KUBECTL_EXTERNAL_DIFF names another diff program, as for kubectl diff.
--save-plan writes the plan; the operation's --use-plan applies exactly that plan,
and refuses if the release or any object it touches changed since.

helm-diff's command line works too (helmfile diff and apply run it): its flags
(--allow-unreleased, --suppress, --output simple|template|structured ...), its
environment ($HELM_DIFF_COLOR, $HELM_DIFF_OUTPUT ...), its exit codes, and
diff revision and diff release, which compare release records.`,
		Example: `  kubectl chart diff upgrade web ./mychart --set image.tag=1.2.4
  kubectl chart diff upgrade web ./mychart -f prod.yaml --save-plan web.plan
  kubectl chart upgrade web --use-plan web.plan
  kubectl chart diff uninstall web --detailed-exitcode`,
		Args: noArgs,
	}
	cmd.AddCommand(newCmdDiffInstall(f, streams), newCmdDiffUpgrade(f, streams),
		newCmdDiffRollback(f, streams), newCmdDiffUninstall(f, streams),
		newCmdDiffRevision(f, streams), newCmdDiffRelease(f, streams))
	return cmd
}

func newCmdDiffInstall(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &InstallOptions{IOStreams: streams}
	var d diffFlags
	cmd := &cobra.Command{
		Use:   "install [NAME] CHART",
		Short: "Show what an install would change",
		Args:  minimumNArgs(1),
		RunE: previewRunE(f, streams, o, &d, func(ctx context.Context) (*plan.Plan, error) {
			spec, err := o.spec(ctx, o.releaseName, o.chartRef, o.namespace, o.IOStreams)
			if err != nil {
				return nil, err
			}
			return d.helm.planInstall(ctx, func() (*action.Lifecycle, error) {
				lc, _, err := o.lifecycle.lifecycle(f, o.IOStreams)
				return lc, err
			}, o.request(spec))
		}),
	}
	o.AddFlags(cmd, f, streams)
	o.addInstallFlags(cmd.Flags())
	d.AddFlags(cmd.Flags(), &o.lifecycle, f.Settings())
	d.helm.addRenderFlags(cmd, f.Settings())
	hideOperationOnly(cmd.Flags())
	return cmd
}

func newCmdDiffUpgrade(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &UpgradeOptions{IOStreams: streams}
	var d diffFlags
	cmd := &cobra.Command{
		Use:   "upgrade NAME CHART",
		Short: "Show what an upgrade would change",
		Args:  exactArgs(2),
		RunE: previewRunE(f, streams, o, &d, func(ctx context.Context) (*plan.Plan, error) {
			spec, err := o.spec(ctx, o.releaseName, o.chartRef, o.namespace, o.IOStreams)
			if err != nil {
				return nil, err
			}
			return d.helm.planUpgrade(ctx, func() (*action.Lifecycle, error) {
				lc, _, err := o.lifecycle.lifecycle(f, o.IOStreams)
				return lc, err
			}, o.request(spec, nil))
		}),
	}
	o.AddFlags(cmd, f, streams)
	o.addUpgradeFlags(cmd.Flags())
	d.AddFlags(cmd.Flags(), &o.lifecycle, f.Settings())
	d.helm.addRenderFlags(cmd, f.Settings())
	hideOperationOnly(cmd.Flags())
	return cmd
}

func newCmdDiffRollback(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var (
		d              diffFlags
		lf             lifecycleFlags
		noHooks        bool
		forceReplace   bool
		forceConflicts bool
	)
	cmd := &cobra.Command{
		Use:   "rollback NAME [REVISION]",
		Short: "Show what a rollback would change",
		Args:  rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := d.validate(); err != nil {
				return err
			}
			rev, err := revisionArg(args)
			if err != nil {
				return err
			}
			lc, _, err := lf.lifecycle(f, streams)
			if err != nil {
				return err
			}
			p, err := lc.PreviewRollback(cmd.Context(), action.RollbackRequest{
				ReleaseName: args[0], Namespace: f.Namespace(), Revision: rev,
				NoHooks: noHooks, ForceReplace: forceReplace, ForceConflicts: forceConflicts,
			})
			if err != nil {
				return err
			}
			return d.show(cmd.Context(), streams, p)
		},
	}
	fs := cmd.Flags()
	lf.AddFlags(fs, f.StorageDefaults())
	d.AddFlags(fs, &lf, f.Settings())
	fs.BoolVar(&noHooks, "no-hooks", false, "plan without running hooks")
	fs.BoolVar(&forceReplace, "force-replace", false, "replace objects whose change the server refuses")
	fs.BoolVar(&forceReplace, "force", false, "alias of --force-replace")
	fs.BoolVar(&forceConflicts, "force-conflicts", false, "take over fields that other field managers own")
	hideOperationOnly(fs)
	return cmd
}

func newCmdDiffUninstall(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var (
		d           diffFlags
		lf          lifecycleFlags
		noHooks     bool
		keepHistory bool
		cascade     string
		description string
	)
	cmd := &cobra.Command{
		Use:   "uninstall NAME",
		Short: "Show what an uninstall would change",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := d.validate(); err != nil {
				return err
			}
			prop, err := cascadeFlag(cascade)
			if err != nil {
				return err
			}
			lc, _, err := lf.lifecycle(f, streams)
			if err != nil {
				return err
			}
			p, err := lc.PreviewUninstall(cmd.Context(), action.UninstallRequest{
				ReleaseName: args[0], Namespace: f.Namespace(), NoHooks: noHooks,
				KeepHistory: keepHistory, Cascade: prop, Description: description,
			})
			if err != nil {
				return err
			}
			return d.show(cmd.Context(), streams, p)
		},
	}
	fs := cmd.Flags()
	lf.AddFlags(fs, f.StorageDefaults())
	d.AddFlags(fs, &lf, f.Settings())
	fs.BoolVar(&noHooks, "no-hooks", false, "plan without running hooks")
	fs.BoolVar(&keepHistory, "keep-history", false, "plan to keep the release's history")
	fs.StringVar(&cascade, "cascade", "background", `deletion propagation: "background", "orphan" or "foreground"`)
	fs.StringVar(&description, "description", "", "add a custom description")
	hideOperationOnly(fs)
	return cmd
}

// operationOptions are the Options of the operation a diff previews.
type operationOptions interface {
	Complete(f Factory, args []string) error
	Validate() error
}

// previewRunE runs a diff of install or upgrade: the operation's own Complete
// and Validate, the diff flags' checks, then the preview it shows.
func previewRunE(f Factory, streams genericiooptions.IOStreams, o operationOptions, d *diffFlags, preview func(context.Context) (*plan.Plan, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(f, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		if err := d.validate(); err != nil {
			return err
		}
		p, err := preview(cmd.Context())
		if err != nil {
			return err
		}
		return d.show(cmd.Context(), streams, p)
	}
}

// hideOperationOnly hides the flags of an operation that mean nothing to its
// diff (they are accepted, so that a command line can be previewed as it is).
func hideOperationOnly(f *pflag.FlagSet) {
	for _, name := range []string{"dry-run", "wait", "wait-for-jobs", "timeout", "atomic", "rollback-on-failure",
		"hide-notes", "hide-secret", "json-events", "history-max", "cleanup-on-fail", "lock-lease-duration", "recover-pending"} {
		if f.Lookup(name) != nil {
			_ = f.MarkHidden(name)
		}
	}
}

// revisionArg reads rollback's optional REVISION argument; 0 is the one before the latest.
func revisionArg(args []string) (int, error) {
	if len(args) < 2 {
		return 0, nil
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return 0, fmt.Errorf("could not convert revision to a number: %w", err)
	}
	if n < 0 {
		return 0, fmt.Errorf("could not convert revision to a number: %q", args[1])
	}
	return n, nil
}

// cascadeFlag reads --cascade.
func cascadeFlag(cascade string) (ports.Propagation, error) {
	prop := ports.Propagation(cascade)
	switch prop {
	case ports.PropagationBackground, ports.PropagationForeground, ports.PropagationOrphan:
		return prop, nil
	}
	return "", fmt.Errorf("invalid cascade value (%s). Must be \"background\", \"foreground\", or \"orphan\"", cascade)
}
