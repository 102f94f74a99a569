package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// pluginArgs are a plugin's command line split as Helm splits it: the global
// flags this program consumes (and hands to the plugin through its
// environment) and the arguments the plugin receives.
type pluginArgs struct {
	// global are kubectl's connection flags (and Helm's names for them),
	// --debug and Helm's file flags, parsed into the root command's flags.
	global []string
	// rest is passed to the plugin.
	rest []string
}

// isPluginGlobalFlag reports the flags taken from a plugin's command line
// because Helm's plugin environment carries them: Helm's own names and
// kubectl's for the same settings. Other flags reach the plugin, as in Helm.
func isPluginGlobalFlag(name string) bool {
	switch name {
	case "--namespace", "-n", "--kubeconfig", "--kube-context", "--context", "--kube-apiserver", "--server",
		"--kube-token", "--token", "--kube-as-user", "--as", "--kube-as-group", "--as-group",
		"--kube-ca-file", "--certificate-authority", "--kube-tls-server-name", "--tls-server-name",
		"--kube-insecure-skip-tls-verify", "--registry-config", "--repository-config", "--repository-cache":
		return true
	}
	return false
}

// splitPluginArgs separates the global flags from a plugin's arguments. A
// flag's value is the next argument or follows '='.
func splitPluginArgs(args []string) pluginArgs {
	var out pluginArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--debug", name == "--kube-insecure-skip-tls-verify":
			// Booleans: a value only ever follows '='.
			out.global = append(out.global, a)
		case isPluginGlobalFlag(name):
			if !hasValue && i+1 < len(args) {
				i++
				a += "=" + args[i]
			}
			out.global = append(out.global, a)
		default:
			out.rest = append(out.rest, a)
		}
	}
	return out
}

// pluginRunner runs cli/v1 plugins with Helm's plugin environment.
type pluginRunner struct {
	flags   *genericclioptions.ConfigFlags
	f       Factory
	streams genericiooptions.IOStreams
}

// run runs p with args (the plugin's command line as typed): global flags
// become Helm's environment variables, the rest are the plugin's arguments, and
// the plugin's exit status becomes this program's.
func (r pluginRunner) run(cmd *cobra.Command, reg *plugin.Registry, p *plugin.Plugin, args []string) error {
	split := splitPluginArgs(args)
	if len(split.global) > 0 {
		if err := cmd.Root().PersistentFlags().Parse(split.global); err != nil {
			return err
		}
	}
	// Helm's plugin environment is what `helm env` prints (Helm 4's).
	env := helmEnv(r.flags, r.f, dialect.Helm4)
	env["KUBECTL_CHART_BIN"] = env["HELM_BIN"]
	if v := r.flags.KubeConfig; v != nil && *v != "" {
		env["KUBECONFIG"] = *v
	}
	if p.Wasm() {
		err := reg.RunWasmCLI(cmd.Context(), p, split.rest, env,
			plugin.WasmIO{Stdin: r.streams.In, Stdout: r.streams.Out, Stderr: r.streams.ErrOut})
		// Helm 4.3.1 crashes on a bare non-zero code (a nil error); the code is
		// this program's status, as Helm means it to be (README).
		if exitErr, ok := errors.AsType[*plugin.WasmExitError](err); ok {
			return &exitCodeError{code: exitErr.Code, err: exitErr}
		}
		return err
	}
	inv, err := reg.Prepare(p, plugin.Host(), split.rest, env)
	if err != nil {
		return err
	}
	return runPlugin(cmd.Context(), p.Name, inv, r.streams)
}

// runPlugin runs a prepared plugin; a plugin that fails with a status ends this
// program with the same status, as in Helm.
func runPlugin(ctx context.Context, name string, inv *plugin.Invocation, streams genericiooptions.IOStreams) error {
	err := plugin.Exec(ctx, name, inv, streams.In, streams.Out, streams.ErrOut)
	var exitErr *plugin.ExitError
	if errors.As(err, &exitErr) {
		return &exitCodeError{code: exitErr.Code, err: fmt.Errorf("plugin %q exited with error", name)}
	}
	return err
}
