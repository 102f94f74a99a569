package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/stackrun"
)

// StackStatusOptions are `stack status`'s (and `stack drift`'s).
type StackStatusOptions struct {
	run              stackRunFlags
	drift            bool
	correct          bool
	detailedExitCode bool
	showSecrets      bool
	load             stackLoader
	streams          genericiooptions.IOStreams
}

func newCmdStackStatus(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newStackStatusCmd(f, streams, loadStack)
}

func newStackStatusCmd(f Factory, streams genericiooptions.IOStreams, load stackLoader) *cobra.Command {
	o := &StackStatusOptions{load: load, streams: streams}
	return o.command(f, &cobra.Command{
		Use:     "status",
		Short:   "Show each release of the stack: context, namespace, revision, status and drift",
		Example: `  kubectl chart stack status -f helmfile.yaml -e prod`,
	})
}

// command completes cmd (status or drift) with the shared flags and its run.
func (o *StackStatusOptions) command(f Factory, cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := o.run.validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context(), f)
	}
	o.run.addFlags(cmd.Flags(), f)
	return cmd
}

// Run reads the stack's releases and prints the table, then (stack drift)
// what drifted.
func (o *StackStatusOptions) Run(ctx context.Context, f Factory) error {
	st, err := o.load(ctx, f, &o.run.stack)
	if err != nil {
		return err
	}
	in := &stackrun.Inspector{Targets: o.run.targets(f), Concurrency: o.run.concurrency}
	var rows []stackrun.ReleaseStatus
	if o.correct {
		rows = in.Correct(ctx, st)
	} else {
		rows = in.Status(ctx, st)
	}
	if err := writeStackStatus(o.streams.Out, rows); err != nil {
		return err
	}
	drifted := false
	var failed []error
	for _, r := range rows {
		if r.Err != nil {
			failed = append(failed, fmt.Errorf("release %s: %w", r.ID, r.Err))
		}
		if !o.drift || !r.Drifted() {
			continue
		}
		drifted = drifted || !r.Corrected
		fmt.Fprintf(o.streams.Out, "\nRelease %s:\n", r.ID)
		if err := printDriftTable(o.streams.Out, []action.ReleaseDrift{*r.Drift}, o.showSecrets, false); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d release(s) could not be read: %w", len(failed), errors.Join(failed...))
	}
	if o.detailedExitCode && drifted {
		return &exitCodeError{code: driftExitDrifted}
	}
	return nil
}

// writeStackStatus prints one row per release.
func writeStackStatus(w io.Writer, rows []stackrun.ReleaseStatus) error {
	t := newTable(0).row("CONTEXT", "NAMESPACE", "NAME", "REVISION", "STATUS", "DRIFT")
	for _, r := range rows {
		kctx := r.ID.KubeContext
		if kctx == "" {
			kctx = "(current)"
		}
		revision, status, drift := "-", "not installed", "-"
		if r.Revision > 0 {
			revision, status = fmt.Sprint(r.Revision), string(r.Status)
		}
		switch {
		case r.Err != nil:
			drift = "unknown: " + safeLine(r.Err.Error())
		case r.Corrected:
			drift = "corrected"
		case r.Drifted():
			drift = fmt.Sprintf("%d object(s)", driftedObjects(r))
		case r.Drift != nil:
			drift = "none"
		}
		t.row(kctx, r.ID.Namespace, r.ID.Name, revision, status, drift)
	}
	return t.write(w)
}

func driftedObjects(r stackrun.ReleaseStatus) int {
	n := 0
	for _, s := range r.Drift.Plan.Steps() {
		if s.Action.Changes() {
			n++
		}
	}
	return n
}
