package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/schema"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// CRDPolicy is what an install or upgrade does with the chart's crds/.
type CRDPolicy string

// CRD policies (--crds).
const (
	// CRDsCreate is Helm's: an install creates the CRDs that do not exist,
	// existing ones are left alone, an upgrade leaves crds/ alone.
	CRDsCreate CRDPolicy = "create"
	// CRDsUpgrade also applies the chart's CRDs that exist (server-side), on
	// install and upgrade, unless that could lose data: a version still in
	// status.storedVersions dropped, a version existing objects are stored in
	// no longer served, or an existing object invalid under the new schema.
	CRDsUpgrade CRDPolicy = "upgrade"
	// CRDsSkip leaves crds/ alone (--skip-crds).
	CRDsSkip CRDPolicy = "skip"
)

// ParseCRDPolicy reads --crds.
func ParseCRDPolicy(s string) (CRDPolicy, error) {
	switch p := CRDPolicy(s); p {
	case CRDsCreate, CRDsUpgrade, CRDsSkip:
		return p, nil
	case "":
		return CRDsCreate, nil
	}
	return "", fmt.Errorf("invalid --crds %q: want create, upgrade or skip", s)
}

// crdPolicy is the policy a request asks for: skip with --skip-crds, create
// by default.
func crdPolicy(skip bool, p CRDPolicy) CRDPolicy {
	switch {
	case skip:
		return CRDsSkip
	case p == "":
		return CRDsCreate
	}
	return p
}

// ErrCRDUpgrade is a CRD upgrade refused because it could lose data.
var ErrCRDUpgrade = errors.New("refusing to upgrade CRDs")

// CRDUpgradeError lists why the chart's CRDs cannot be upgraded; nothing was
// changed.
type CRDUpgradeError struct {
	Problems []plan.Problem
}

func (e *CRDUpgradeError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return fmt.Sprintf("%s, nothing was changed: %s", ErrCRDUpgrade, strings.Join(msgs, "; "))
}

// Is makes errors.Is(err, ErrCRDUpgrade) true.
func (e *CRDUpgradeError) Is(target error) bool { return target == ErrCRDUpgrade }

// crdSet is the chart's CRDs an operation applies, and what it does with them.
type crdSet struct {
	objs   []ports.Object
	policy CRDPolicy
	// scopes maps the group/kind they serve to whether it is namespaced.
	scopes map[string]bool
}

// crdRefusedNote marks a CRD upgrade that could lose data.
const crdRefusedNote = "refused: it could lose data (see the problems)"

// sameCRD reports whether applying desired would leave live as it is: every
// field desired sets is live's, and the versions and their schemas (which the
// server keeps as given) are the same, none dropped.
func sameCRD(desired, live ports.Object) bool {
	if !subset(map[string]any(desired), map[string]any(live)) {
		return false
	}
	dv, lv := crdVersions(desired), crdVersions(live)
	if len(dv) != len(lv) {
		return false
	}
	for i := range dv {
		// Both ways: numbers compare by value whatever their Go type.
		if dv[i].name != lv[i].name || !subset(dv[i].schema, lv[i].schema) || !subset(lv[i].schema, dv[i].schema) {
			return false
		}
	}
	return true
}

// crdNeverUpdated marks an existing CRD left as it is.
const crdNeverUpdated = "exists; CRDs are never updated (--crds upgrade updates them)"

// crdSteps says what happens to each of the chart's CRDs: created when it
// does not exist; with CRDsUpgrade, applied when it differs from the live
// one, after checking that no data can be lost (the problems found).
func (p *Planner) crdSteps(ctx context.Context, crds []ports.Object, policy CRDPolicy) ([]plan.Step, []plan.Problem, error) {
	steps := make([]plan.Step, 0, len(crds))
	var problems []plan.Problem
	for _, crd := range crds {
		ref := ports.RefOf(crd)
		step := plan.Step{Ref: ref, Action: plan.ActionCreate, Desired: crd}
		live, err := p.Cluster.Get(ctx, ref)
		switch {
		case err == nil:
			step.Live, step.Observed = live, observed(live)
			switch {
			case policy != CRDsUpgrade:
				step.Action, step.Note = plan.ActionNoOp, crdNeverUpdated
			case sameCRD(crd, live):
				step.Action, step.Note = plan.ActionNoOp, "unchanged"
			default:
				step.Action = plan.ActionUpdate
				found, err := p.crdUpgradeProblems(ctx, crd, live)
				if err != nil {
					return nil, nil, err
				}
				if len(found) > 0 {
					step.Note = crdRefusedNote
				}
				problems = append(problems, found...)
			}
		case errors.Is(err, ports.ErrObjectNotFound):
		default:
			return nil, nil, fmt.Errorf("read CustomResourceDefinition %s: %w", crd.GetName(), err)
		}
		steps = append(steps, step)
	}
	return steps, problems, nil
}

// crdProblems puts problems of the chart's CRDs into a preview's plan, or
// refuses an operation with them.
func crdProblems(pl *plan.Plan, problems []plan.Problem, opts PlanOptions) error {
	if len(problems) == 0 {
		return nil
	}
	if opts.ServerDryRun {
		pl.Problems = append(pl.Problems, problems...)
		return nil
	}
	return &CRDUpgradeError{Problems: problems}
}

// crdVersion is one version of a CRD.
type crdVersion struct {
	name    string
	served  bool
	storage bool
	schema  map[string]any
}

