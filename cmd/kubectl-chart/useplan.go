package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

// usePlanFlag is --use-plan FILE: execute a plan saved by diff --save-plan.
type usePlanFlag struct {
	file string
}

func (u *usePlanFlag) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&u.file, "use-plan", "", "apply exactly the plan saved by 'kubectl chart diff ... --save-plan FILE' (nothing is rendered again; refused if the release or an object it touches changed since)")
}

// planningFlags shape a plan: with --use-plan the saved plan decides them.
func planningFlags() []string {
	return []string{
		"set", "set-string", "set-file", "set-json", "set-literal", "values", "version", "devel",
		"reuse-values", "reset-values", "reset-then-reuse-values", "post-renderer", "post-renderer-args",
		"force-conflicts", "force-replace", "force", "no-hooks", "take-ownership", "create-namespace",
		"skip-crds", "crds", "skip-schema-validation", "description", "labels", "replace", "install", "dry-run",
		"generate-name", "name-template", "keep-history", "cascade", "render-subchart-notes", "enable-dns",
		"correct-drift", "server-side",
	}
}

// args checks a command's arguments: with --use-plan only the release name.
func (u *usePlanFlag) args(normal cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if u.file == "" {
			return normal(cmd, args)
		}
		if len(args) != 1 {
			return fmt.Errorf("%q with --use-plan takes the release name only\n\nUsage:  %s", cmd.CommandPath(), cmd.UseLine())
		}
		for _, name := range planningFlags() {
			if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
				return fmt.Errorf("--%s cannot be used with --use-plan: the saved plan already decided it", name)
			}
		}
		return nil
	}
}

// execute reads the saved plan and executes it for the release name.
func (u *usePlanFlag) execute(ctx context.Context, lc *action.Lifecycle, command plan.Operation, name, namespace string, x action.ExecOptions) (*action.Outcome, error) {
	f, err := os.Open(u.file)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	defer func() { _ = f.Close() }()
	p, err := plan.Read(f, u.file)
	if err != nil {
		return nil, err
	}
	return lc.ExecuteSaved(ctx, action.SavedPlanRequest{
		Plan: p, Command: command, ReleaseName: name, Namespace: namespace, ExecOptions: x,
	})
}
