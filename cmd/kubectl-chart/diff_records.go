package main

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/query"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// recordDiffFlags are the flags of diff revision and diff release, which
// compare release records (their manifests), not the cluster.
type recordDiffFlags struct {
	storage          *storageFlags
	context          int
	showSecrets      bool
	detailedExitCode bool
	noColour         bool
	output           string
	helm             helmDiffFlags
}

func (d *recordDiffFlags) addFlags(cmd *cobra.Command, f Factory) {
	fs := cmd.Flags()
	d.storage = newStorageFlags(f.StorageDefaults())
	d.storage.AddFlags(fs)
	fs.IntVarP(&d.context, "context", "C", 3, "lines of context around each change (-1: whole objects)")
	fs.BoolVar(&d.showSecrets, "show-secrets", false, "show the values of Secrets (hidden by default: shown as changed or unchanged)")
	fs.BoolVar(&d.detailedExitCode, "detailed-exitcode", false, "exit 0 when nothing changes, 2 when something does, 1 on error")
	fs.BoolVar(&d.noColour, "no-color", false, "never colour the diff (it is coloured on a terminal)")
	fs.StringVarP(&d.output, "output", "o", "diff", "how to show the changes: diff, simple, template ($HELM_DIFF_TPL), json, structured or dyff (as diff)")
	d.helm.addFlags(fs, f.Settings())
}

func (d *recordDiffFlags) validate() error {
	out := d.output
	if err := d.helm.resolve(&out, &d.context); err != nil {
		return err
	}
	switch {
	case out == "json":
		d.helm.format = "json"
	case out != "":
		return fmt.Errorf("invalid output format %q: want diff, simple, template, json, structured or dyff", out)
	}
	if d.context < 0 {
		return fmt.Errorf("--context must not be negative")
	}
	return d.storage.Validate()
}

// show prints the changes from the old objects to the new ones; key says
// which two are the same object.
func (d *recordDiffFlags) show(streams genericiooptions.IOStreams, old, new []manifestObject, key func(manifestObject) string) error {
	p := recordsPlan(old, new, key)
	r := diffReport{out: streams.Out, flags: &d.helm, context: d.context, colour: d.helm.colours(d.noColour, streams.Out)}
	if err := r.write(p, d.showSecrets); err != nil {
		return err
	}
	if d.detailedExitCode && p.HasChanges() {
		return &exitCodeError{code: diffExitChanges}
	}
	return nil
}

func (d *recordDiffFlags) get(ctx context.Context, f Factory, namespace, name string, revision int) (*release.Release, error) {
	store, err := f.ReleaseStore(d.storage.StorageSettings)
	if err != nil {
		return nil, err
	}
	return query.GetRelease(ctx, store, namespace, name, revision)
}

func newCmdDiffRevision(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var d recordDiffFlags
	cmd := &cobra.Command{
		Use:   "revision RELEASE REVISION1 [REVISION2]",
		Short: "Show what changed between two revisions of a release",
		Long: `Compare the manifests two revisions of a release recorded: REVISION1 against the
latest revision, or the older of REVISION1 and REVISION2 against the newer, as
helm diff revision does.`,
		Example: `  kubectl chart diff revision web 2
  kubectl chart diff revision web 2 3 --detailed-exitcode`,
		Args: rangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := d.validate(); err != nil {
				return err
			}
			revs := make([]int, 0, 2)
			for _, a := range args[1:] {
				n, err := strconv.Atoi(a)
				if err != nil || n <= 0 {
					return fmt.Errorf("revision %q is not a revision number", a)
				}
				revs = append(revs, n)
			}
			if len(revs) == 1 {
				revs = append(revs, 0) // the latest
			} else if revs[0] > revs[1] {
				revs[0], revs[1] = revs[1], revs[0]
			}
			ns := f.Namespace()
			var objs [2][]manifestObject
			for i, rev := range revs {
				rel, err := d.get(cmd.Context(), f, ns, args[0], rev)
				if err != nil {
					return err
				}
				if objs[i], err = releaseObjects(rel); err != nil {
					return err
				}
			}
			return d.show(streams, objs[0], objs[1], manifestObject.identity)
		},
	}
	d.addFlags(cmd, f)
	return cmd
}

func newCmdDiffRelease(f Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var d recordDiffFlags
	cmd := &cobra.Command{
		Use:   "release RELEASE1 RELEASE2",
		Short: "Show how two releases of the same chart differ",
		Long: `Compare the manifests of the latest revisions of two releases of the same chart,
as helm diff release does: objects are matched by the template they come from, so
names that carry the release's name still match. A release is NAME (in the
namespace of -n) or NAMESPACE/NAME.`,
		Example: `  kubectl chart diff release web-staging web-prod
  kubectl chart diff release staging/web prod/web -o simple`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := d.validate(); err != nil {
				return err
			}
			var rels [2]*release.Release
			var objs [2][]manifestObject
			for i, a := range args {
				ns, name := f.Namespace(), a
				if before, after, ok := strings.Cut(a, "/"); ok {
					ns, name = before, after
				}
				rel, err := d.get(cmd.Context(), f, ns, name, 0)
				if err != nil {
					return err
				}
				if objs[i], err = releaseObjects(rel); err != nil {
					return err
				}
				rels[i] = rel
			}
			if a, b := rels[0].Chart.Name(), rels[1].Chart.Name(); a != b {
				return fmt.Errorf("releases %q and %q are of different charts (%q and %q): they cannot be compared", args[0], args[1], a, b)
			}
			return d.show(streams, objs[0], objs[1], manifestObject.source)
		},
	}
	d.addFlags(cmd, f)
	return cmd
}

