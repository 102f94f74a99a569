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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
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
	factory         Factory
	store           ports.ReleaseStore
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
	o.only.only(fs, dialect.Helm3, "show-desc", "show-resources")
	return cmd
}

// Complete reads the release name and namespace, and takes the store from
// the factory.
func (o *StatusOptions) Complete(f Factory, args []string) error {
	o.name, o.namespace, o.factory = args[0], f.Namespace(), f
	var err error
	o.store, err = f.ReleaseStore(o.storage.StorageSettings)
	return err
}

// Validate checks flag values.
func (o *StatusOptions) Validate() error {
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	if err := o.only.check(d); err != nil {
		return err
	}
	return validateOutput(o.output)
}

// Run prints the status.
func (o *StatusOptions) Run(ctx context.Context) error {
	rel, err := action.GetRelease(ctx, o.store, o.namespace, o.name, o.revision)
	if err != nil {
		return err
	}
	rel.Chart = nil
	d, err := o.compat.Dialect()
	if err != nil {
		return err
	}
	// Helm 4 shows the description and the live resources always.
	showDesc, showResources := o.showDesc || d.IsHelm4(), o.showResources || d.IsHelm4()
	var tables map[string][]*metav1.Table
	if showResources {
		if o.output == "table" {
			tables, err = releaseResourceTables(o.factory, rel)
		} else {
			rel.Info.Resources, err = releaseResources(o.factory, rel)
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
	if (!inCluster || !ourLinesTo(o.factory.Settings(), o.ErrOut)) && !o.showDrift {
		return nil
	}
	cluster, err := o.factory.Cluster()
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

// resourceKey groups objects as Helm does: "<version>/<Kind>".
func resourceKey(obj runtime.Object) string {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return gvk.Version + "/" + gvk.Kind
}

// tableAccept asks the API server for its table of an object or a list.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// relatedPodsKey groups the pods that the release's objects select, as Helm does.
const relatedPodsKey = "v1/Pod(related)"

// visitManifest fetches the live objects of a release's manifest and, as
// Helm's status does, the pods their selectors select.
func visitManifest(cf genericclioptions.RESTClientGetter, rel *release.Release, asTable bool, fn func(key string, obj runtime.Object) error) error {
	if strings.TrimSpace(rel.Manifest) == "" {
		return nil
	}
	ctx := context.Background()
	b := resource.NewBuilder(cf).Unstructured().NamespaceParam(rel.Namespace).DefaultNamespace().
		Stream(strings.NewReader(rel.Manifest), "manifest").Flatten().ContinueOnError()
	r := b.Do()
	infos, err := r.Infos()
	if err != nil {
		return fmt.Errorf("read manifest of release %q: %w", rel.Name, err)
	}
	var (
		selectors []map[string]string
		core      corev1client.CoreV1Interface
	)
	for _, info := range infos {
		key := resourceKey(info.Object)
		// As both Helms: an object that cannot be read (gone, forbidden) is
		// left out of the listing, not an error.
		obj, err := liveObject(ctx, info, asTable)
		if err != nil {
			continue
		}
		if err := fn(key, obj); err != nil {
			return err
		}
		u, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		sel, ok := podSelector(u)
		if !ok || slices.ContainsFunc(selectors, func(seen map[string]string) bool { return maps.Equal(seen, sel) }) {
			continue
		}
		selectors = append(selectors, sel)
		if core == nil {
			if core, err = coreClient(cf); err != nil {
				return err
			}
		}
		related, err := relatedPods(ctx, core, info.Namespace, labels.Set(sel).AsSelector().String(), asTable)
		if err != nil {
			return err
		}
		for _, p := range related {
			if err := fn(relatedPodsKey, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// podSelector is the label selector of the pods an object runs, read where
// both Helms read it, by kind alone: spec.selector of ReplicationControllers,
// spec.selector.matchLabels of Deployments, ReplicaSets, DaemonSets,
// StatefulSets and Jobs. Like Helm, an object of those kinds without one
// selects every pod of its namespace; a Service selects none (Helm lists no
// pods for it: one without a selector listed every pod of the namespace).
func podSelector(u *unstructured.Unstructured) (map[string]string, bool) {
	var path []string
	switch u.GetKind() {
	case "ReplicationController":
		path = []string{"spec", "selector"}
	case "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job":
		path = []string{"spec", "selector", "matchLabels"}
	default:
		return nil, false
	}
	sel, _, _ := unstructured.NestedStringMap(u.Object, path...)
	return sel, true
}

// coreClient is the client that lists related pods, made once per command.
func coreClient(cf genericclioptions.RESTClientGetter) (corev1client.CoreV1Interface, error) {
	cfg, err := cf.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create kubernetes client: %w", err)
	}
	return client.CoreV1(), nil
}

// relatedPods lists the pods of a namespace that selector selects, as one
// table or one PodList.
func relatedPods(ctx context.Context, client corev1client.CoreV1Interface, namespace, selector string, asTable bool) ([]runtime.Object, error) {
	if asTable {
		raw, err := client.RESTClient().Get().Namespace(namespace).Resource("pods").
			Param("labelSelector", selector).SetHeader("Accept", tableAccept).DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("list pods selected by %q: %w", selector, err)
		}
		var t metav1.Table
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("list pods selected by %q: read table: %w", selector, err)
		}
		return []runtime.Object{&t}, nil
	}
	list, err := client.Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list pods selected by %q: %w", selector, err)
	}
	// Helm reports each selector's pods as one PodList.
	list.APIVersion, list.Kind = "v1", "PodList"
	for i := range list.Items {
		list.Items[i].APIVersion, list.Items[i].Kind = "v1", "Pod"
	}
	return []runtime.Object{list}, nil
}

// liveObject reads the live object of info, as the server's table when asTable.
func liveObject(ctx context.Context, info *resource.Info, asTable bool) (runtime.Object, error) {
	if !asTable {
		return resource.NewHelper(info.Client, info.Mapping).Get(info.Namespace, info.Name)
	}
	raw, err := info.Client.Get().NamespaceIfScoped(info.Namespace, info.Mapping.Scope.Name() == meta.RESTScopeNameNamespace).
		Resource(info.Mapping.Resource.Resource).Name(info.Name).
		SetHeader("Accept", tableAccept).
		DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	var t metav1.Table
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("read table: %w", err)
	}
	return &t, nil
}

// releaseResources returns the live objects by kind, for -o json|yaml.
func releaseResources(cf genericclioptions.RESTClientGetter, rel *release.Release) (map[string][]map[string]any, error) {
	out := map[string][]map[string]any{}
	err := visitManifest(cf, rel, false, func(key string, obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				return err
			}
			u = &unstructured.Unstructured{Object: m}
		}
		out[key] = append(out[key], u.Object)
		return nil
	})
	return out, err
}

// releaseResourceTables returns the server's tables of the live objects by
// kind: one per object, one per selector's related pods (none there or not).
func releaseResourceTables(cf genericclioptions.RESTClientGetter, rel *release.Release) (map[string][]*metav1.Table, error) {
	out := map[string][]*metav1.Table{}
	err := visitManifest(cf, rel, true, func(key string, obj runtime.Object) error {
		out[key] = append(out[key], obj.(*metav1.Table))
		return nil
	})
	return out, err
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
