package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/query"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// NewCmdGet builds `kubectl chart get` and its subcommands.
func NewCmdGet(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Download extended information of a release",
		Long: `Show what is stored about a release revision (the latest unless --revision):
all of it, the user's values, the manifest, the notes, the hooks or the metadata.`,
	}
	type part struct {
		use, short string
		output     bool
		run        func(o *getOptions, rel *release.Release) error
	}
	parts := []part{
		{"all", "download all information for a named release", false, (*getOptions).all},
		{"values", "download the values file for a named release", true, (*getOptions).values},
		{"manifest", "download the manifest for a named release", false, func(o *getOptions, rel *release.Release) error {
			fmt.Fprintln(o.Out, rel.Manifest)
			return nil
		}},
		{"notes", "download the notes for a named release", false, func(o *getOptions, rel *release.Release) error {
			if rel.Info != nil && len(rel.Info.Notes) > 0 {
				fmt.Fprintf(o.Out, "NOTES:\n%s\n", rel.Info.Notes)
			}
			return nil
		}},
		{"hooks", "download all hooks for a named release", false, func(o *getOptions, rel *release.Release) error {
			for _, h := range rel.Hooks {
				fmt.Fprintf(o.Out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
			}
			return nil
		}},
		{"metadata", "fetch metadata for a given release", true, (*getOptions).metadata},
	}
	for _, p := range parts {
		o := &getOptions{IOStreams: streams, storage: newStorageFlags(f.StorageDefaults()), output: "table"}
		sub := &cobra.Command{
			Use:   p.use + " RELEASE_NAME",
			Short: p.short,
			Args:  exactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				rel, err := o.get(cmd.Context(), f, args[0])
				if err != nil {
					return err
				}
				return p.run(o, rel)
			},
		}
		fs := sub.Flags()
		fs.IntVar(&o.revision, "revision", 0, "get the named release with revision")
		if p.output {
			addOutputFlag(fs, &o.output)
		}
		switch p.use {
		case "metadata":
			o.compat.AddFlags(fs, dialect.Default)
		case "values":
			fs.BoolVarP(&o.allValues, "all", "a", false, "dump all (computed) values")
		case "all":
			fs.StringVar(&o.template, "template", "", "go template for formatting the output, eg: {{.Release.Name}}")
			o.compat.AddFlags(fs, dialect.Default)
		}
		o.storage.AddFlags(fs)
		cmd.AddCommand(sub)
	}
	return cmd
}

type getOptions struct {
	genericiooptions.IOStreams
	storage *storageFlags
	compat  compatFlags

	revision  int
	output    string
	allValues bool
	template  string
}

// get reads the release from the store the factory makes of the flags.
func (o *getOptions) get(ctx context.Context, f Factory, name string) (*release.Release, error) {
	store, err := f.ReleaseStore(o.storage.StorageSettings)
	if err != nil {
		return nil, err
	}
	return query.GetRelease(ctx, store, f.Namespace(), name, o.revision)
}

func (o *getOptions) all(rel *release.Release) error {
	if o.template != "" {
		t, err := template.New("_").Parse(o.template)
		if err != nil {
			return fmt.Errorf("parse --template: %w", err)
		}
		return t.Execute(o.Out, map[string]any{"Release": rel})
	}
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	return printStatus(o.Out, rel, statusView{showMetadata: true, debug: true, helm4: d.IsHelm4()})
}

func (o *getOptions) values(rel *release.Release) error {
	vals := rel.Config
	if o.allValues {
		var err error
		if vals, err = computedValues(rel); err != nil {
			return err
		}
	}
	if o.output == "table" {
		if o.allValues {
			fmt.Fprintln(o.Out, "COMPUTED VALUES:")
		} else {
			fmt.Fprintln(o.Out, "USER-SUPPLIED VALUES:")
		}
		return writeStructured(o.Out, "yaml", vals)
	}
	return writeStructured(o.Out, o.output, vals)
}

// releaseMetadata has `helm get metadata`'s field names; Labels and
// ApplyMethod are Helm 4's.
type releaseMetadata struct {
	Name         string              `json:"name"`
	Chart        string              `json:"chart"`
	Version      string              `json:"version"`
	AppVersion   string              `json:"appVersion"`
	Annotations  map[string]string   `json:"annotations,omitempty"`
	Labels       map[string]string   `json:"labels,omitempty"`
	Dependencies []*chart.Dependency `json:"dependencies,omitempty"`
	Namespace    string              `json:"namespace"`
	Revision     int                 `json:"revision"`
	Status       string              `json:"status"`
	DeployedAt   string              `json:"deployedAt"`
	ApplyMethod  string              `json:"applyMethod,omitempty"`
}

func (o *getOptions) metadata(rel *release.Release) error {
	if rel.Chart == nil || rel.Chart.Metadata == nil || rel.Info == nil {
		return fmt.Errorf("release %q revision %d has no chart metadata", rel.Name, rel.Version)
	}
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	md := rel.Chart.Metadata
	m := releaseMetadata{
		Name: rel.Name, Chart: md.Name, Version: md.Version, AppVersion: md.AppVersion,
		Annotations: md.Annotations, Dependencies: md.Dependencies, Namespace: rel.Namespace,
		Revision: rel.Version, Status: string(rel.Info.Status), DeployedAt: rel.Info.LastDeployed.Format(time.RFC3339),
	}
	if d.IsHelm4() {
		// Helm 4 reads the latest revision by listing, with every label of
		// its object, and a given one by name, with the user's labels only.
		m.Labels, m.ApplyMethod = rel.StorageLabels, string(rel.ApplyMethod)
		if o.revision > 0 {
			m.Labels = rel.Labels
		}
	}
	if o.output != "table" {
		return writeStructured(o.Out, o.output, m)
	}
	deps := make([]string, 0, len(m.Dependencies))
	for _, d := range m.Dependencies {
		deps = append(deps, d.Name)
	}
	sort.Strings(deps)
	fmt.Fprintf(o.Out, "NAME: %v\n", m.Name)
	fmt.Fprintf(o.Out, "CHART: %v\n", m.Chart)
	fmt.Fprintf(o.Out, "VERSION: %v\n", m.Version)
	fmt.Fprintf(o.Out, "APP_VERSION: %v\n", m.AppVersion)
	fmt.Fprintf(o.Out, "ANNOTATIONS: %v\n", labels.Set(m.Annotations).String())
	if d.IsHelm4() {
		fmt.Fprintf(o.Out, "LABELS: %v\n", labels.Set(m.Labels).String())
	}
	fmt.Fprintf(o.Out, "DEPENDENCIES: %v\n", strings.Join(deps, ","))
	fmt.Fprintf(o.Out, "NAMESPACE: %v\n", m.Namespace)
	fmt.Fprintf(o.Out, "REVISION: %v\n", m.Revision)
	fmt.Fprintf(o.Out, "STATUS: %v\n", m.Status)
	fmt.Fprintf(o.Out, "DEPLOYED_AT: %v\n", m.DeployedAt)
	if d.IsHelm4() {
		fmt.Fprintf(o.Out, "APPLY_METHOD: %v\n", applyMethodText(rel.ApplyMethod))
	}
	return nil
}

// applyMethodText is how Helm 4 names a revision's apply method.
func applyMethodText(m release.ApplyMethod) string {
	switch m {
	case "":
		return "client-side apply (defaulted)"
	case release.ApplyClientSide:
		return "client-side apply"
	case release.ApplyServerSide:
		return "server-side apply"
	}
	return fmt.Sprintf("unknown (%q)", string(m))
}
