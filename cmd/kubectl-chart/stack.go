package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/statehost"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/stack/helmfile"
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

	// log is where helmfile's info and warning lines go (stderr).
	log io.Writer
}

func (s *stackFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&s.file, "file", "f", "", "load the state file (helmfile's format) or directory (default: helmfile.yaml, helmfile.yaml.gotmpl or helmfile.d/)")
	fs.StringVarP(&s.environment, "environment", "e", "", `the state file's environment (default "default")`)
	fs.StringArrayVarP(&s.selectors, "selector", "l", nil, "only releases matching key=value,key2!=value2 (labels, name, namespace, chart); several -l select releases matching any")
	fs.StringArrayVar(&s.stateValuesSet, "state-values-set", nil, "set state values (key.path=value, comma-separated)")
	fs.StringArrayVar(&s.stateValuesFiles, "state-values-file", nil, "state values files, over the environment's")
	fs.BoolVar(&s.allowExec, "allow-exec", false, "let the state file's templates run commands (exec)")
	fs.BoolVar(&s.includeNeeds, "include-needs", false, "with -l, also the releases the selected ones need, transitively")
}

// loadStack reads, renders and resolves the state file for the chosen environment and selectors.
func loadStack(ctx context.Context, _ Factory, s *stackFlags) (stack.Stack, error) {
	log := func(string) {}
	if s.log != nil {
		log = func(msg string) { _, _ = fmt.Fprintln(s.log, msg) }
	}
	return helmfile.Loader{Host: statehost.Host{}}.Load(ctx, s.file, helmfile.Options{
		Environment: s.environment, Selectors: s.selectors, IncludeNeeds: s.includeNeeds,
		AllowExec: s.allowExec, StateValuesSet: s.stateValuesSet, StateValuesFiles: s.stateValuesFiles,
		Log: log,
	})
}

// NewCmdStack builds `kubectl chart stack`: many releases from one state file.
func NewCmdStack(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stack",
		Short: "Render, plan and apply many releases from one state file (helmfile's format)",
		Long: `Work on a stack: the releases of a state file in helmfile's format (helmfile.yaml),
with its environments, layering and needs.`,
	}
	cmd.AddCommand(newCmdStackTemplate(f, streams), newCmdStackDiff(f, streams), newCmdStackApply(f, streams),
		newCmdStackStatus(f, streams), newCmdStackDrift(f, streams), newCmdStackDestroy(f, streams))
	return cmd
}
