// Package render renders a release from its chart and values as the
// dialect's Helm does (values, schemas, templates, post-renderers, notes), and
// the text `template` prints of it.
package render

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chartcheck"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/schema"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

const NotesSuffix = "NOTES.txt"

// Request is what rendering a release needs.
type Request struct {
	Chart *chart.Chart
	// Values are the user-supplied values (-f, --set ...), already merged.
	Values       map[string]any
	ReleaseName  string
	Namespace    string
	Revision     int
	IsUpgrade    bool
	Capabilities *capabilities.Capabilities
	// IncludeCRDs puts the crds/ files at the head of the manifest text.
	IncludeCRDs bool
	// SubNotes includes the subcharts' NOTES.txt.
	SubNotes             bool
	SkipSchemaValidation bool
	// Lookup answers the lookup template function; nil renders without a cluster.
	Lookup    engine.LookupFunc
	EnableDNS bool
	// Warn receives non-fatal findings (values conflicts, skipped hooks).
	Warn func(format string, args ...any)
	// Dialect is the Helm release whose rendering rules apply; the zero value
	// (dialect.Unset) is refused.
	Dialect dialect.Dialect
	// Budget bounds the render (engine.Budget's zero value: the defaults).
	Budget engine.Budget
	// PostRender, when set, rewrites the render as the dialect's Helm does
	// (postrender.go).
	PostRender *PostRender
	// ToFiles says the manifests are written to files, not printed (template
	// --output-dir): the manifest text is then empty, which is all Helm 3
	// post-renders.
	ToFiles bool
}

// Rendered is a rendered release: its resources, hooks and notes.
type Rendered struct {
	// Manifest is the resources as one text, each document headed by "# Source:".
	Manifest  string
	Manifests []manifest.Manifest
	Hooks     []*release.Hook
	Notes     string
	// Values are the coalesced values the templates saw.
	Values values.Values
	// LookedUp says the templates read the cluster with lookup: rendered
	// later, after other objects changed, they may render differently.
	LookedUp bool
}

