package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// BuildInfo identifies this build.
type BuildInfo struct {
	Version string
	Commit  string
}

// NewRootCmd builds `kubectl chart` and its subcommands, whose adapters come
// from kubectl's connection flags and the environment (read here, once).
func NewRootCmd(streams genericiooptions.IOStreams, build BuildInfo) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	return newRootCmd(flags, newFactory(flags, loadSettings(os.Getenv, os.UserHomeDir)), streams, build)
}

// newRootCmd builds `kubectl chart` with the release commands' adapters from
// f; flags are kubectl's connection flags, which f reads.
func newRootCmd(flags *genericclioptions.ConfigFlags, f Factory, streams genericiooptions.IOStreams, build BuildInfo) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubectl-chart",
		Short: "Helm-compatible package manager for Kubernetes, as a kubectl plugin",
		Long: `kubectl chart installs, upgrades and renders Helm charts.

It reads the charts and releases Helm uses, renders them exactly as Helm does, and
adds server-side apply, readiness-aware waits and releases that never get stuck.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl chart",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	addConfigFlags(cmd.PersistentFlags(), flags)

	cmd.AddCommand(
		NewCmdTemplate(flags, streams),
		NewCmdList(f, streams), NewCmdHistory(f, streams), NewCmdStatus(f, streams), NewCmdGet(f, streams),
		NewCmdInstall(f, streams), NewCmdUpgrade(f, streams), NewCmdRollback(f, streams),
		NewCmdUninstall(f, streams), NewCmdTest(f, streams), NewCmdDiff(f, streams), NewCmdDrift(f, streams),
		NewCmdVersion(streams, build),
		NewCmdCreate(streams), NewCmdLint(streams), NewCmdPackage(streams), NewCmdShow(streams),
		NewCmdRepo(streams), NewCmdSearch(streams), NewCmdPull(streams), NewCmdPush(streams),
		NewCmdRegistry(streams), NewCmdDependency(streams), NewCmdVerify(streams),
		NewCmdPlugin(streams),
		NewCmdCompletion(streams),
	)
	addPluginCommands(cmd, flags, streams)
	registerCompletions(cmd, completer{flags: flags, releases: releaseNamesFromStore(f)})
	return cmd
}

// addConfigFlags adds kubectl's connection flags. --server loses its -s shorthand:
// Helm users know -s as template's --show-only.
func addConfigFlags(fs *pflag.FlagSet, cf *genericclioptions.ConfigFlags) {
	tmp := pflag.NewFlagSet("kubeconfig", pflag.ContinueOnError)
	cf.AddFlags(tmp)
	tmp.VisitAll(func(f *pflag.Flag) {
		if f.Name == "server" {
			f.Shorthand = ""
		}
		fs.AddFlag(f)
	})
}
