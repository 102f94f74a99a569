// Package lint checks a chart the way `helm lint` does: Chart.yaml fields, values and
// their schema, templates rendered with the chart's defaults and the given values,
// rendered documents as YAML and as Kubernetes objects, and APIs deprecated or removed
// in the target Kubernetes version. Findings name the file, as Helm does.
package lint

import (
	"bytes"
	"context"
	"fmt"
	"net/mail"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/schema"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// Severity ranks findings.
type Severity int

// Severities, as Helm names them.
const (
	Info Severity = iota + 1
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "INFO"
	case Warning:
		return "WARNING"
	case Error:
		return "ERROR"
	}
	return "UNKNOWN"
}

// Finding is one problem in a chart.
type Finding struct {
	Severity Severity
	// Path is the file, relative to the chart directory (or the directory itself).
	Path    string
	Message string
}

func (f Finding) String() string {
	return fmt.Sprintf("[%s] %s: %s", f.Severity, f.Path, f.Message)
}

// Request is a chart to lint.
type Request struct {
	// Files are the chart directory's files as read (after .helmignore), by slash path.
	ChartYAML []byte
	// Dir is the chart's absolute path, which Helm's dependency findings name.
	Dir        string
	ValuesYAML []byte
	// TemplatesNotDir reports that templates/ exists but is not a directory.
	// A chart without templates/ is valid.
	TemplatesNotDir bool
	// TemplatesMissing reports that the chart directory has no templates/.
	TemplatesMissing bool
	// Chart is the loaded chart; nil with LoadErr when loading failed.
	Chart   *chart.Chart
	LoadErr error
	// Values are the user's values (-f, --set ...), merged.
	Values       map[string]any
	Namespace    string
	Capabilities *capabilities.Capabilities
	// RemovedIsError makes APIs already removed in the target Kubernetes version errors
	// (set when the user names the target); otherwise they warn, as in Helm.
	RemovedIsError bool
	// Dialect renders the templates by that Helm release's rules (the zero value is
	// Helm 3). The lint rules themselves are Helm 3's.
	Dialect dialect.Dialect
	// Budget bounds the render (engine.Budget's zero value: the defaults).
	Budget engine.Budget
}

// Result is the findings for one chart.
type Result struct {
	Findings []Finding
	// Notes are what the render logged (coalesce warnings, required and fail in
	// lint mode): Helm logs them on stderr, apart from the findings.
	Notes []string
}

// Worst is the highest severity found, 0 when none.
func (r Result) Worst() Severity {
	var w Severity
	for _, f := range r.Findings {
		if f.Severity > w {
			w = f.Severity
		}
	}
	return w
}

// Failed reports whether the chart fails: any error, or with strict any warning.
func (r Result) Failed(strict bool) bool {
	w := r.Worst()
	return w == Error || strict && w == Warning
}

type linter struct {
	req   Request
	out   []Finding
	notes []string
}

func (l *linter) add(sev Severity, p string, format string, args ...any) {
	l.out = append(l.out, Finding{Severity: sev, Path: p, Message: fmt.Sprintf(format, args...)})
}

// Lint runs every check.
func Lint(ctx context.Context, req Request) Result {
	l := &linter{req: req}
	ok := l.chartfile()
	l.values(ctx)
	switch {
	case ok:
		// Helm reports the dependencies after the templates, of the chart as
		// loaded: the render's dependency processing rewrites its metadata.
		deps := l.dependencies()
		l.templates(ctx)
		l.out = append(l.out, deps...)
	case l.req.LoadErr != nil:
		// As Helm: the templates could not be read, and the chart not loaded.
		if l.req.Dialect.IsHelm4() && l.req.TemplatesMissing {
			l.add(Warning, "templates/", "directory does not exist")
		} else if l.req.ChartYAML != nil {
			l.add(Error, "templates/", "%v", l.req.LoadErr)
		}
		l.add(Error, "", "unable to load chart\n\t%v", l.req.LoadErr)
	}
	return Result{Findings: l.out, Notes: l.notes}
}