// Error is a failure while rendering templates, after values were accepted.
// Partial holds what was produced, when anything was (for --debug output).
type Error struct {
	Partial *Rendered
	Err     error
	// PostRenderFailed says the post-renderer failed (or its output was
	// refused) after the templates rendered.
	PostRenderFailed bool
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Chart processes the chart's dependencies, coalesces and validates values, and
// renders the templates the way `helm install` does. It changes req.Chart (disabled
// subcharts are dropped, aliases applied).
func Chart(ctx context.Context, req Request) (*Rendered, error) {
	ch, d := req.Chart, req.Dialect
	if err := d.Check(); err != nil {
		return nil, err
	}
	if err := chartcheck.Deployable(d, ch); err != nil {
		return nil, err
	}
	// Helm 4 refuses a chart it cannot render before it checks the release name.
	if err := chartcheck.SupportedAPIVersion(d, ch); err != nil {
		return nil, err
	}
	if err := releasename.Validate(req.ReleaseName); err != nil {
		return nil, fmt.Errorf("release name %q: %w", req.ReleaseName, err)
	}
	if err := values.ProcessDependenciesFor(d, ch, req.Values, req.Warn); err != nil {
		return nil, err
	}
	caps := req.Capabilities
	if caps == nil {
		caps = capabilities.Default("")
	}
	top, err := ValuesFor(ctx, d, ch, req.Values, ReleaseOptions{
		Name: req.ReleaseName, Namespace: req.Namespace, Revision: req.Revision,
		IsInstall: !req.IsUpgrade, IsUpgrade: req.IsUpgrade,
	}, caps, req.SkipSchemaValidation, req.Warn, req.Budget)
	if err != nil {
		return nil, err
	}
	if err := checkKubeVersion(d, ch.Metadata.KubeVersion, &caps.KubeVersion); err != nil {
		return nil, &Error{Err: err}
	}

	var lookedUp atomic.Bool
	lookup := req.Lookup
	if lookup != nil {
		lookup = func(apiVersion, kind, namespace, name string) (map[string]any, error) {
			lookedUp.Store(true)
			return req.Lookup(apiVersion, kind, namespace, name)
		}
	}
	eng := engine.Engine{EnableDNS: req.EnableDNS, Lookup: lookup, Warn: req.Warn, Dialect: d, Budget: req.Budget}
	files, err := eng.RenderContext(ctx, ch, top)
	if err != nil {
		return nil, &Error{Err: err}
	}
	vals, _ := top["Values"].(values.Values)
	out := &Rendered{Values: vals, Notes: extractNotes(files, ch.Name(), req.SubNotes), LookedUp: lookedUp.Load()}
	if req.PostRender != nil && d.IsHelm4() {
		if files, err = postRenderCombined(ctx, req.PostRender, files); err != nil {
			return nil, &Error{Partial: out, Err: err, PostRenderFailed: true}
		}
	}

	hooks, manifests, err := manifest.SortFor(d, files, manifest.InstallOrderFor(d), req.Warn)
	if err != nil {
		out.Manifest = rawManifest(files)
		return nil, &Error{Partial: out, Err: err}
	}
	out.Hooks, out.Manifests = hooks, manifests

	var crds []chart.CRD
	if req.IncludeCRDs {
		crds = ch.CRDObjects()
	}
	if !req.ToFiles {
		out.Manifest = joinManifest(crds, manifests)
	}
	if req.PostRender != nil && !d.IsHelm4() {
		if req.PostRender.HideSecrets && !req.ToFiles {
			out.Manifest = joinManifest(crds, withSecretsHidden(manifests))
		}
		if out.Manifest, err = postRenderManifest(ctx, req.PostRender, out.Manifest); err != nil {
			return nil, &Error{Partial: out, Err: err, PostRenderFailed: true}
		}
	}
	return out, nil
}

// joinManifest is the manifest of a render: each CRD, then each manifest, after
// its "# Source:" line. Written into one buffer of the final size: a big chart's
// manifest is megabytes.
func joinManifest(crds []chart.CRD, manifests []manifest.Manifest) string {
	const head, sep = "---\n# Source: ", "\n"
	size := 0
	for _, c := range crds {
		size += len(head) + len(c.Filename) + len(sep) + len(c.File.Data) + len(sep)
	}
	for _, m := range manifests {
		size += len(head) + len(m.Name) + len(sep) + len(m.Content) + len(sep)
	}
	var b strings.Builder
	b.Grow(size)
	for _, c := range crds {
		b.WriteString(head)
		b.WriteString(c.Filename)
		b.WriteString(sep)
		b.Write(c.File.Data)
		b.WriteString(sep)
	}
	for _, m := range manifests {
		b.WriteString(head)
		b.WriteString(m.Name)
		b.WriteString(sep)
		b.WriteString(m.Content)
		b.WriteString(sep)
	}
	return b.String()
}

// checkKubeVersion checks a chart's kubeVersion constraint against the cluster's
// version: Helm 3 compares (and names) Version; Helm 4 compares the normalised
// version and names the version as given.
func checkKubeVersion(d dialect.Dialect, constraint string, kv *capabilities.KubeVersion) error {
	if constraint == "" {
		return nil
	}
	compared, named := kv.String(), kv.String()
	if d.IsHelm4() {
		compared, named = kv.Normalized(), kv.Version
	}
	if !values.IsCompatibleRange(constraint, compared) {
		return fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", constraint, named)
	}
	return nil
}

// extractNotes removes NOTES.txt outputs from files and returns the root chart's
// notes (and the subcharts', when asked), joined by blank lines.
func extractNotes(files map[string]string, rootName string, subNotes bool) string {
	rootNotes := path.Join(rootName, "templates", NotesSuffix)
	var names []string
	for name := range files {
		if strings.HasSuffix(name, NotesSuffix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var notes strings.Builder
	for _, name := range names {
		if subNotes || name == rootNotes {
			if notes.Len() > 0 {
				notes.WriteString("\n")
			}
			notes.WriteString(files[name])
		}
		delete(files, name)
	}
	return notes.String()
}

func rawManifest(files map[string]string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		if strings.TrimSpace(files[n]) == "" {
			continue
		}
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", n, files[n])
	}
	return b.String()
}

// ReleaseOptions is .Release in templates.
type ReleaseOptions struct {
	Name      string
	Namespace string
	Revision  int
	IsUpgrade bool
	IsInstall bool
}

// Values builds the top-level template object: .Chart, .Capabilities,
// .Release and the coalesced, schema-checked .Values.
func Values(ctx context.Context, ch *chart.Chart, userVals map[string]any, opts ReleaseOptions, caps *capabilities.Capabilities, skipSchema bool, warn values.Warn) (values.Values, error) {
	return ValuesFor(ctx, dialect.Helm3, ch, userVals, opts, caps, skipSchema, warn, engine.Budget{})
}

// ValuesFor is Values by the dialect's rules (values coalescing and the
// shape of .Capabilities), checking the schemas within budget.
func ValuesFor(ctx context.Context, d dialect.Dialect, ch *chart.Chart, userVals map[string]any, opts ReleaseOptions, caps *capabilities.Capabilities, skipSchema bool, warn values.Warn, budget engine.Budget) (values.Values, error) {
	top := values.Values{
		"Chart":        ch.Metadata,
		"Capabilities": caps.ForTemplates(d),
		"Release": map[string]any{
			"Name":      opts.Name,
			"Namespace": opts.Namespace,
			"IsUpgrade": opts.IsUpgrade,
			"IsInstall": opts.IsInstall,
			"Revision":  opts.Revision,
			"Service":   "Helm",
		},
	}
	vals, err := values.CoalesceFor(d, ch, userVals, warn)
	if err != nil {
		return top, err
	}
	if !skipSchema {
		if err := validateSchemas(ctx, chartSchemas(ch, vals), budget.WithDefaults()); err != nil {
			return top, err
		}
	}
	top["Values"] = vals
	return top, nil
}

// validateSchemas checks the chart's values against its schemas within the
// render budget b, whose clock starts here; a schema refused at a limit is a
// BudgetError after the schema's path in the chart.
func validateSchemas(ctx context.Context, root schema.ChartSchema, b engine.Budget) error {
	err := schema.ValidateTree(ctx, root, nil, schema.Limits{
		MaxNodes: b.MaxSchemaNodes, MaxSteps: b.MaxSchemaSteps, Deadline: b.Clock.Now().Add(b.Timeout), Clock: b.Clock,
	})
	le, ok := errors.AsType[*schema.LimitError](err)
	if !ok {
		return err
	}
	be := &engine.BudgetError{What: le.What}
	switch le.Limit {
	case schema.LimitNodes:
		be.Limit = engine.LimitSchemaNodes
	case schema.LimitSteps:
		be.Limit = engine.LimitSchemaSteps
	default:
		be.Limit, be.What = engine.LimitTimeout, fmt.Sprintf("validating values took longer than %s", b.Timeout)
	}
	return fmt.Errorf("%s: %w", le.File, be)
}

// chartSchemas pairs each chart of the tree with its values for schema validation.
func chartSchemas(ch *chart.Chart, vals map[string]any) schema.ChartSchema {
	cs := schema.ChartSchema{ChartName: ch.Name(), Schema: ch.Schema, Values: vals}
	for _, sub := range ch.Dependencies() {
		cs.Subcharts = append(cs.Subcharts, chartSchemas(sub, nil))
	}
	return cs
}
