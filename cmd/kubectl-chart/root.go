package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// BuildInfo identifies this build, and the name it runs under.
type BuildInfo struct {
	Version string
	Commit  string
	// AsHelm: the binary runs under the name helm (a link or copy named so),
	// where it is Helm for every byte a tool reads.
	AsHelm bool
}

// NewRootCmd builds `kubectl chart` and its subcommands, whose adapters come
// from kubectl's connection flags and the environment (read here, once).
func NewRootCmd(streams genericiooptions.IOStreams, build BuildInfo) *cobra.Command {
	return newRootCmdFor(streams, build, nil)
}

// newRootCmdFor builds `kubectl chart` to run args (nil: any command line).
func newRootCmdFor(streams genericiooptions.IOStreams, build BuildInfo, args []string) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	s := loadSettings(os.Getenv, os.UserHomeDir)
	s.log.out = &lockedWriter{w: streams.ErrOut}
	s.plugins.stderr = s.log.out
	s.kube.setDefaults(flags)
	return buildRootCmd(flags, newFactory(flags, s), streams, build, args)
}

// newRootCmd builds `kubectl chart` with the release commands' adapters from
// f; flags are kubectl's connection flags, which f reads.
func newRootCmd(flags *genericclioptions.ConfigFlags, f Factory, streams genericiooptions.IOStreams, build BuildInfo) *cobra.Command {
	return buildRootCmd(flags, f, streams, build, nil)
}

