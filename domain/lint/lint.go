// Package lint checks a chart the way `helm lint` does, rule by rule in Helm's order and by
// the dialect's rules: Chart.yaml, values.yaml and its schema, the templates rendered with
// the chart's defaults and the given values and their documents, the dependencies, and in
// Helm 4 the crds/ directory. Findings name the file, as Helm's do.
package lint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/govalidator"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/chartfile"
	h3chart "github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chartutil"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/common"
	v2 "github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/v2"
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
	// ChartYAML is Chart.yaml as read, nil when there is none.
	ChartYAML []byte
	// ChartYAMLIsDir reports that Chart.yaml is a directory, and ChartYAMLErr is
	// the error reading it gave (Helm's lint quotes it).
	ChartYAMLIsDir bool
	ChartYAMLErr   error
	// Dir is the chart's absolute path, which Helm's dependency findings name.
	Dir string
	// ValuesYAML is values.yaml as read, nil when there is none.
	ValuesYAML []byte
	// ValuesSchema is values.schema.json as read: Helm's values rule reads it from
	// the directory, whether the chart loads or not.
	ValuesSchema []byte
	// TemplatesNotDir reports that templates/ exists but is not a directory.
	TemplatesNotDir bool
	// TemplatesMissing reports that the chart directory has no templates/.
	TemplatesMissing bool
	// CRDs reports that crds/ exists, CRDsNotDir that it is not a directory
	// (Helm 4's crds rule).
	CRDs, CRDsNotDir bool
	// Chart is the loaded chart; nil with LoadErr when loading failed.
	Chart   *chart.Chart
	LoadErr error
	// Values are the user's values (-f, --set ...), merged.
	Values       map[string]any
	Namespace    string
	Capabilities *capabilities.Capabilities
	// Dialect picks the rules and renders the templates by that Helm release's
	// rules (the zero value, dialect.Unset, is refused).
	Dialect dialect.Dialect
	// Budget bounds the render (engine.Budget's zero value: the defaults).
	Budget engine.Budget
	// SkipSchemaValidation leaves the values unchecked against the schemas when
	// rendering, and in Helm 4 in the values rule too (Helm 3's still checks).
	SkipSchemaValidation bool
	// Warn receives what Helm logs while it lints (coalesce warnings, required and
	// fail in lint mode), by their Helm 3 format; nil drops them.
	Warn values.Warn
}

// Result is the findings for one chart.
type Result struct {
	Findings []Finding
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
	req Request
	out []Finding
}

func (l *linter) add(sev Severity, p string, format string, args ...any) {
	l.out = append(l.out, Finding{Severity: sev, Path: p, Message: fmt.Sprintf(format, args...)})
}

// Lint runs Helm's rules in Helm's order.
func Lint(ctx context.Context, req Request) Result {
	if err := req.Dialect.Check(); err != nil {
		return Result{Findings: []Finding{{Severity: Error, Message: err.Error()}}}
	}
	l := &linter{req: req}
	l.chartfile()
	l.values(ctx)
	// Helm's dependency rule loads the chart again; the render's dependency
	// processing rewrites the chart loaded here, so its findings are taken first.
	deps := l.dependencies()
	l.templates(ctx)
	l.out = append(l.out, deps...)
	if req.Dialect.IsHelm4() {
		l.crds()
	}
	return Result{Findings: l.out}
}

// plainMetadata is Chart.yaml with the fields of Helm's types, read once the
// dialect's types accepted it.
type plainMetadata = chartfile.Metadata[*chartfile.Maintainer, *chartfile.Dependency]