func crdVersions(crd ports.Object) []crdVersion {
	spec, _ := crd["spec"].(map[string]any)
	raw, _ := spec["versions"].([]any)
	out := make([]crdVersion, 0, len(raw))
	for _, r := range raw {
		v, _ := r.(map[string]any)
		name, _ := v["name"].(string)
		sch, _ := v["schema"].(map[string]any)
		root, _ := sch["openAPIV3Schema"].(map[string]any)
		out = append(out, crdVersion{name: name, served: v["served"] == true, storage: v["storage"] == true, schema: root})
	}
	return out
}

func findVersion(vs []crdVersion, name string) (crdVersion, bool) {
	for _, v := range vs {
		if v.name == name {
			return v, true
		}
	}
	return crdVersion{}, false
}

// crdUpgradeProblems checks that applying desired over live loses no data:
// every version in status.storedVersions stays, those existing objects are
// stored in stay served, and every existing object is valid under the new
// schema of each version it will be served in (its own, and with conversion
// None the new versions too: objects are served in them unchanged). A field
// the new schema does not declare would be pruned, so it makes an object
// invalid too.
func (p *Planner) crdUpgradeProblems(ctx context.Context, desired, live ports.Object) ([]plan.Problem, error) {
	ref := ports.RefOf(desired)
	var problems []plan.Problem
	add := func(format string, args ...any) {
		problems = append(problems, plan.Problem{Type: plan.ProblemCRDUpgrade, Ref: ref,
			Message: fmt.Sprintf("CustomResourceDefinition %s: ", desired.GetName()) + fmt.Sprintf(format, args...)})
	}
	oldVersions, newVersions := crdVersions(live), crdVersions(desired)
	status, _ := live["status"].(map[string]any)
	var stored []string
	if raw, ok := status["storedVersions"].([]any); ok {
		for _, v := range raw {
			if s, ok := v.(string); ok {
				stored = append(stored, s)
			}
		}
	}
	for _, v := range stored {
		if _, ok := findVersion(newVersions, v); !ok {
			add("the new definition drops version %s, which is in status.storedVersions (objects may still be stored in it)", v)
		}
	}
	spec, _ := live["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	listVersion := ""
	for _, v := range oldVersions {
		if v.served && (listVersion == "" || v.storage) {
			listVersion = v.name
		}
	}
	if listVersion == "" || kind == "" {
		return problems, nil
	}
	objs, err := p.Cluster.List(ctx, group+"/"+listVersion, kind, "", "")
	if errors.Is(err, ports.ErrUnknownKind) {
		return problems, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the %s objects of CustomResourceDefinition %s: %w", kind, desired.GetName(), err)
	}
	if len(objs) == 0 {
		return problems, nil
	}
	for _, v := range stored {
		nv, inNew := findVersion(newVersions, v)
		ov, inOld := findVersion(oldVersions, v)
		if inNew && inOld && ov.served && !nv.served {
			add("the new definition stops serving version %s, in which existing objects are stored (status.storedVersions): %s", v, objectNames(kind, objs))
		}
	}
	dspec, _ := desired["spec"].(map[string]any)
	conversion, _ := dspec["conversion"].(map[string]any)
	plainConversion := conversion["strategy"] == nil || conversion["strategy"] == "None"
	for _, nv := range newVersions {
		ov, inOld := findVersion(oldVersions, nv.name)
		storedUnconverted := inOld && ov.served || plainConversion
		if !nv.served || nv.schema == nil || !storedUnconverted {
			continue
		}
		sch, err := schema.CompileOpenAPI(nv.schema)
		if err != nil {
			add("the schema of version %s cannot be used: %v", nv.name, err)
			continue
		}
		for _, o := range objs {
			obj := map[string]any(o)
			c := make(map[string]any, len(obj))
			for k, v := range obj {
				c[k] = v
			}
			c["apiVersion"] = group + "/" + nv.name
			if err := sch.Validate(ctx, c); err != nil {
				add("%s would not be valid under the new schema of version %s: %s", objectName(kind, o), nv.name, oneLine(err.Error()))
			}
		}
	}
	return problems, nil
}

func objectName(kind string, o ports.Object) string {
	if o.GetNamespace() == "" {
		return kind + " " + o.GetName()
	}
	return kind + " " + o.GetNamespace() + "/" + o.GetName()
}

// objectNames names up to five objects.
func objectNames(kind string, objs []ports.Object) string {
	var names []string
	for i, o := range objs {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(objs)-i))
			break
		}
		names = append(names, objectName(kind, o))
	}
	return strings.Join(names, ", ")
}

// oneLine joins a validation error's lines.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), "- "))
	}
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "; ")
}

// applyCRDs carries out the plan's CRD steps: creates what does not exist,
// applies the upgrades (taking over what Helm or our own creation wrote),
// then waits until they are established and their kinds served.
func (e *executor) applyCRDs(ctx context.Context, pl *plan.Plan) error {
	var created, updated []ports.Object
	for _, s := range pl.CRDs {
		switch s.Action {
		case plan.ActionCreate:
			created = append(created, s.Desired)
		case plan.ActionUpdate:
			updated = append(updated, s.Desired)
		}
	}
	if len(created) > 0 {
		e.emit(EventPhase, "", fmt.Sprintf("installing %d CRD(s)", len(created)))
	}
	for _, crd := range updated {
		e.emit(EventPhase, ports.RefOf(crd).String(), "upgrading CRD")
		if _, err := e.Cluster.Apply(ctx, crd, e.applyOptions(pl.Settings.ForceConflicts)); err != nil {
			return fmt.Errorf("upgrade CustomResourceDefinition %s: %w", crd.GetName(), err)
		}
		e.emit(EventApplied, ports.RefOf(crd).String(), "")
	}
	all := append(created, updated...)
	if len(all) == 0 {
		return nil
	}
	// Creates those missing, waits for all to be established and served.
	return e.Cluster.InstallCRDs(ctx, all, e.FieldManager)
}
