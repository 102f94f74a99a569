package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/query"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// StatusOptions shows a release's status, like `helm status`.
type StatusOptions struct {
	genericiooptions.IOStreams
	storage *storageFlags
	compat  compatFlags
	only    dialectOnlyFlags

	revision      int
	showResources bool
	showDesc      bool
	showDrift     bool
	output        string

	name, namespace string
	dialect         dialect.Dialect
	store           ports.ReleaseStore
	// cluster is made when first needed: a release without objects and
	// without drift to show never reaches a cluster.
	cluster func() (ports.Cluster, error)
	// ourLines says stderr takes our own lines (not when installed as helm
	// off a terminal).
	ourLines bool
}

// NewCmdStatus builds `kubectl chart status`.
func NewCmdStatus(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &StatusOptions{IOStreams: streams, storage: newStorageFlags(f.StorageDefaults())}
	cmd := &cobra.Command{
		Use:   "status RELEASE_NAME",
		Short: "Show the status of a release",
		Long: `Show the status of a release: last deployment time, namespace, status, revision,
test results and notes; with --show-resources, the live objects of the release.`,
		Example: `  kubectl chart status web -n prod --show-resources`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(f, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&o.revision, "revision", 0, "if set, display the status of the named release with revision")
	fs.BoolVar(&o.showDesc, "show-desc", false, "if set, display the description message of the named release")
	fs.BoolVar(&o.showResources, "show-resources", false, "if set, display the resources of the named release")
	fs.BoolVar(&o.showDrift, "show-drift", false, "if set, display what changed in the cluster behind the release's back (as kubectl chart drift)")
	addOutputFlag(fs, &o.output)
	o.storage.AddFlags(fs)
	o.compat.AddFlags(fs, dialect.Default)
	o.only.only(f.Settings(), fs, dialect.Helm3, "show-desc", "show-resources")
	return cmd
}

// Complete reads the release name and namespace, and takes the store and
// the cluster from the factory.
func (o *StatusOptions) Complete(f Factory, args []string) error {
	o.name, o.namespace = args[0], f.Namespace()
	o.cluster, o.ourLines = f.Cluster, ourLinesTo(f.Settings(), o.ErrOut)
	var err error
	o.store, err = f.ReleaseStore(o.storage.StorageSettings)
	return err
}

// Validate checks flag values.
func (o *StatusOptions) Validate() error {
	var err error
	if o.dialect, err = o.compat.Dialect(); err != nil {
		return err
	}
	return o.only.check(o.dialect)
}

// Run prints the status.
func (o *StatusOptions) Run(ctx context.Context) error {
	rel, err := query.GetRelease(ctx, o.store, o.namespace, o.name, o.revision)
	if err != nil {
		return err
	}
	rel.Chart = nil
	d := o.dialect
	// Helm 4 shows the description and the live resources always.
	showDesc, showResources := o.showDesc || d.IsHelm4(), o.showResources || d.IsHelm4()
	var tables map[string][]*metav1.Table
	if showResources {
		if o.output == "table" {
			tables, err = releaseResourceTables(ctx, o.cluster, rel)
		} else {
			rel.Info.Resources, err = releaseResources(ctx, o.cluster, rel)
		}
		if err != nil {
			return err
		}
	}
	if o.output != "table" {
		return writeRelease(o.Out, o.output, d, rel)
	}
	if err := printStatus(o.Out, rel, statusView{showDescription: showDesc, resources: tables}); err != nil {
		return err
	}
	return o.drift(ctx)
}

// drift says in one line on stderr whether the release drifted (stdout stays
// Helm's); with --show-drift it prints what drifted. Releases kept in the
// cluster get the line by default: the cluster is at hand. Releases in a
// local file get it only when asked, so that status stays offline.
func (o *StatusOptions) drift(ctx context.Context) error {
	inCluster := o.storage.Driver == storageSecret || o.storage.Driver == storageConfigMap
	if (!inCluster || !o.ourLines) && !o.showDrift {
		return nil
	}
	cluster, err := o.cluster()
	if err != nil {
		return o.driftUnknown(err)
	}
	lc := &action.Lifecycle{Cluster: cluster, Store: o.store}
	drifts, err := lc.Drift(ctx, action.DriftRequest{Namespace: o.namespace, Name: o.name})
	if err == nil && len(drifts) == 1 && drifts[0].Err != nil {
		err = drifts[0].Err
	}
	if err != nil {
		return o.driftUnknown(err)
	}
	d := drifts[0]
	n := 0
	for _, s := range d.Plan.Steps() {
		if s.Action.Changes() {
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(o.ErrOut, "DRIFT: none")
	} else {
		fmt.Fprintf(o.ErrOut, "DRIFT: %d object(s) changed behind the release's back (kubectl chart drift %s -n %s)\n", n, o.name, o.namespace)
	}
	if o.showDrift {
		fmt.Fprintln(o.Out, "DRIFT:")
		return printDriftTable(o.Out, drifts, false, false)
	}
	return nil
}

func (o *StatusOptions) driftUnknown(err error) error {
	if o.showDrift {
		return fmt.Errorf("find drift: %w", err)
	}
	fmt.Fprintf(o.ErrOut, "DRIFT: unknown (%v)\n", err)
	return nil
}

// statusView says what printStatus shows beyond the basics.
type statusView struct {
	showDescription bool
	showMetadata    bool
	// debug adds user-supplied and computed values, hooks and the manifest (get all).
	debug     bool
	hideNotes bool
	resources map[string][]*metav1.Table
	// helm4 prints as Helm 4 does: the description always.
	helm4 bool
}

// printStatus writes a release's status as Helm does; install and upgrade print
// their result with it too.
func printStatus(out io.Writer, rel *release.Release, v statusView) error {
	info := rel.Info
	if info == nil {
		info = &release.Info{}
	}
	fmt.Fprintf(out, "NAME: %s\n", rel.Name)
	if !info.LastDeployed.IsZero() {
		fmt.Fprintf(out, "LAST DEPLOYED: %s\n", info.LastDeployed.Format(time.ANSIC))
	}
	fmt.Fprintf(out, "NAMESPACE: %s\n", rel.Namespace)
	fmt.Fprintf(out, "STATUS: %s\n", info.Status)
	fmt.Fprintf(out, "REVISION: %d\n", rel.Version)
	if v.showMetadata && rel.Chart != nil && rel.Chart.Metadata != nil {
		fmt.Fprintf(out, "CHART: %s\n", rel.Chart.Metadata.Name)
		fmt.Fprintf(out, "VERSION: %s\n", rel.Chart.Metadata.Version)
		fmt.Fprintf(out, "APP_VERSION: %s\n", rel.Chart.Metadata.AppVersion)
	}
	if v.showDescription || v.helm4 {
		fmt.Fprintf(out, "DESCRIPTION: %s\n", info.Description)
	}
	if len(v.resources) > 0 {
		fmt.Fprintf(out, "RESOURCES:\n%s\n", resourceTables(v.resources))
	}
	var tests []*release.Hook
	for _, h := range rel.Hooks {
		if h.IsTest() {
			tests = append(tests, h)
		}
	}
	if len(tests) == 0 {
		fmt.Fprintln(out, "TEST SUITE: None")
	}
	for _, h := range tests {
		if h.LastRun.StartedAt.IsZero() {
			continue
		}
		fmt.Fprintf(out, "TEST SUITE:     %s\nLast Started:   %s\nLast Completed: %s\nPhase:          %s\n",
			h.Name, h.LastRun.StartedAt.Format(time.ANSIC), h.LastRun.CompletedAt.Format(time.ANSIC), h.LastRun.Phase)
	}
	if v.debug {
		fmt.Fprintln(out, "USER-SUPPLIED VALUES:")
		if err := writeStructured(out, "yaml", rel.Config); err != nil {
			return err
		}
		fmt.Fprintln(out)
		computed, err := computedValues(rel)
		if err != nil {
			return err
		}
		fmt.Fprintln(out, "COMPUTED VALUES:")
		if err := writeStructured(out, "yaml", computed); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	if strings.EqualFold(info.Description, "Dry run complete") || v.debug {
		fmt.Fprintln(out, "HOOKS:")
		for _, h := range rel.Hooks {
			fmt.Fprintf(out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
		}
		fmt.Fprintf(out, "MANIFEST:\n%s\n", rel.Manifest)
	}
	if !v.hideNotes && len(info.Notes) > 0 {
		fmt.Fprintf(out, "NOTES:\n%s\n", strings.TrimSpace(info.Notes))
	}
	return nil
}

// computedValues are the chart's values coalesced with the user's, as install
// computed them.
func computedValues(rel *release.Release) (map[string]any, error) {
	if rel.Chart == nil {
		return rel.Config, nil
	}
	v, err := values.CoalesceFor(rel.Dialect(), rel.Chart, rel.Config, func(string, ...any) {})
	if err != nil {
		return nil, fmt.Errorf("compute values of release %q: %w", rel.Name, err)
	}
	return v, nil
}

// releaseResources returns the live objects by kind, for -o json|yaml.
func releaseResources(ctx context.Context, cluster func() (ports.Cluster, error), rel *release.Release) (map[string][]map[string]any, error) {
	live, err := liveResources(ctx, cluster, rel, ports.AsList)
	if err != nil {
		return nil, err
	}
	out := map[string][]map[string]any{}
	for _, r := range live {
		out[r.Key] = append(out[r.Key], r.Object)
	}
	return out, nil
}

// releaseResourceTables returns the server's tables of the live objects by
// kind: one per object, one per selector's related pods (none there or not).
func releaseResourceTables(ctx context.Context, cluster func() (ports.Cluster, error), rel *release.Release) (map[string][]*metav1.Table, error) {
	live, err := liveResources(ctx, cluster, rel, ports.AsTable)
	if err != nil {
		return nil, err
	}
	out := map[string][]*metav1.Table{}
	for _, r := range live {
		t, err := asTable(r.Object)
		if err != nil {
			return nil, fmt.Errorf("%s of release %q: %w", r.Key, rel.Name, err)
		}
		out[r.Key] = append(out[r.Key], t)
	}
	return out, nil
}

// liveResources reads the live objects of rel, from the cluster only when
// the release has any.
func liveResources(ctx context.Context, clusterOf func() (ports.Cluster, error), rel *release.Release, form ports.Form) ([]action.LiveResource, error) {
	if strings.TrimSpace(rel.Manifest) == "" {
		return nil, nil
	}
	cluster, err := clusterOf()
	if err != nil {
		return nil, err
	}
	return action.LiveResources(ctx, cluster, rel, form)
}

// asTable is a table the cluster sent, for the printer.
func asTable(o ports.Object) (*metav1.Table, error) {
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("read table: %w", err)
	}
	var t metav1.Table
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("read table: %w", err)
	}
	return &t, nil
}

// resourceTables prints the tables as both Helms do: "==> KEY" and each
// table by itself (each aligned on its own), by one printer, which leaves
// out the header of a table with the columns of the last one it printed;
// a table without rows prints nothing. Helm goes through the kinds in no
// set order; this goes by name.
func resourceTables(resources map[string][]*metav1.Table) string {
	var buf bytes.Buffer
	p := printers.NewTablePrinter(printers.PrintOptions{})
	for _, k := range slices.Sorted(maps.Keys(resources)) {
		fmt.Fprintf(&buf, "==> %s\n", k)
		for _, t := range resources[k] {
			if err := p.PrintObj(t, &buf); err != nil {
				fmt.Fprintf(&buf, "failed to print object type %s: %v\n", k, err)
			}
		}
		buf.WriteString("\n")
	}
	return buf.String()
}