func (l *linter) chartfile() {
	const file = "Chart.yaml"
	if l.req.ChartYAMLIsDir {
		l.add(Error, file, "should be a file, not a directory")
	}
	if l.req.ChartYAMLErr != nil {
		l.add(Error, file, "unable to parse YAML\n\t%v", l.req.ChartYAMLErr)
		return
	}
	data := l.req.ChartYAML
	if data == nil {
		l.add(Error, file, "file does not exist")
		return
	}
	// Helm 3 reads Chart.yaml into its package chart's types, Helm 4's lint into
	// its chart v2 types: a decoding error names them.
	var helmMD any = &h3chart.Metadata{}
	if l.req.Dialect.IsHelm4() {
		helmMD = &v2.Metadata{}
	}
	if err := yaml.Unmarshal(data, helmMD); err != nil {
		l.add(Error, file, "unable to parse YAML\n\t%v", err)
		return
	}
	var md plainMetadata
	if err := yaml.Unmarshal(data, &md); err != nil {
		l.add(Error, file, "unable to parse YAML\n\t%v", err)
		return
	}
	if l.req.Dialect.IsHelm4() {
		if err := yaml.UnmarshalStrict(data, &v2.Metadata{}); err != nil {
			l.add(Warning, file, "failed to strictly parse chart metadata file\n\t%v", err)
		}
	}
	var raw map[string]any
	_ = yaml.Unmarshal(data, &raw)
	switch {
	case md.Name == "":
		l.add(Error, file, "name is required")
	case path.Base(md.Name) != md.Name:
		l.add(Error, file, "chart name %q is invalid", md.Name)
	}
	switch md.APIVersion {
	case chart.APIVersionV1, chart.APIVersionV2:
	case "":
		l.add(Error, file, `apiVersion is required. The value must be either "v1" or "v2"`)
	default:
		l.add(Error, file, `apiVersion '%s' is not valid. The value must be either "v1" or "v2"`, md.APIVersion)
	}
	l.stringTyped(raw, "version")
	l.version(md.Version)
	l.stringTyped(raw, "appVersion")
	l.maintainers(md.Maintainers)
	for _, s := range md.Sources {
		if s == "" || !govalidator.IsRequestURL(s) {
			l.add(Error, file, "invalid source URL '%s'", s)
			break
		}
	}
	if md.Icon == "" {
		l.add(Info, file, "icon is recommended")
	} else if !govalidator.IsRequestURL(md.Icon) {
		l.add(Error, file, "invalid icon URL '%s'", md.Icon)
	}
	if md.Type != "" && md.APIVersion != chart.APIVersionV2 {
		l.add(Error, file, "chart type is not valid in apiVersion '%s'. It is valid in apiVersion 'v2'", md.APIVersion)
	}
	if len(md.Dependencies) > 0 && md.APIVersion != chart.APIVersionV2 {
		l.add(Error, file, "dependencies are not valid in the Chart file with apiVersion '%s'. They are valid in apiVersion 'v2'", md.APIVersion)
	}
	if l.req.Dialect.IsHelm4() {
		if _, err := semver.StrictNewVersion(md.Version); err != nil {
			l.add(Warning, file, "version '%s' is not a valid SemVerV2", md.Version)
		}
	}
}

// version is Helm's version rule: SemVer, and above 0.0.0-0 in the words of the
// constraint's check.
func (l *linter) version(v string) {
	if v == "" {
		l.add(Error, "Chart.yaml", "version is required")
		return
	}
	sv, err := semver.NewVersion(v)
	if err != nil {
		l.add(Error, "Chart.yaml", "version '%s' is not a valid SemVer", v)
		return
	}
	c, err := semver.NewConstraint(">0.0.0-0")
	if err != nil {
		return
	}
	if ok, msgs := c.Validate(sv); !ok && len(msgs) > 0 {
		l.add(Error, "Chart.yaml", "version %v", msgs[0])
	}
}

