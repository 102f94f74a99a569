package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	kubectlchart "github.com/kubectl-chart/kubectl-chart"
	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// pluginConfig locates the plugin registry's files from the environment,
// which loadSettings hands it.
type pluginConfig struct {
	getenv func(string) string
	home   string
	// helmEnv is Helm's plugin environment, for getters (set by the factory).
	helmEnv func() map[string]string
	// stderr receives Helm 4's warning for each plugin directory that does not
	// load and Helm 4 getter plugins' stderr (nil: none, captured).
	stderr io.Writer
}

func (c pluginConfig) env() func(string) string {
	getenv := c.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return plugin.Env(getenv, c.home)
}

// userFile is $XDG_CONFIG_HOME/kubectl-chart/plugins.yaml.
func (c pluginConfig) userFile() string {
	return filepath.Join(c.env()("XDG_CONFIG_HOME"), "kubectl-chart", "plugins.yaml")
}

// installDir is where `plugin install` puts plugins: the first directory of
// $KUBECTL_CHART_PLUGINS, else $XDG_DATA_HOME/kubectl-chart/plugins.
func (c pluginConfig) installDir() string {
	for _, d := range filepath.SplitList(c.env()("KUBECTL_CHART_PLUGINS")) {
		if d != "" {
			return d
		}
	}
	return filepath.Join(c.env()("XDG_DATA_HOME"), "kubectl-chart", "plugins")
}

// load reads the plugins; a plugin directory that does not load is skipped
// with Helm 4's warning, on each load as Helm warns on each of its scans.
func (c pluginConfig) load() (*plugin.Registry, error) {
	reg, err := plugin.Load(plugin.Sources{
		Defaults:     kubectlchart.DefaultPlugins(),
		DefaultsName: kubectlchart.DefaultPluginsName,
		UserFile:     c.userFile(),
		Env:          c.env(),
		HelmEnv:      c.helmEnv,
		Stderr:       c.stderr,
	})
	if err != nil || c.stderr == nil || len(reg.Skipped) == 0 {
		return reg, err
	}
	log := helm4Logger(c.stderr, false)
	for _, sk := range reg.Skipped {
		log.Warn("failed to load plugin (ignoring)", slog.String("plugin_yaml", sk.File), slog.Any("error", sk.Err))
	}
	return reg, nil
}

// NewCmdPlugin builds `kubectl chart plugin`; flags and f give the plugin
// hooks Helm's environment.
func NewCmdPlugin(flags *genericclioptions.ConfigFlags, f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cfg := f.Settings().plugins
	hooks := pluginHooks{cfg: cfg, flags: flags, f: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "List, install and uninstall plugins",
		Long: `Plugins extend kubectl chart: post-renderers (--post-renderer NAME), getters for
extra URL schemes in chart references, and commands run as 'kubectl chart NAME'.

They come from the built-in registry, from $XDG_CONFIG_HOME/kubectl-chart/plugins.yaml
and from plugin directories: $KUBECTL_CHART_PLUGINS, $XDG_DATA_HOME/kubectl-chart/plugins
and Helm's plugin directory ($HELM_PLUGINS), so installed Helm plugins work unchanged
when their type is supported.`,
	}
	cmd.AddCommand(
		newCmdPluginList(f, streams),
		newCmdPluginInstall(hooks),
		newCmdPluginUpdate(hooks),
		newCmdPluginUninstall(hooks),
	)
	if f.Settings().compat != string(dialect.Helm3) {
		// Helm 4's: Helm 3 has no such commands.
		cmd.AddCommand(newCmdPluginPackage(streams), newCmdPluginVerify(streams))
	}
	return cmd
}

// newCmdPluginList builds `plugin list [--type TYPE]`, printed as the
// dialect's Helm prints it.
func newCmdPluginList(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cfg := f.Settings().plugins
	var kind string
	var compat compatFlags
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the plugins",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := compat.Dialect()
			if err != nil {
				return err
			}
			reg, err := cfg.load()
			if err != nil {
				return err
			}
			asHelm := f.Settings().asHelm
			var plugins []*plugin.Plugin
			for _, p := range reg.All() {
				// Installed as helm, the list is Helm's: plugins in directories
				// only (the built-in registry and plugins.yaml still work).
				if (kind == "" || p.Kind() == kind) && (!asHelm || p.Dir != "") {
					plugins = append(plugins, p)
				}
			}
			if err := printPlugins(streams.Out, plugins, d); err != nil {
				return err
			}
			if ourLinesTo(f.Settings(), streams.ErrOut) {
				warnShadowedPlugins(streams, reg, builtinNames(cmd.Root()))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "type", "", "plugin type to filter by (e.g. cli/v1, getter/v1, postrenderer/v1)")
	helmOnly(cmd.Flags(), dialect.Helm4, "type")
	compat.AddFlags(cmd.Flags(), dialect.Helm4)
	return cmd
}

