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
	s := loadSettings(os.Getenv, os.UserHomeDir)
	s.log.out = streams.ErrOut
	s.kube.setDefaults(flags)
	return newRootCmd(flags, newFactory(flags, s), streams, build)
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
	s := f.Settings()
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		// Completion is set up only when it is asked for: walking every
		// command's flags costs each start-up milliseconds.
		if c.Name() == cobra.ShellCompRequestCmd || c.Name() == cobra.ShellCompNoDescRequestCmd {
			registerCompletions(c.Root(), completer{flags: flags, releases: releaseNamesFromStore(f)})
		}
		return refuseHelm4Globals(c, s)
	}
	addConfigFlags(cmd.PersistentFlags(), flags)
	addGlobalFlags(cmd.PersistentFlags(), s)

	cmd.AddCommand(
		NewCmdTemplate(flags, streams),
		NewCmdList(f, streams), NewCmdHistory(f, streams), NewCmdStatus(f, streams), NewCmdGet(f, streams),
		NewCmdInstall(f, streams), NewCmdUpgrade(f, streams), NewCmdRollback(f, streams),
		NewCmdUninstall(f, streams), NewCmdTest(f, streams), NewCmdDiff(f, streams), NewCmdDrift(f, streams),
		NewCmdVersion(streams, build), NewCmdEnv(flags, f, streams),
		NewCmdCreate(s.files.starters, s.chartV3, streams), NewCmdLint(streams), NewCmdPackage(streams), NewCmdShow(streams),
		NewCmdRepo(streams), NewCmdSearch(streams), NewCmdPull(streams), NewCmdPush(streams),
		NewCmdRegistry(streams), NewCmdDependency(streams), NewCmdVerify(streams),
		NewCmdPlugin(flags, f, streams),
		NewCmdCompletion(streams),
	)
	addPluginCommands(cmd, f, flags, streams)
	applySettings(cmd, s)
	explainUnreachable(cmd, f)
	return cmd
}

// addConfigFlags adds kubectl's connection flags, and Helm's names for them,
// hidden, with the same meaning (--kube-context is --context ...). --server
// loses its -s shorthand: Helm users know -s as template's --show-only.
// kubectl's --insecure-skip-tls-verify, which turns off the API server's
// certificate check, is --kube-insecure-skip-tls-verify, as in Helm: a Helm
// user's --insecure-skip-tls-verify means the chart repository's TLS, and
// copying a Helm command line must never weaken the cluster's.
func addConfigFlags(fs *pflag.FlagSet, cf *genericclioptions.ConfigFlags) {
	tmp := pflag.NewFlagSet("kubeconfig", pflag.ContinueOnError)
	cf.AddFlags(tmp)
	helmNames := map[string]string{
		"context": "kube-context", "token": "kube-token", "server": "kube-apiserver", "as": "kube-as-user",
		"as-group": "kube-as-group", "certificate-authority": "kube-ca-file", "tls-server-name": "kube-tls-server-name",
	}
	tmp.VisitAll(func(f *pflag.Flag) {
		switch f.Name {
		case "server":
			f.Shorthand = ""
		case "insecure-skip-tls-verify":
			f.Name = "kube-insecure-skip-tls-verify"
			f.Usage = "if true, the API server's certificate will not be checked for validity (kubectl's --insecure-skip-tls-verify). This will make your HTTPS connections insecure"
		}
		fs.AddFlag(f)
		if alias, ok := helmNames[f.Name]; ok {
			fs.AddFlag(&pflag.Flag{Name: alias, Usage: "Helm's name for --" + f.Name, Value: f.Value, DefValue: f.DefValue, Hidden: true})
		}
	})
}
