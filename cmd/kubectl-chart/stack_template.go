package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chartcheck"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	domrepo "github.com/kubectl-chart/kubectl-chart/domain/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/stack/helmfile"
)

// stackTemplateOptions renders every release of a stack, like `helmfile template`.
type stackTemplateOptions struct {
	genericiooptions.IOStreams
	stack   stackFlags
	compat  compatFlags
	dialect dialect.Dialect
	// repos adds the stack's repositories as `helm repo add --force-update` does.
	repos *repo.Manager
	// namespace is the one of releases that name none (-n, kubeconfig, default).
	namespace string
}

func newCmdStackTemplate(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &stackTemplateOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "template",
		Short: "Render every release of the stack locally and print them, as helmfile template does",
		Example: `  # Render the production environment's releases labelled tier=backend
  kubectl chart stack template -f helmfile.yaml.gotmpl -e production -l tier=backend`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(f); err != nil {
				return err
			}
			return o.Run(cmd.Context(), f)
		},
	}
	o.stack.addFlags(cmd.Flags())
	o.compat.AddFlags(cmd.Flags(), dialect.Default)
	return cmd
}

// Complete picks the dialect, the chart source and the default namespace.
func (o *stackTemplateOptions) Complete(f Factory) error {
	var err error
	if o.dialect, err = o.compat.Dialect(); err != nil {
		return err
	}
	files := f.Settings().files
	o.repos = repo.NewManager(repo.Paths{Config: files.repositoryConfig, Cache: files.repositoryCache})
	o.namespace = f.Namespace()
	o.stack.log = o.ErrOut
	return nil
}

// Run prints what helmfile prints: file by file (a sub-helmfile's first),
// what loading it had to say, the charts prepared in file order, then each
// release rendered in needs order.
func (o *stackTemplateOptions) Run(ctx context.Context, f Factory) error {
	st, err := loadStack(ctx, f, &o.stack)
	if err != nil {
		return err
	}
	groups := 0
	for _, n := range st.Notes {
		groups = max(groups, n.Group+1)
	}
	for _, r := range st.Releases {
		groups = max(groups, r.Group+1)
	}
	// A file with no release to render still has its repositories added.
	for _, rp := range st.Repositories {
		groups = max(groups, rp.Group+1)
	}
	charts := &stackCharts{f: f, repos: st.Repositories, dialect: o.dialect, warn: o.ErrOut}
	for g := 0; g < groups; g++ {
		if err := o.runGroup(ctx, st, charts, g); err != nil {
			return err
		}
	}
	if len(st.Releases) == 0 {
		// helmfile's words and status when nothing is selected.
		fmt.Fprintf(o.ErrOut, "err: no releases found that matches specified selector(%s) and environment(%s), in any helmfile\n",
			strings.Join(o.stack.selectors, ","), st.Environment)
		return &exitCodeError{code: 3}
	}
	return nil
}

// runGroup prints one state file's part of the output.
func (o *stackTemplateOptions) runGroup(ctx context.Context, st stack.Stack, charts *stackCharts, g int) error {
	for _, n := range st.Notes {
		if n.Group == g {
			fmt.Fprintln(o.ErrOut, n.Text)
		}
	}
	if err := o.addRepositories(ctx, st.Repositories, g); err != nil {
		return err
	}
	var rels []stack.Release
	for _, r := range st.Releases {
		if r.Group == g {
			rels = append(rels, r)
		}
	}
	for _, r := range rels {
		if r.Installed && helmfile.IsLocalChart(r.Chart) {
			fmt.Fprintf(o.ErrOut, "Building dependency release=%s, chart=%s\n", r.ID.Name, r.ChartAsWritten)
		}
	}
	// Uninstalled releases keep their place in the waves (helmfile plans
	// them, then renders only the others).
	for _, wave := range helmfile.Waves(rels) {
		for _, r := range wave {
			if !r.Installed {
				continue
			}
			// helmfile warns again, as it renders each release, of its needs
			// on releases of the file not installed, selected or not.
			for _, n := range r.NeedsUninstalled {
				fmt.Fprintln(o.ErrOut, helmfile.UninstalledNeedWarning(r.ID.Name, n.Name))
			}
			fmt.Fprintf(o.ErrOut, "Templating release=%s, chart=%s\n", r.ID.Name, r.ChartAsWritten)
			if err := o.render(ctx, charts, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// addRepositories adds the repositories a group declared first, saying so
// as helmfile and `helm repo add` do (OCI registries need no adding).
func (o *stackTemplateOptions) addRepositories(ctx context.Context, repos []stack.Repository, g int) error {
	for _, rp := range repos {
		if rp.Group != g || rp.OCI {
			continue
		}
		fmt.Fprintf(o.ErrOut, "Adding repo %s %s\n", rp.Name, rp.URL)
		e := domrepo.Entry{Name: rp.Name, URL: rp.URL, Username: rp.Username, Password: rp.Password}
		if err := o.repos.Add(ctx, &e, true); err != nil {
			return fmt.Errorf("repository %s: %w", rp.Name, err)
		}
		fmt.Fprintf(o.ErrOut, "%q has been added to your repositories\n", rp.Name)
	}
	return nil
}

// render prints one release as `helm template` prints it.
func (o *stackTemplateOptions) render(ctx context.Context, charts *stackCharts, r stack.Release) error {
	vals, err := r.MergeValues(o.dialect)
	if err != nil {
		return err
	}
	ch, err := charts.LoadChart(ctx, r)
	if err != nil {
		return fmt.Errorf("release %s: %w", r.ID, err)
	}
	if err := chartcheck.Installable(ch); err != nil {
		return fmt.Errorf("release %s: %w", r.ID, err)
	}
	if err := chartcheck.DependenciesFor(o.dialect, ch); err != nil {
		return fmt.Errorf("release %s: %w", r.ID, err)
	}
	ns := r.ID.Namespace
	if ns == "" {
		ns = o.namespace
	}
	rendered, err := render.Chart(ctx, render.Request{
		Chart: ch, Values: vals, ReleaseName: r.ID.Name, Namespace: ns, Revision: 1,
		Capabilities: capabilities.Default(runtime.Version()), Warn: o.warnf, Dialect: o.dialect,
	})
	if err != nil {
		return fmt.Errorf("release %s: %w", r.ID, err)
	}
	text, err := render.TemplateText(rendered, render.TemplateOptions{Dialect: o.dialect})
	if err != nil {
		return fmt.Errorf("release %s: %w", r.ID, err)
	}
	if text == "" {
		return nil
	}
	// helmfile prints helm's output with a line of its own after it.
	_, err = io.WriteString(o.Out, text+"\n")
	return err
}

// warnf reports what rendering found on stderr, as the dialect's Helm logs it.
func (o *stackTemplateOptions) warnf(format string, args ...any) {
	if o.dialect.IsHelm4() {
		helm4Warn(helm4Logger(o.ErrOut, false))(format, args...)
		return
	}
	helm3Warn(o.ErrOut)(format, args...)
}