func (l *linter) values(ctx context.Context) {
	const file = "values.yaml"
	if l.req.ValuesYAML == nil {
		l.add(Info, file, "file does not exist")
		return
	}
	// Helm reads values.yaml into its Values type, which a decoding error names.
	var v map[string]any
	var err error
	if l.req.Dialect.IsHelm4() {
		var hv common.Values
		err = yaml.Unmarshal(l.req.ValuesYAML, &hv)
		v = hv
	} else {
		var hv chartutil.Values
		err = yaml.Unmarshal(l.req.ValuesYAML, &hv)
		v = hv
	}
	if err != nil {
		l.add(Error, file, "unable to parse YAML: %v", err)
		return
	}
	// As Helm: the user's values over values.yaml (what that logs, logged even
	// without a schema), top level only, against the chart's own schema (the render
	// checks the whole tree again). A copy: coalescing writes into it, and the
	// render needs the user's values as given.
	user, _ := values.DeepCopy(l.req.Values).(map[string]any)
	vals := values.CoalesceTables(values.CoalesceTables(map[string]any{}, user, l.req.Warn), v, l.req.Warn)
	if len(l.req.ValuesSchema) == 0 || l.req.SkipSchemaValidation && l.req.Dialect.IsHelm4() {
		return
	}
	b := l.req.Budget.WithDefaults()
	err = schema.Validate(ctx, l.req.ValuesSchema, vals, nil, schema.Limits{
		MaxNodes: b.MaxSchemaNodes, MaxSteps: b.MaxSchemaSteps, Deadline: b.Clock.Now().Add(b.Timeout), Clock: b.Clock,
	})
	if err != nil {
		l.add(Error, file, "%v", err)
	}
}

// dependencies is Helm's dependency rule, on the chart as loaded.
func (l *linter) dependencies() []Finding {
	dl := &linter{req: l.req}
	if l.req.LoadErr != nil || l.req.Chart == nil {
		dl.add(Error, "", "unable to load chart\n\t%v", l.req.LoadErr)
		return dl.out
	}
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

// Helm 3's checks of template sources for charts written for Helm 2.
var (
	crdHookSearch     = regexp.MustCompile(`"?helm\.sh/hook"?:\s+crd-install`)
	releaseTimeSearch = regexp.MustCompile(`\.Release\.Time`)
)

func (l *linter) templates(ctx context.Context) {
	const dir = "templates/"
	helm4 := l.req.Dialect.IsHelm4()
	switch {
	case helm4 && l.req.TemplatesMissing:
		l.add(Warning, dir, "directory does not exist")
		return
	case l.req.TemplatesNotDir && helm4:
		l.add(Error, dir, "not a directory")
		return
	case l.req.TemplatesNotDir:
		l.add(Warning, dir, "not a directory")
		return
	}
	c := l.req.Chart
	if l.req.LoadErr != nil || c == nil {
		l.add(Error, dir, "%v", l.req.LoadErr)
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
	// As Helm's lint: a chart whose dependencies cannot be processed is not rendered,
	// and nothing is said.
	if err := values.ProcessDependenciesFor(l.req.Dialect, c, l.req.Values, l.req.Warn); err != nil {
		return
	}
	// As Helm's lint: the values are coalesced with the chart's, then again as the
	// render does (nulls the first pass kept are dropped by the second), and a
	// failure of the first pass ends the rule without a word.
	cvals, err := values.CoalesceFor(l.req.Dialect, c, l.req.Values, l.req.Warn)
	if err != nil {
		return
	}
	top, err := render.ValuesFor(ctx, l.req.Dialect, c, cvals, render.ReleaseOptions{
		// As Helm's lint: no revision, neither install nor upgrade.
		Name: "test-release", Namespace: ns,
	}, caps, l.req.SkipSchemaValidation, l.req.Warn, l.req.Budget)
	if err != nil {
		l.add(Error, dir, "%v", err)
		return
	}
	// Lint mode, as Helm's: required and fail report instead of stopping the render.
	eng := engine.Engine{LintMode: true, Warn: l.req.Warn, Dialect: l.req.Dialect, Budget: l.req.Budget}
	files, err := eng.RenderContext(ctx, c, top)
	if err != nil {
		l.add(Error, dir, "%v", err)
		return
	}
	// HIP-0025's order: what would refuse an install is an error.
	seqErrs, seqWarnings, ignored := sequencingFindings(l.req.Dialect, c, files)
	// Helm lints such a chart clean: what is ignored is said on stderr only.
	for _, n := range ignored {
		if l.req.Warn != nil {
			l.req.Warn("resource sequencing: %s", n)
		}
	}
	for _, e := range seqErrs {
		l.add(Error, dir, "resource sequencing: %s", e)
	}
	for _, w := range seqWarnings {
		l.add(Warning, dir, "resource sequencing: %s", w)
	}
	// As Helm, documents are checked for the chart's own YAML templates; subchart
	// templates only have to render.
	for _, t := range c.Templates {
		switch ext := path.Ext(t.Name); ext {
		case ".yaml", ".yml", ".tpl", ".txt":
		default:
			l.add(Error, t.Name, "file extension '%s' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt", ext)
		}
		if !helm4 {
			if crdHookSearch.Match(t.Data) {
				l.add(Warning, t.Name, "manifest is a crd-install hook. This hook is no longer supported in v3 and all CRDs should also exist the crds/ directory at the top level of the chart")
			}
			if releaseTimeSearch.Match(t.Data) {
				l.add(Error, t.Name, ".Release.Time has been removed in v3, please replace with the `now` function in your templates")
			}
		}
		if !l.yamlTemplate(t.Name) {
			continue
		}
		rendered := files[path.Join(c.Name(), t.Name)]
		if strings.TrimSpace(rendered) == "" {
			continue
		}
		if !l.renderedFile(t.Name, rendered) {
			// As Helm: a document that does not parse ends the rule.
			return
		}
	}
}

// yamlTemplate reports whether the document rules apply to a template: Helm 3
// takes only .yaml (its check leaves .yml out), Helm 4 .yaml and .yml in any case.
func (l *linter) yamlTemplate(name string) bool {
	if !l.req.Dialect.IsHelm4() {
		return path.Ext(name) == ".yaml"
	}
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// renderedFile checks the documents of one rendered template, read as Helm reads
// them (YAML or JSON, document by document); false when one does not parse.
func (l *linter) renderedFile(file, rendered string) bool {
	if line, ok := firstLine(rendered); ok && (line[0] == ' ' || line[0] == '\t') {
		l.add(Warning, file, "document starts with an illegal indent: %q, which may cause parsing problems", line)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(rendered), 4096)
	for {
		obj, err := l.decodeObject(dec)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			l.add(Error, file, "unable to parse YAML: %v", err)
			return false
		}
		if obj != nil {
			l.object(file, obj, rendered)
		}
	}
}

// firstLine is the first line of s that is not blank.
func firstLine(s string) (string, bool) {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			return sc.Text(), true
		}
	}
	return "", false
}