// buildRootCmd builds `kubectl chart` for the command line args, or for any
// (nil). When args name a built-in command that never looks at the others,
// that command alone is built, not every command, their flags and the
// plugins' commands (milliseconds at every start-up).
func buildRootCmd(flags *genericclioptions.ConfigFlags, f Factory, streams genericiooptions.IOStreams, build BuildInfo, args []string) *cobra.Command {
	name, displayName := "kubectl-chart", "kubectl chart"
	if build.AsHelm {
		name, displayName = "helm", "helm"
	}
	cmd := &cobra.Command{
		Use:   name,
		Short: "Helm-compatible package manager for Kubernetes, as a kubectl plugin",
		Long: `kubectl chart installs, upgrades and renders Helm charts.

It reads the charts and releases Helm uses, renders them exactly as Helm does, and
adds server-side apply, readiness-aware waits and releases that never get stuck.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: displayName,
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		// Ours is NewCmdCompletion; cobra's would only be added to a root
		// built for one other command.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	s := f.Settings()
	s.asHelm = build.AsHelm
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		// Completion is set up only when it is asked for: walking every
		// command's flags costs each start-up milliseconds.
		if c.Name() == cobra.ShellCompRequestCmd || c.Name() == cobra.ShellCompNoDescRequestCmd {
			registerCompletions(c.Root(), completer{flags: flags, cluster: f.Cluster, releases: releaseNamesFromStore(f)})
		}
		// The root's own (its subcommands refuse them before their arguments).
		return refuseHelm4Globals(c, s)
	}
	addConfigFlags(cmd.PersistentFlags(), flags)
	addGlobalFlags(cmd.PersistentFlags(), s)
	face := helmFaceDialect(s, args)
	if build.AsHelm {
		showHelmGlobals(cmd.PersistentFlags(), face)
	}

	builtins := builtinCommands(flags, f, streams, build)
	if b, ok := alone(cmd, builtins, args); ok {
		cmd.AddCommand(b.build())
	} else {
		for _, b := range builtins {
			c := b.build()
			// Ours alone: installed as helm they run, but help and completion
			// list Helm's commands.
			c.Hidden = c.Hidden || build.AsHelm && b.ours
			cmd.AddCommand(c)
		}
		addPluginCommands(cmd, f, flags, streams)
	}
	applySettings(cmd, s)
	if build.AsHelm {
		showHelmFace(cmd, face, streams.ErrOut)
	}
	refuseHelm4GlobalsFirst(cmd, s)
	explainUnreachable(cmd, f)
	return cmd
}

// builtinCommands are the root's built-in commands, unbuilt.
func builtinCommands(flags *genericclioptions.ConfigFlags, f Factory, streams genericiooptions.IOStreams, build BuildInfo) []builtin {
	s := f.Settings()
	return []builtin{
		{name: "template", build: func() *cobra.Command { return NewCmdTemplate(f, streams) }},
		{name: "list", aliases: []string{"ls"}, build: func() *cobra.Command { return NewCmdList(f, streams) }},
		{name: "history", aliases: []string{"hist"}, build: func() *cobra.Command { return NewCmdHistory(f, streams) }},
		{name: "status", build: func() *cobra.Command { return NewCmdStatus(f, streams) }},
		{name: "get", build: func() *cobra.Command { return NewCmdGet(f, streams) }},
		{name: "install", build: func() *cobra.Command { return NewCmdInstall(f, streams) }},
		{name: "upgrade", build: func() *cobra.Command { return NewCmdUpgrade(f, streams) }},
		{name: "rollback", build: func() *cobra.Command { return NewCmdRollback(f, streams) }},
		{name: "uninstall", aliases: []string{"del", "delete", "un"}, build: func() *cobra.Command { return NewCmdUninstall(f, streams) }},
		{name: "test", build: func() *cobra.Command { return NewCmdTest(f, streams) }},
		{name: "diff", ours: true, build: func() *cobra.Command { return NewCmdDiff(f, streams) }},
		{name: "drift", ours: true, build: func() *cobra.Command { return NewCmdDrift(f, streams) }},
		{name: "stack", ours: true, build: func() *cobra.Command { return NewCmdStack(f, streams) }},
		{name: "storage", ours: true, build: func() *cobra.Command { return NewCmdStorage(f, streams) }},
		{name: "version", build: func() *cobra.Command { return NewCmdVersion(streams, build) }},
		{name: "env", build: func() *cobra.Command { return NewCmdEnv(flags, f, streams) }},
		{name: "create", build: func() *cobra.Command { return NewCmdCreate(s.files.starters, s.chartV3, streams) }},
		{name: "lint", build: func() *cobra.Command { return NewCmdLint(streams) }},
		{name: "package", build: func() *cobra.Command { return NewCmdPackage(streams) }},
		{name: "show", aliases: []string{"inspect"}, build: func() *cobra.Command { return NewCmdShow(streams) }},
		{name: "repo", build: func() *cobra.Command { return NewCmdRepo(streams) }},
		{name: "search", build: func() *cobra.Command { return NewCmdSearch(streams) }},
		{name: "pull", aliases: []string{"fetch"}, build: func() *cobra.Command { return NewCmdPull(&s.plugins, streams) }},
		{name: "push", build: func() *cobra.Command { return NewCmdPush(streams) }},
		{name: "registry", build: func() *cobra.Command { return NewCmdRegistry(streams) }},
		{name: "dependency", aliases: []string{"dep", "dependencies"}, build: func() *cobra.Command { return NewCmdDependency(streams) }},
		{name: "verify", build: func() *cobra.Command { return NewCmdVerify(streams) }},
		// plugin, completion and docs look at the other commands.
		{name: "docs", all: true, build: NewCmdDocs},
		{name: "plugin", all: true, build: func() *cobra.Command { return NewCmdPlugin(flags, f, streams) }},
		{name: "completion", all: true, build: func() *cobra.Command { return NewCmdCompletion(streams) }},
	}
}

// builtin is a built-in command of the root, by the name and aliases it has
// once built.
type builtin struct {
	name    string
	aliases []string
	// all: the command needs the others beside it.
	all bool
	// ours: Helm has no such command.
	ours  bool
	build func() *cobra.Command
}

// alone is the built-in command that args run when it can be built alone:
// cobra's own lookup, on a copy of root whose commands have only names,
// finds one that needs no other. Anything else (no args, help, a plugin, an
// unknown command) needs them all.
func alone(root *cobra.Command, builtins []builtin, args []string) (builtin, bool) {
	if len(args) == 0 {
		return builtin{}, false
	}
	probe := &cobra.Command{Use: root.Use}
	probe.PersistentFlags().AddFlagSet(root.PersistentFlags())
	byName := map[string]builtin{}
	for _, b := range builtins {
		probe.AddCommand(&cobra.Command{Use: b.name, Aliases: b.aliases})
		byName[b.name] = b
	}
	c, _, err := probe.Find(args)
	if err != nil || c == probe {
		return builtin{}, false
	}
	b := byName[c.Name()]
	return b, !b.all
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
			fs.AddFlag(&pflag.Flag{Name: alias, Usage: f.Usage, Value: f.Value, DefValue: f.DefValue, Hidden: true})
		}
	})
}