// printPlugins prints the plugins as the dialect's `helm plugin list` does:
// Helm 4's name, version, type, plugin.yaml apiVersion ("legacy" for Helm 3's
// layout), provenance and source URL; Helm 3's name, version and description.
func printPlugins(w io.Writer, plugins []*plugin.Plugin, d dialect.Dialect) error {
	t := newTable(0)
	if d == dialect.Helm3 {
		t.row("NAME", "VERSION", "DESCRIPTION")
		for _, p := range plugins {
			t.row(p.Name, p.Version, p.Description)
		}
		return t.write(w)
	}
	t.row("NAME", "VERSION", "TYPE", "APIVERSION", "PROVENANCE", "SOURCE")
	for _, p := range plugins {
		api, source := p.APIVersion, p.SourceURL
		if api == "" {
			api = "legacy"
		}
		if source == "" {
			source = "unknown"
		}
		t.row(p.Name, p.Version, p.Kind(), api, plugin.ProvenanceStatus(p), source)
	}
	return t.write(w)
}

// warnShadowedPlugins tells, on stderr, how to run the cli/v1 plugins named
// like built-in commands.
func warnShadowedPlugins(streams genericiooptions.IOStreams, reg *plugin.Registry, builtin map[string]bool) {
	for _, p := range reg.OfKind(plugin.TypeCLI) {
		if builtin[p.Name] {
			fmt.Fprintf(streams.ErrOut, "plugin %q is named like the built-in command 'kubectl chart %s': run it with 'kubectl chart plugin run %s'\n", p.Name, p.Name, p.Name)
		}
	}
}

// addPluginCommands adds a command per cli/v1 plugin, and `plugin run NAME`
// for every one of them. A broken registry adds none (`plugin list` reports
// why). A plugin named like a built-in command (helm-diff's diff) does not
// replace it: it runs as `kubectl chart plugin run NAME`, and `plugin list`
// says so.
func addPluginCommands(root *cobra.Command, f Factory, flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) {
	cfg := f.Settings().plugins
	reg, err := cfg.load()
	if err != nil {
		return
	}
	runner := pluginRunner{flags: flags, f: f, streams: streams}
	taken := builtinNames(root)
	for _, p := range reg.OfKind(plugin.TypeCLI) {
		if taken[p.Name] {
			continue
		}
		p := p
		root.AddCommand(&cobra.Command{
			Use:                p.Name,
			Annotations:        map[string]string{pluginAnnotation: p.Name},
			Short:              p.Summary() + " (plugin)",
			Long:               p.Description,
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runner.run(cmd, reg, p, args)
			},
		})
	}
	for _, c := range root.Commands() {
		if c.Name() == "plugin" {
			c.AddCommand(newCmdPluginRun(runner, reg))
		}
	}
}

// pluginAnnotation marks the commands that run plugins.
const pluginAnnotation = "kubectl-chart/plugin"

// builtinNames are the root's command names and aliases, which plugins never take.
func builtinNames(root *cobra.Command) map[string]bool {
	taken := map[string]bool{"help": true, "completion": true, cobra.ShellCompRequestCmd: true, cobra.ShellCompNoDescRequestCmd: true}
	for _, c := range root.Commands() {
		if _, ok := c.Annotations[pluginAnnotation]; ok {
			continue
		}
		taken[c.Name()] = true
		for _, a := range c.Aliases {
			taken[a] = true
		}
	}
	return taken
}

// newCmdPluginRun builds `plugin run NAME [ARGS...]`, which runs any cli/v1
// plugin, including one named like a built-in command.
func newCmdPluginRun(runner pluginRunner, reg *plugin.Registry) *cobra.Command {
	return &cobra.Command{
		Use:   "run NAME [ARGS...]",
		Short: "Run a plugin, also one named like a built-in command (kubectl chart plugin run diff upgrade ...)",
		Long: `Run a cli/v1 plugin as 'kubectl chart NAME' would. A plugin named like a built-in
command, such as helm-diff's 'diff', is only reachable this way: built-in commands
are never replaced by plugins.`,
		DisableFlagParsing: true,
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveDefault
			}
			var out []string
			for _, p := range reg.OfKind(plugin.TypeCLI) {
				out = append(out, p.Name+"\t"+p.Summary())
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				return cmd.Help()
			}
			p, ok := reg.Get(args[0])
			if !ok || p.Kind() != plugin.TypeCLI || !p.Supported() {
				return fmt.Errorf("plugin %q not found", args[0])
			}
			return runner.run(cmd, reg, p, args[1:])
		},
	}
}

// withGetterPlugins routes chart references with a scheme served by a getter
// plugin (e.g. s3://) to that plugin and everything else to next; cfg is read
// when a reference needs it.
func withGetterPlugins(cfg *pluginConfig, next ports.ChartSource) ports.ChartSource {
	return withGetterPluginsFor(cfg, next, dialect.Helm3)
}

// withGetterPluginsFor is withGetterPlugins reading charts by the dialect's rules.
func withGetterPluginsFor(cfg *pluginConfig, next ports.ChartSource, d dialect.Dialect) ports.ChartSource {
	return plugin.ChartSource{
		Next: next, Registry: func() (*plugin.Registry, error) { return cfg.load() }, Platform: plugin.Host(),
		Limits: loader.LimitsFor(d),
	}
}