func (l *linter) chartfile() bool {
	const file = "Chart.yaml"
	data := l.req.ChartYAML
	if data == nil {
		l.add(Error, file, "file does not exist")
		return false
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		l.add(Error, file, "unable to parse YAML\n\t%v", err)
		return false
	}
	var md chart.Metadata
	if err := yaml.Unmarshal(data, &md); err != nil {
		l.add(Error, file, "unable to parse YAML\n\t%v", err)
		return false
	}
	if l.req.Dialect.IsHelm4() {
		if err := yaml.UnmarshalStrict(data, &chart.Metadata{}); err != nil {
			l.add(Warning, file, "failed to strictly parse chart metadata file\n\t%v", err)
		}
	}
	// Helm's order, one finding per rule at most.
	okName := true
	switch {
	case md.Name == "":
		l.add(Error, file, "name is required")
		okName = false
	case md.Name == "." || md.Name == ".." || strings.ContainsAny(md.Name, `/\`) || md.Name != path.Base(md.Name):
		l.add(Error, file, "chart name %q is invalid", md.Name)
		okName = false
	}
	switch md.APIVersion {
	case chart.APIVersionV1, chart.APIVersionV2:
	case "":
		l.add(Error, file, `apiVersion is required. The value must be either "v1" or "v2"`)
	default:
		l.add(Error, file, `apiVersion '%s' is not valid. The value must be either "v1" or "v2"`, md.APIVersion)
	}
	l.stringTyped(raw, "version")
	if md.Version == "" {
		l.add(Error, file, "version is required")
	} else if v, err := semver.NewVersion(md.Version); err != nil {
		l.add(Error, file, "version '%s' is not a valid SemVer", md.Version)
	} else if c, _ := semver.NewConstraint(">0.0.0-0"); !c.Check(v) {
		l.add(Error, file, "version %s is less than or equal to 0", md.Version)
	}
	l.stringTyped(raw, "appVersion")
	l.maintainers(md.Maintainers)
	for _, s := range md.Sources {
		if s == "" || !validURL(s) {
			l.add(Error, file, "invalid source URL '%s'", s)
			break
		}
	}
	if md.Icon == "" {
		l.add(Info, file, "icon is recommended")
	} else if !validURL(md.Icon) {
		l.add(Error, file, "invalid icon URL '%s'", md.Icon)
	}
	// As Helm: dependencies and a type need apiVersion v2, whatever the
	// version is instead (Helm 4's own chart API v3 scaffold included).
	if md.APIVersion != chart.APIVersionV2 {
		if md.Type != "" {
			l.add(Error, file, "chart type is not valid in apiVersion '%s'. It is valid in apiVersion 'v2'", md.APIVersion)
		}
		if len(md.Dependencies) > 0 {
			l.add(Error, file, "dependencies are not valid in the Chart file with apiVersion '%s'. They are valid in apiVersion 'v2'", md.APIVersion)
		}
	}
	if l.req.Dialect.IsHelm4() {
		if _, err := semver.StrictNewVersion(md.Version); err != nil {
			l.add(Warning, file, "version '%s' is not a valid SemVerV2", md.Version)
		}
	}
	switch md.Type {
	case "", "application", "library":
	default:
		l.add(Error, file, "chart type %q is invalid: use application or library", md.Type)
	}
	if md.KubeVersion != "" {
		if _, err := semver.NewConstraint(md.KubeVersion); err != nil {
			l.add(Error, file, "kubeVersion %q is not a valid SemVer constraint", md.KubeVersion)
		}
	}
	for _, d := range md.Dependencies {
		if d == nil {
			l.add(Error, file, "dependencies must not contain empty or null nodes")
			continue
		}
		if d.Version != "" {
			if _, err := semver.NewConstraint(d.Version); err != nil {
				l.add(Error, file, "dependency %q has an invalid version/constraint format: %q", d.Name, d.Version)
			}
		}
	}
	if l.req.LoadErr != nil {
		return false
	}
	return okName && l.req.Chart != nil
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
}

func (l *linter) values(ctx context.Context) {
	const file = "values.yaml"
	if l.req.ValuesYAML == nil {
		l.add(Info, file, "file does not exist")
		return
	}
	var v map[string]any
	if err := yaml.Unmarshal(l.req.ValuesYAML, &v); err != nil {
		l.add(Error, file, "unable to parse YAML: %v", err)
		return
	}
	if l.req.Chart == nil || len(l.req.Chart.Schema) == 0 {
		return
	}
	// As Helm: the user's values over values.yaml, top level only, against the
	// chart's own schema (the render checks the whole tree again).
	// A copy: coalescing writes into it, and the render needs the user's values as given.
	user, _ := values.DeepCopy(l.req.Values).(map[string]any)
	vals := values.CoalesceTables(user, v, nil)
	b := l.req.Budget.WithDefaults()
	err := schema.Validate(ctx, l.req.Chart.Schema, vals, nil, schema.Limits{
		MaxNodes: b.MaxSchemaNodes, MaxSteps: b.MaxSchemaSteps, Deadline: time.Now().Add(b.Timeout),
	})
	if err != nil {
		l.add(Error, file, "%v", err)
	}
}

func (l *linter) dependencies() []Finding {
	dl := &linter{req: l.req}
	c := l.req.Chart
	var missing, unlisted, shadowed []string
	seen := map[string]bool{}
	for _, d := range c.Metadata.Dependencies {
		if d == nil {
			continue
		}
		key := d.Name
		if d.Alias != "" {
			key = d.Alias
		}
		if seen[key] {
			shadowed = append(shadowed, key)
		}
		seen[key] = true
		found := false
		for _, sub := range c.Dependencies() {
			if sub.Name() == d.Name {
				found = true
			}
		}
		if !found {
			missing = append(missing, d.Name)
		}
	}
	for _, sub := range c.Dependencies() {
		listed := false
		for _, d := range c.Metadata.Dependencies {
			if d != nil && d.Name == sub.Name() {
				listed = true
			}
		}
		if !listed {
			unlisted = append(unlisted, sub.Name())
		}
	}
	// Helm's order: the errors, then the warning.
	if len(unlisted) > 0 {
		dl.add(Error, l.req.Dir, "chart metadata is missing these dependencies: %s", strings.Join(unlisted, ","))
	}
	if len(shadowed) > 0 {
		dl.add(Error, l.req.Dir, "multiple dependencies with name or alias: %s", strings.Join(shadowed, ","))
	}
	if len(missing) > 0 {
		dl.add(Warning, l.req.Dir, "chart directory is missing these dependencies: %s", strings.Join(missing, ","))
	}
	return dl.out
}

func (l *linter) templates(ctx context.Context) {
	c := l.req.Chart
	if l.req.TemplatesNotDir {
		l.add(Warning, "templates/", "not a directory")
		return
	}
	if l.req.TemplatesMissing && l.req.Dialect.IsHelm4() {
		l.add(Warning, "templates/", "directory does not exist")
	}
	for _, t := range c.Templates {
		switch path.Ext(t.Name) {
		case ".yaml", ".yml", ".tpl", ".txt":
		default:
			l.add(Error, t.Name, "file extension '%s' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt", path.Ext(t.Name))
		}
		if bytes.Contains(t.Data, []byte(".Release.Time")) {
			l.add(Error, t.Name, ".Release.Time has been removed in v3, please replace with the `now` function in your templates")
		}
	}
	if c.IsLibrary() {
		return
	}
	caps := l.req.Capabilities
	if caps == nil {
		caps = capabilities.Default("")
	}
	ns := l.req.Namespace
	if ns == "" {
		ns = "default"
	}
	warn := func(format string, args ...any) { l.notes = append(l.notes, fmt.Sprintf(format, args...)) }
	if err := values.ProcessDependenciesFor(l.req.Dialect, c, l.req.Values, warn); err != nil {
		l.add(Error, "Chart.yaml", "%v", err)
		return
	}
	top, err := action.RenderValuesFor(ctx, l.req.Dialect, c, l.req.Values, action.ReleaseOptions{
		// As Helm's lint: no revision, neither install nor upgrade.
		Name: "test-release", Namespace: ns,
	}, caps, false, warn, l.req.Budget)
	if err != nil {
		l.add(Error, "templates/", "%v", err)
		return
	}
	// Lint mode, as Helm's: required and fail report instead of stopping the render.
	eng := engine.Engine{LintMode: true, Warn: warn, Dialect: l.req.Dialect, Budget: l.req.Budget}
	files, err := eng.RenderContext(ctx, c, top)
	if err != nil {
		l.renderError(err)
		return
	}
	// HIP-0025's order: what would refuse an install is an error.
	seqErrs, seqWarnings := action.SequencingFindings(l.req.Dialect, c, files)
	for _, e := range seqErrs {
		l.add(Error, "templates/", "resource sequencing: %s", e)
	}
	for _, w := range seqWarnings {
		l.add(Warning, "templates/", "resource sequencing: %s", w)
	}
	// As Helm, documents are checked for the chart's own YAML templates; subchart
	// templates only have to render.
	for _, t := range c.Templates {
		base := path.Base(t.Name)
		if strings.HasPrefix(base, "_") || (path.Ext(t.Name) != ".yaml" && path.Ext(t.Name) != ".yml") {
			continue
		}
		l.renderedFile(t.Name, files[path.Join(c.Name(), t.Name)])
	}
}

// renderedFile checks each YAML document of one rendered template.
func (l *linter) renderedFile(file, content string) {
	for _, line := range strings.Split(content, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || trimmed == "---" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			l.add(Warning, file, "document starts with an illegal indent: %q, which may cause parsing problems", line)
		}
		break
	}
	for i, doc := range manifest.SplitFor(l.req.Dialect, content) {
		l.document(file, doc, i+1)
	}
}

// renderError is reported as Helm does: every render failure under templates/.
func (l *linter) renderError(err error) {
	l.add(Error, "templates/", "%v", err)
}

// k8sObject is what lint reads of a rendered document.
type k8sObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Selector *struct {
			MatchLabels      map[string]string `json:"matchLabels"`
			MatchExpressions []any             `json:"matchExpressions"`
		} `json:"selector"`
	} `json:"spec"`
}

func (l *linter) document(file, content string, docNum int) {
	var generic any
	if err := yaml.Unmarshal([]byte(content), &generic); err != nil {
		// The line yaml reports is in the rendered document, not in the template.
		l.add(Error, file, "unable to parse YAML of rendered document %d: %v", docNum, err)
		return
	}
	if generic == nil {
		// Empty, or only comments: nothing to install.
		return
	}
	var obj k8sObject
	if err := yaml.Unmarshal([]byte(content), &obj); err != nil {
		l.add(Error, file, "rendered document %d is not a Kubernetes object: %v", docNum, err)
		return
	}
	if obj.APIVersion == "" || obj.Kind == "" {
		l.add(Error, file, "not a valid Kubernetes object: apiVersion and kind are required")
		return
	}
	if obj.Metadata.Name != "" {
		if msgs := nameCheck(obj.Kind)(obj.Metadata.Name, false); len(msgs) > 0 {
			l.add(Warning, file, "object name does not conform to Kubernetes naming requirements: %q: %s", obj.Metadata.Name, strings.Join(msgs, "; "))
		}
	} else if !strings.HasSuffix(obj.Kind, "List") {
		l.add(Error, file, "%s %s has no metadata.name", obj.APIVersion, obj.Kind)
	}
	if obj.Metadata.Namespace != "" {
		if msgs := validation.IsDNS1123Label(obj.Metadata.Namespace); len(msgs) > 0 {
			l.add(Warning, file, "namespace %q is invalid: %s", obj.Metadata.Namespace, strings.Join(msgs, "; "))
		}
	}
	switch obj.Kind {
	case "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet":
		if strings.HasPrefix(obj.APIVersion, "apps/v1") && obj.APIVersion == "apps/v1" {
			if obj.Spec.Selector == nil || len(obj.Spec.Selector.MatchLabels) == 0 && len(obj.Spec.Selector.MatchExpressions) == 0 {
				l.add(Error, file, "a %s must contain matchLabels or matchExpressions, and %q does not", obj.Kind, obj.Metadata.Name)
			}
		}
	}
	if strings.Contains(obj.Metadata.Annotations["helm.sh/hook"], "crd-install") {
		l.add(Warning, file, "manifest is a crd-install hook. This hook is no longer supported in v3 and all CRDs should also exist the crds/ directory at the top level of the chart")
	}
	if strings.HasSuffix(obj.Kind, "List") {
		if _, ok := obj.Metadata.Annotations["helm.sh/resource-policy"]; ok {
			l.add(Error, file, "Annotation 'helm.sh/resource-policy' within List objects are ignored")
		}
	}
	l.deprecation(file, obj.APIVersion, obj.Kind)
}

func (l *linter) deprecation(file, apiVersion, kind string) {
	lc, ok := lifecycles()[apiVersion+" "+kind]
	if !ok {
		return
	}
	minor := 37
	if l.req.Capabilities != nil {
		if m, err := strconv.Atoi(strings.TrimRight(l.req.Capabilities.KubeVersion.Minor, "+")); err == nil {
			minor = m
		}
	}
	if minor < lc.deprecated {
		return
	}
	msg := fmt.Sprintf("%s %s is deprecated in v1.%d+, unavailable in v1.%d+", apiVersion, kind, lc.deprecated, lc.removed)
	if lc.replacement != "" {
		msg += "; use " + lc.replacement
	}
	sev := Warning
	if minor >= lc.removed && l.req.RemovedIsError {
		sev = Error
		msg = fmt.Sprintf("%s %s was removed in Kubernetes v1.%d and the target is v1.%d: %s", apiVersion, kind, lc.removed, minor, msg)
	}
	l.add(sev, file, "%s", msg)
}

func nameCheck(kind string) func(string, bool) []string {
	switch strings.ToLower(kind) {
	case "service":
		return func(n string, _ bool) []string { return validation.IsDNS1035Label(n) }
	case "namespace":
		return func(n string, _ bool) []string { return validation.IsDNS1123Label(n) }
	case "certificatesigningrequest":
		return func(string, bool) []string { return nil }
	case "role", "clusterrole", "rolebinding", "clusterrolebinding":
		return func(name string, _ bool) []string {
			if strings.ContainsAny(name, "/%") || name == "." || name == ".." {
				return []string{`may not contain '/' or '%' and may not be '.' or '..'`}
			}
			return nil
		}
	}
	return func(n string, _ bool) []string { return validation.IsDNS1123Subdomain(n) }
}

// stringTyped reports a Chart.yaml key present with a value that is not a string
// (null included, as Helm does).
func (l *linter) stringTyped(raw map[string]any, key string) {
	if v, ok := raw[key]; ok {
		if _, isString := v.(string); !isString {
			l.add(Error, "Chart.yaml", "%s should be of type string but it's of type %T", key, v)
		}
	}
}

// maintainers reports the first bad maintainer entry, as Helm does.
func (l *linter) maintainers(ms []*chart.Maintainer) {
	for _, m := range ms {
		switch {
		case m == nil:
			l.add(Error, "Chart.yaml", "a maintainer entry is empty")
		case m.Name == "":
			l.add(Error, "Chart.yaml", "each maintainer requires a name")
		case m.Email != "" && !validEmail(m.Email):
			l.add(Error, "Chart.yaml", "invalid email '%s' for maintainer '%s'", m.Email, m.Name)
		case m.URL != "" && !validURL(m.URL):
			l.add(Error, "Chart.yaml", "invalid url '%s' for maintainer '%s'", m.URL, m.Name)
		default:
			continue
		}
		return
	}
}
