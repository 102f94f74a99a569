package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/stackrun"
)

// StackApplyOptions are `stack apply`'s (and `stack destroy`'s).
type StackApplyOptions struct {
	run        stackRunFlags
	usePlan    string
	jsonEvents bool
	historyMax int
	destroy    bool
	load       stackLoader
	streams    genericiooptions.IOStreams
}

func newCmdStackApply(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newStackApplyCmd(f, streams, loadStack)
}

func newStackApplyCmd(f Factory, streams genericiooptions.IOStreams, load stackLoader) *cobra.Command {
	o := &StackApplyOptions{load: load, streams: streams}
	cmd := o.command(f, &cobra.Command{
		Use:   "apply",
		Short: "Plan the stack and apply it, or apply exactly a saved plan",
		Long: `Plan every release of the stack as 'stack diff' does, check in every kube context
that nothing stops it (permissions) and apply the releases that change: each once
the releases it needs are deployed (and ready when they wait), at most --concurrency
at once. A release that fails stops the releases that need it; the others go on.
The summary says per release: applied, unchanged, failed (why), not started (because
of which). With --use-plan FILE the saved plan is applied exactly, refused with
nothing changed anywhere when a release's latest revision or an object it touches
changed since it was made.`,
		Example: `  kubectl chart stack apply -f helmfile.yaml -e prod
  kubectl chart stack apply --use-plan prod.plan --json-events`,
	})
	cmd.Flags().StringVar(&o.usePlan, "use-plan", "", "apply exactly the plan saved by 'stack diff --save-plan FILE' (refused if a release or an object it touches changed since)")
	return cmd
}

// command completes cmd (apply or destroy) with its flags and its run.
func (o *StackApplyOptions) command(f Factory, cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := o.Validate(cmd); err != nil {
			return err
		}
		return o.Run(cmd.Context(), f)
	}
	fs := cmd.Flags()
	o.run.addFlags(fs, f)
	fs.BoolVar(&o.jsonEvents, "json-events", false, "print one JSON event per line on stdout as the stack applies, instead of progress on stderr and the summary")
	fs.IntVar(&o.historyMax, "history-max", 10, "limit the maximum number of revisions saved per release (0: no limit)")
	return cmd
}

// Validate checks the flags; with --use-plan the plan decided what the
// stack's flags would.
func (o *StackApplyOptions) Validate(cmd *cobra.Command) error {
	if o.usePlan != "" {
		for _, name := range []string{"file", "environment", "selector", "state-values-set", "state-values-file", "include-needs", "allow-exec", "compat"} {
			if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
				return fmt.Errorf("--%s cannot be used with --use-plan: the saved plan already decided it", name)
			}
		}
	}
	if o.historyMax < 0 {
		return fmt.Errorf("--history-max %d: want 0 (no limit) or more", o.historyMax)
	}
	return o.run.validate()
}

// Run plans (or reads the saved plan) and applies it.
func (o *StackApplyOptions) Run(ctx context.Context, f Factory) error {
	p, replan, err := o.plan(ctx, f)
	if err != nil {
		return err
	}
	progress := newStackProgress(o.streams.Out, o.streams.ErrOut, o.jsonEvents)
	if !o.jsonEvents {
		fmt.Fprintln(o.streams.ErrOut, stackPlanLine(p))
	}
	a := &stackrun.Applier{Targets: o.run.targets(f), Concurrency: o.run.concurrency, HistoryMax: o.historyMax,
		Events: progress.print, Clock: f.Clock(), Replan: replan}
	sum, err := a.Apply(ctx, p)
	if err != nil {
		return err
	}
	if !o.jsonEvents {
		if err := writeStackSummary(o.streams.Out, sum); err != nil {
			return err
		}
	}
	if sum.Failed() {
		return &exitCodeError{code: 1, err: fmt.Errorf("the stack was applied in part: %s", failedNames(sum))}
	}
	return nil
}

// plan plans the stack, or reads the saved plan: then nothing is planned
// again (replan is nil) and a plan gone stale is refused.
func (o *StackApplyOptions) plan(ctx context.Context, f Factory) (*stack.Plan, func(context.Context, stack.ID) (stack.Action, *plan.Plan, error), error) {
	if o.usePlan == "" {
		return planStack(ctx, f, &o.run, o.load, o.streams, o.destroy)
	}
	file, err := os.Open(o.usePlan)
	if err != nil {
		return nil, nil, fmt.Errorf("read plan: %w", err)
	}
	defer func() { _ = file.Close() }()
	p, err := stack.ReadPlan(file, o.usePlan)
	return p, nil, err
}

// failedNames lists the releases that failed or did not start.
func failedNames(s *stackrun.Summary) string {
	var out []stack.ID
	for _, r := range s.Results {
		if r.State == stackrun.StateFailed || r.State == stackrun.StateNotStarted {
			out = append(out, r.ID)
		}
	}
	return fmt.Sprintf("%d release(s) failed or did not start (%v)", len(out), out)
}