// K8sYamlStruct is what Helm 3's lint reads of a rendered document, under its
// name: a decoding error names it.
type K8sYamlStruct struct {
	APIVersion string `json:"apiVersion"`
	Kind       string
	Metadata   k8sYamlMetadata
}

// k8sYamlStruct is Helm 4's, under its name.
type k8sYamlStruct struct {
	APIVersion string `json:"apiVersion"`
	Kind       string
	Metadata   k8sYamlMetadata
}

type k8sYamlMetadata struct {
	Namespace string
	Name      string
}

// decodeObject reads the next document into the dialect's type; nil for an empty
// document.
func (l *linter) decodeObject(dec *utilyaml.YAMLOrJSONDecoder) (*k8sYamlStruct, error) {
	if l.req.Dialect.IsHelm4() {
		var obj *k8sYamlStruct
		err := dec.Decode(&obj)
		return obj, err
	}
	var obj *K8sYamlStruct
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, err
	}
	return (*k8sYamlStruct)(obj), nil
}

// object runs Helm's rules on one rendered document; manifest is the whole
// rendered file, which two of them search.
func (l *linter) object(file string, obj *k8sYamlStruct, manifest string) {
	var errs field.ErrorList
	for _, msg := range nameCheck(obj.Kind)(obj.Metadata.Name) {
		errs = append(errs, field.Invalid(field.NewPath("metadata").Child("name"), obj.Metadata.Name, msg))
	}
	if len(errs) > 0 {
		l.add(Warning, file, "object name does not conform to Kubernetes naming requirements: %q: %v", obj.Metadata.Name, errs.ToAggregate())
	}
	l.deprecation(file, obj.APIVersion, obj.Kind)
	switch obj.Kind {
	case "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet":
		if !strings.Contains(manifest, "matchLabels") && !strings.Contains(manifest, "matchExpressions") {
			l.add(Error, file, "a %s must contain matchLabels or matchExpressions, and %q does not", obj.Kind, obj.Metadata.Name)
		}
	}
	if obj.Kind == "List" {
		l.listAnnotations(file, manifest)
	}
}

