package main

// This file stands in for stackfile's stack.go (the state-file reader and the
// parent command) so that this branch compiles; it is deleted at the merge
// and stackfile's NewCmdStack registers the subcommands below.

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

// stackFlags are the flags every `stack` subcommand shares (helmfile's global flags).
type stackFlags struct {
	file             string   // -f/--file (default: helmfile.yaml, helmfile.yaml.gotmpl, helmfile.d/ as helmfile)
	environment      string   // -e/--environment
	selectors        []string // -l/--selector (helmfile's rules)
	stateValuesSet   []string // --state-values-set
	stateValuesFiles []string // --state-values-file
	allowExec        bool     // --allow-exec
	includeNeeds     bool     // --include-needs
}

func (s *stackFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&s.file, "file", "f", "", "load the state file (helmfile.yaml)")
	fs.StringVarP(&s.environment, "environment", "e", "", "the environment")
	fs.StringArrayVarP(&s.selectors, "selector", "l", nil, "only the releases with these labels")
	fs.StringArrayVar(&s.stateValuesSet, "state-values-set", nil, "set state values")
	fs.StringArrayVar(&s.stateValuesFiles, "state-values-file", nil, "state values files")
	fs.BoolVar(&s.allowExec, "allow-exec", false, "allow exec in the state file")
	fs.BoolVar(&s.includeNeeds, "include-needs", false, "include the needs of the selected releases")
}

// loadStack reads, renders and resolves the state file for the chosen environment and selectors.
func loadStack(_ context.Context, _ Factory, _ *stackFlags) (stack.Stack, error) {
	return stack.Stack{}, errors.New("stack: the state-file reader is not in this build")
}

// NewCmdStack registers the stack subcommands.
func NewCmdStack(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "stack", Short: "Plan and apply many releases across clusters from a helmfile state file"}
	cmd.AddCommand(newCmdStackDiff(f, streams), newCmdStackApply(f, streams), newCmdStackStatus(f, streams),
		newCmdStackDrift(f, streams), newCmdStackDestroy(f, streams))
	return cmd
}
