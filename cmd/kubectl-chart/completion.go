package main

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// completionEntry is the name kubectl (1.26+) runs to complete `kubectl chart ...`:
// a link to this binary on $PATH.
const completionEntry = "kubectl_complete-chart"

// completionArgs turns an invocation as kubectl_complete-chart into cobra's
// __complete request; kubectl passes the words after `kubectl chart`.
func completionArgs(argv0 string, args []string) []string {
	if programName(argv0) == completionEntry {
		return append([]string{cobra.ShellCompRequestCmd}, args...)
	}
	return args
}

// NewCmdCompletion builds `kubectl chart completion SHELL`: one subcommand
// per shell, as Helm has them (so `completion` alone, or with an unknown
// shell, prints its help).
func NewCmdCompletion(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion",
		Short: "Print a shell completion script for kubectl-chart",
		Long: `Print a shell completion script for the kubectl-chart command.

Through kubectl: kubectl (1.26+) completes 'kubectl chart ...' when an executable named
kubectl_complete-chart is on $PATH. Make it a link to this binary:

  ln -s "$(command -v kubectl-chart)" "$(dirname "$(command -v kubectl-chart)")/kubectl_complete-chart"

Directly, for the kubectl-chart command:

  source <(kubectl-chart completion bash)          # bash, needs bash-completion
  kubectl-chart completion zsh > "${fpath[1]}/_kubectl-chart"
  kubectl-chart completion fish | source
  kubectl-chart completion powershell | Out-String | Invoke-Expression`,
	}
	shell := func(name string, gen func(root *cobra.Command, desc bool) error) *cobra.Command {
		var noDesc bool
		c := &cobra.Command{
			Use:               name,
			Short:             "Print the completion script for " + name,
			Args:              noArgs,
			ValidArgsFunction: cobra.NoFileCompletions,
			RunE: func(c *cobra.Command, _ []string) error {
				return gen(c.Root(), !noDesc)
			},
		}
		c.Flags().BoolVar(&noDesc, "no-descriptions", false, "disable completion descriptions")
		return c
	}
	cmd.AddCommand(
		shell("bash", func(root *cobra.Command, desc bool) error { return root.GenBashCompletionV2(streams.Out, desc) }),
		shell("zsh", func(root *cobra.Command, desc bool) error {
			if desc {
				return root.GenZshCompletion(streams.Out)
			}
			return root.GenZshCompletionNoDesc(streams.Out)
		}),
		shell("fish", func(root *cobra.Command, desc bool) error { return root.GenFishCompletion(streams.Out, desc) }),
		shell("powershell", func(root *cobra.Command, desc bool) error {
			if desc {
				return root.GenPowerShellCompletionWithDesc(streams.Out)
			}
			return root.GenPowerShellCompletion(streams.Out)
		}),
	)
	return cmd
}

// outputFormats are a command's -o values.
func outputFormats(cmd *cobra.Command) []string {
	if cmd.Name() == "version" {
		return []string{"json"}
	}
	return []string{"table", "json", "yaml"}
}

// argKinds says which positional arguments of a command (by its path below the
// root, e.g. "get values") hold a release name or a chart reference: chartAt is
// the CHART argument's index, -1 for every argument.
func argKinds(path string) (release bool, chartAt int, chart bool) {
	switch path {
	case "status", "history", "rollback", "test", "get all", "get values", "get manifest",
		"get notes", "get hooks", "get metadata":
		return true, 0, false
	case "uninstall":
		return true, 0, false
	case "upgrade":
		return true, 1, true
	case "install":
		return false, 1, true
	case "template", "lint", "package", "pull", "push":
		return false, -1, true
	case "show all", "show chart", "show readme", "show values", "show crds",
		"dependency list", "dependency update", "dependency build":
		return false, 0, true
	}
	return false, 0, false
}

// completer answers completion requests for one root command.
type completer struct {
	// flags name the kubeconfig's contexts, clusters and users.
	flags *genericclioptions.ConfigFlags
	// cluster lists namespaces.
	cluster func() (ports.Cluster, error)
	// releases lists release names for the command's store and namespace; nil
	// until a release store is wired.
	releases func(cmd *cobra.Command, toComplete string) ([]string, error)
}