// listAnnotations is Helm's check of a List's items, which reads the rendered file
// (its first document) as the List.
func (l *linter) listAnnotations(file, manifest string) {
	m := struct {
		Items []struct {
			Metadata struct {
				Annotations map[string]string
			}
		}
	}{}
	if err := yaml.Unmarshal([]byte(manifest), &m); err != nil {
		l.add(Error, file, "unable to parse YAML: %v", err)
		return
	}
	for _, i := range m.Items {
		if _, ok := i.Metadata.Annotations["helm.sh/resource-policy"]; ok {
			if l.req.Dialect.IsHelm4() {
				l.add(Error, file, "annotation 'helm.sh/resource-policy' within List objects are ignored")
			} else {
				l.add(Error, file, "Annotation 'helm.sh/resource-policy' within List objects are ignored")
			}
			return
		}
	}
}

// deprecation warns of a built-in API deprecated in the target Kubernetes
// version, as Helm does (a removed one too: Helm only warns).
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
	l.add(Warning, file, "%s", msg)
}

// crds is Helm 4's crds/ rule: a directory, of a chart that loads, whose files
// are CustomResourceDefinitions of apiextensions.k8s.io.
func (l *linter) crds() {
	const dir = "crds/"
	if !l.req.CRDs {
		return
	}
	if l.req.CRDsNotDir {
		l.add(Error, dir, "not a directory")
		return
	}
	if l.req.LoadErr != nil || l.req.Chart == nil {
		l.add(Error, dir, "%v", l.req.LoadErr)
		return
	}
	for _, crd := range l.req.Chart.CRDObjects() {
		dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(string(crd.File.Data)), 4096)
		for {
			obj, err := l.decodeObject(dec)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				l.add(Error, crd.Name, "unable to parse YAML: %v", err)
				return
			}
			if obj == nil {
				continue
			}
			if !strings.HasPrefix(obj.APIVersion, "apiextensions.k8s.io") {
				l.add(Error, crd.Name, "apiVersion is not in 'apiextensions.k8s.io'")
			}
			if obj.Kind != "CustomResourceDefinition" {
				l.add(Error, crd.Name, "object kind is not 'CustomResourceDefinition'")
			}
		}
	}
}

// nameCheck is Helm's choice of name validation by kind (the validators of
// apimachinery's api/validation, which Helm uses, are these checks of names that
// are not prefixes; that package reaches net/http, which the domain may not).
func nameCheck(kind string) func(string) []string {
	switch strings.ToLower(kind) {
	case "service":
		return validation.IsDNS1035Label
	case "namespace":
		return validation.IsDNS1123Label
	case "certificatesigningrequest":
		return func(string) []string { return nil }
	case "role", "clusterrole", "rolebinding", "clusterrolebinding":
		return content.IsPathSegmentName
	}
	return validation.IsDNS1123Subdomain
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
func (l *linter) maintainers(ms []*chartfile.Maintainer) {
	for _, m := range ms {
		switch {
		case m == nil:
			l.add(Error, "Chart.yaml", "a maintainer entry is empty")
		case m.Name == "":
			l.add(Error, "Chart.yaml", "each maintainer requires a name")
		case m.Email != "" && !govalidator.IsEmail(m.Email):
			l.add(Error, "Chart.yaml", "invalid email '%s' for maintainer '%s'", m.Email, m.Name)
		case m.URL != "" && !govalidator.IsURL(m.URL):
			l.add(Error, "Chart.yaml", "invalid url '%s' for maintainer '%s'", m.URL, m.Name)
		default:
			continue
		}
		return
	}
}
