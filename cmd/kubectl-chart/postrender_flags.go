package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/adapters/yamlcodec"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// postRenderFlags are --post-renderer and --post-renderer-args, shared by
// template, install and upgrade.
type postRenderFlags struct {
	renderer string
	args     []string
	// plugins locates the plugins, from the settings (applySettings).
	plugins pluginConfig
}

// postRendererValue is --post-renderer's value; it takes the plugins'
// locations from the settings.
type postRendererValue struct{ f *postRenderFlags }

func (v postRendererValue) String() string          { return v.f.renderer }
func (v postRendererValue) Set(s string) error      { v.f.renderer = s; return nil }
func (v postRendererValue) Type() string            { return "string" }
func (v postRendererValue) defaultFrom(s *settings) { v.f.plugins = s.plugins }

// AddFlags adds the flags to fs.
func (f *postRenderFlags) AddFlags(fs *pflag.FlagSet) {
	fs.Var(postRendererValue{f}, "post-renderer", "the name of a postrenderer/v1 plugin used for post rendering; with --compat helm3 also the path to an executable (looked up in $PATH)")
	fs.StringArrayVar(&f.args, "post-renderer-args", nil, "an argument to the post-renderer (can specify multiple)")
}

// RegisterCompletion completes --post-renderer with post-renderer plugin names
// and files.
func (f *postRenderFlags) RegisterCompletion(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("post-renderer", func(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		reg, err := f.plugins.load()
		if err != nil {
			return nil, cobra.ShellCompDirectiveDefault
		}
		var out []string
		for _, p := range reg.OfKind(plugin.TypePostRenderer) {
			out = append(out, p.Name+"\t"+p.Summary())
		}
		return out, cobra.ShellCompDirectiveDefault
	})
}

// check refuses a --post-renderer that dialect d's Helm cannot find (Helm
// looks it up as it parses the flag).
func (f *postRenderFlags) check(name string, d dialect.Dialect) error {
	reg, err := f.plugins.load()
	if err != nil {
		return err
	}
	_, err = resolvePostRenderer(reg, name, nil, d)
	return err
}

// PostRenderer resolves the flags for the dialect; nil when --post-renderer is
// not set. Helm 4's --post-renderer names a postrenderer/v1 plugin; Helm 3's
// also an executable (a path or a command in $PATH), which plugins precede here.
func (f *postRenderFlags) PostRenderer(d dialect.Dialect) (*render.PostRender, error) {
	if f.renderer == "" {
		if len(f.args) > 0 {
			return nil, fmt.Errorf("--post-renderer-args needs --post-renderer")
		}
		return nil, nil
	}
	reg, err := f.plugins.load()
	if err != nil {
		return nil, err
	}
	pr, err := resolvePostRenderer(reg, f.renderer, f.args, d)
	if err != nil {
		return nil, fmt.Errorf("invalid argument %q for \"--post-renderer\" flag: %w", f.renderer, err)
	}
	return &render.PostRender{Renderer: pr, Codec: yamlcodec.KYAML{}}, nil
}

// resolvePostRenderer finds the post-renderer name with args in reg as
// dialect d's Helm does.
func resolvePostRenderer(reg *plugin.Registry, name string, args []string, d dialect.Dialect) (ports.PostRenderer, error) {
	if d == dialect.Helm3 {
		return plugin.NewPostRenderer(reg, plugin.Host(), name, args)
	}
	return plugin.NewPluginPostRenderer(reg, plugin.Host(), name, args)
}