// registerCompletions walks the command tree and adds completion for kubectl's
// connection flags, -o, common file flags, release names and chart references.
func registerCompletions(root *cobra.Command, c completer) {
	reg := func(cmd *cobra.Command, name string, fn cobra.CompletionFunc) {
		if f := cmd.Flag(name); f == nil {
			return
		}
		if _, ok := cmd.GetFlagCompletionFunc(name); ok {
			return
		}
		_ = cmd.RegisterFlagCompletionFunc(name, fn)
	}
	reg(root, "namespace", c.namespaces)
	reg(root, "context", c.kubeconfigNames(func(cfg kubeconfigNames) []string { return cfg.contexts }))
	reg(root, "cluster", c.kubeconfigNames(func(cfg kubeconfigNames) []string { return cfg.clusters }))
	reg(root, "user", c.kubeconfigNames(func(cfg kubeconfigNames) []string { return cfg.users }))

	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		if cmd == root {
			return
		}
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			switch f.Name {
			case "output":
				reg(cmd, f.Name, cobra.FixedCompletions(outputFormats(cmd), cobra.ShellCompDirectiveNoFileComp))
			case "storage":
				reg(cmd, f.Name, cobra.FixedCompletions([]string{"secret", "configmap", "bbolt", "memory"}, cobra.ShellCompDirectiveNoFileComp))
			case "values":
				reg(cmd, f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
					return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
				})
			case "output-dir":
				reg(cmd, f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
					return nil, cobra.ShellCompDirectiveFilterDirs
				})
			case "kube-context":
				reg(cmd, f.Name, c.kubeconfigNames(func(cfg kubeconfigNames) []string { return cfg.contexts }))
			}
		})
		if cmd.ValidArgsFunction != nil || len(cmd.ValidArgs) > 0 {
			return
		}
		name := cmd.Name()
		isRelease, chartAt, hasChart := argKinds(strings.TrimPrefix(cmd.CommandPath(), root.CommandPath()+" "))
		if !isRelease && !hasChart {
			return
		}
		cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			switch {
			case isRelease && (len(args) == 0 || name == "uninstall"):
				return c.releaseNames(cmd, toComplete)
			case hasChart && (chartAt < 0 || len(args) == chartAt):
				return chartRefs(cmd, toComplete)
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
	}
	walk(root)
}

// chartRefs completes REPO/CHART from the cached repository indexes, and chart
// directories and archives when the word looks like a path or no repository matches.
func chartRefs(cmd *cobra.Command, toComplete string) ([]string, cobra.ShellCompDirective) {
	if toComplete != "" && strings.ContainsAny(toComplete[:1], "./~") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	var paths repo.Paths
	if f := cmd.Flag("repository-config"); f != nil {
		paths.Config = f.Value.String()
	}
	if f := cmd.Flag("repository-cache"); f != nil {
		paths.Cache = f.Value.String()
	}
	indexes, err := repo.NewManager(paths).Indexes(nil)
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	var refs []string
	for name, idx := range indexes {
		for chart := range idx.Entries {
			refs = append(refs, name+"/"+chart)
		}
	}
	refs = filterPrefix(refs, toComplete)
	if len(refs) == 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return refs, cobra.ShellCompDirectiveNoFileComp
}

func (c completer) releaseNames(cmd *cobra.Command, toComplete string) ([]string, cobra.ShellCompDirective) {
	if c.releases == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, err := c.releases(cmd, toComplete)
	if err != nil {
		cobra.CompDebugln("list releases: "+err.Error(), false)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return filterPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// namespaces lists the cluster's namespaces (a short timeout: completion
// must not hang on an unreachable cluster).
func (c completer) namespaces(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	cluster, err := c.cluster()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	list, err := cluster.List(ctx, "v1", "Namespace", "", "")
	if err != nil {
		cobra.CompDebugln("list namespaces: "+err.Error(), false)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names := make([]string, 0, len(list))
	for _, ns := range list {
		names = append(names, ns.GetName())
	}
	return filterPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

type kubeconfigNames struct{ contexts, clusters, users []string }

// kubeconfigNames completes from the kubeconfig's contexts, clusters or users.
func (c completer) kubeconfigNames(pick func(kubeconfigNames) []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		raw, err := c.flags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var n kubeconfigNames
		for name := range raw.Contexts {
			n.contexts = append(n.contexts, name)
		}
		for name := range raw.Clusters {
			n.clusters = append(n.clusters, name)
		}
		for name := range raw.AuthInfos {
			n.users = append(n.users, name)
		}
		return filterPrefix(pick(n), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

func filterPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