// manifestObject is one object of a manifest, with the template it came from.
type manifestObject struct {
	ports.Object
	// template is the path of its "# Source:" line, with its rank among the
	// objects of that template ("" when it has none).
	template string
	// namespace is the release's: an object without one is named in it, as
	// helm-diff names it (the manifest alone cannot tell what is cluster-scoped).
	namespace string
}

// ref names the object.
func (o manifestObject) ref() ports.ObjectRef {
	r := ports.RefOf(o.Object)
	if r.Namespace == "" {
		r.Namespace = o.namespace
	}
	return r
}

// identity keys an object by what it is: API group, kind, namespace and name.
func (o manifestObject) identity() string {
	r := o.ref()
	return strings.Join([]string{apiBase(r.APIVersion), r.Kind, r.Namespace, r.Name}, "/")
}

// source keys an object by the template it came from, else by what it is.
func (o manifestObject) source() string {
	if o.template == "" {
		return o.identity()
	}
	return o.template
}

// releaseObjects are the objects of a revision's manifest (its hooks are not
// objects of the release, as for helm get manifest).
func releaseObjects(rel *release.Release) ([]manifestObject, error) {
	objs, err := manifestObjects(rel.Manifest, rel.Namespace)
	if err != nil {
		return nil, fmt.Errorf("release %q revision %d: %w", rel.Name, rel.Version, err)
	}
	return objs, nil
}

// manifestObjects parses a manifest into its objects, in order; empty
// documents are skipped.
func manifestObjects(text, namespace string) ([]manifestObject, error) {
	docs, err := manifest.SplitStream(text)
	if err != nil {
		return nil, err
	}
	var out []manifestObject
	seen := map[string]int{}
	for _, doc := range docs {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			return nil, fmt.Errorf("parse manifest: %w", err)
		}
		if len(o) == 0 {
			continue
		}
		mo := manifestObject{Object: o, namespace: namespace}
		if src, ok := sourceOf(doc); ok {
			seen[src]++
			mo.template = src
			if n := seen[src]; n > 1 {
				mo.template = fmt.Sprintf("%s %d", src, n)
			}
		}
		out = append(out, mo)
	}
	return out, nil
}

// sourceOf reads a document's "# Source: PATH" line.
func sourceOf(doc string) (string, bool) {
	for _, l := range strings.Split(doc, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		src, ok := strings.CutPrefix(l, "# Source: ")
		return src, ok
	}
	return "", false
}

// recordsPlan is the plan that would take the old objects to the new ones:
// objects matched by key, those only new created, those only old deleted
// (unless kept by helm.sh/resource-policy), the others updated or left.
func recordsPlan(old, new []manifestObject, key func(manifestObject) string) *plan.Plan {
	byKey := make(map[string]manifestObject, len(new))
	for _, o := range new {
		byKey[key(o)] = o
	}
	var steps []plan.Step
	matched := map[string]bool{}
	for _, o := range old {
		k := key(o)
		n, ok := byKey[k]
		switch {
		case !ok:
			a := plan.ActionDelete
			if kept(o.Object) {
				a = plan.ActionNoOp
			}
			steps = append(steps, plan.Step{Ref: o.ref(), Action: a, Live: o.Object})
		case reflect.DeepEqual(o.Object, n.Object):
			steps = append(steps, plan.Step{Ref: n.ref(), Action: plan.ActionNoOp, Live: o.Object, Desired: n.Object})
		default:
			steps = append(steps, plan.Step{Ref: n.ref(), Action: plan.ActionUpdate, Live: o.Object, Desired: n.Object})
		}
		matched[k] = true
	}
	for _, n := range new {
		if !matched[key(n)] {
			steps = append(steps, plan.Step{Ref: n.ref(), Action: plan.ActionCreate, Desired: n.Object})
		}
	}
	return &plan.Plan{Stages: []plan.Stage{{Name: "objects", Steps: steps}}}
}

// kept reports whether an object is annotated helm.sh/resource-policy: keep.
func kept(o ports.Object) bool { return annotation(o, "helm.sh/resource-policy") == "keep" }

// annotation is the value of an object's annotation, "" when it has none.
func annotation(o ports.Object, key string) string {
	md, _ := o["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	v, _ := ann[key].(string)
	return v
}
