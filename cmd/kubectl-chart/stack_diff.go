package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

// StackDiffOptions are `stack diff`'s.
type StackDiffOptions struct {
	run              stackRunFlags
	context          int
	showSecrets      bool
	noColour         bool
	detailedExitCode bool
	savePlan         string
	externalDiff     string
	load             stackLoader
	streams          genericiooptions.IOStreams
}

func newCmdStackDiff(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newStackDiffCmd(f, streams, loadStack)
}

func newStackDiffCmd(f Factory, streams genericiooptions.IOStreams, load stackLoader) *cobra.Command {
	o := &StackDiffOptions{load: load, streams: streams, externalDiff: f.Settings().externalDiff}
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show what applying the stack would change, as one plan",
		Long: `Plan every release of the stack (install, upgrade, no change, or uninstall for
installed: false), in the order of their needs, across kube contexts, and show per
release the diff of each object it changes. Nothing is changed. --save-plan writes
the whole plan; 'stack apply --use-plan FILE' applies exactly it.`,
		Example: `  kubectl chart stack diff -f helmfile.yaml -e prod --detailed-exitcode
  kubectl chart stack diff -e prod --save-plan prod.plan`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context(), f)
		},
	}
	fs := cmd.Flags()
	o.run.addFlags(fs, f)
	fs.IntVarP(&o.context, "context", "C", 3, "lines of context around each change (-1: whole objects)")
	fs.BoolVar(&o.showSecrets, "show-secrets", false, "show the values of Secrets (hidden by default: shown as changed or unchanged)")
	fs.BoolVar(&o.noColour, "no-color", false, "never colour the diff (it is coloured on a terminal)")
	fs.BoolVar(&o.detailedExitCode, "detailed-exitcode", false, "exit 0 when nothing changes, 2 when something does, 1 on error")
	fs.StringVar(&o.savePlan, "save-plan", "", "write the stack's plan to this file, to be applied exactly with 'stack apply --use-plan'")
	return cmd
}

// Validate checks the flags.
func (o *StackDiffOptions) Validate() error {
	if o.context < -1 {
		return errors.New("--context must be -1 (whole objects) or more")
	}
	return o.run.validate()
}

// Run plans the stack, shows and saves the plan.
func (o *StackDiffOptions) Run(ctx context.Context, f Factory) error {
	p, _, err := planStack(ctx, f, &o.run, o.load, o.streams, false)
	if err != nil {
		return err
	}
	if o.savePlan != "" {
		if err := saveStackPlan(o.savePlan, p); err != nil {
			return err
		}
	}
	v := planView{out: o.streams.Out, context: o.context, showSecrets: o.showSecrets,
		colour: !o.noColour && isTerminal(o.streams.Out), externalDiff: o.externalDiff}
	if err := writeStackDiff(ctx, v, p); err != nil {
		return err
	}
	if o.savePlan != "" {
		fmt.Fprintf(o.streams.ErrOut, "plan saved to %s; apply it with: kubectl chart stack apply --use-plan %s\n", o.savePlan, o.savePlan)
	}
	if o.detailedExitCode && p.HasChanges() {
		return &exitCodeError{code: diffExitChanges}
	}
	return nil
}

// planStack loads the stack and plans it (destroy: its uninstall); replan
// plans one of its releases again (stackrun.Applier.Replan).
func planStack(ctx context.Context, f Factory, run *stackRunFlags, load stackLoader, streams genericiooptions.IOStreams, destroy bool) (
	p *stack.Plan, replan func(context.Context, stack.ID) (stack.Action, *plan.Plan, error), err error,
) {
	st, err := load(ctx, f, &run.stack)
	if err != nil {
		return nil, nil, err
	}
	pl, err := run.planner(f, st, streams.ErrOut)
	if err != nil {
		return nil, nil, err
	}
	if destroy {
		p, err = pl.PlanDestroy(ctx, st)
	} else {
		p, err = pl.Plan(ctx, st)
	}
	return p, pl.Replanner(st, destroy), err
}

func saveStackPlan(file string, p *stack.Plan) error {
	var buf bytes.Buffer
	if err := stack.WritePlan(&buf, p); err != nil {
		return err
	}
	if err := atomicfile.Write(file, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("save plan: %w", err)
	}
	return nil
}
