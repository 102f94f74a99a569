// Package helmfile reads helmfile's state file (helmfile v1 semantics) into
// a resolved stack.Stack: parts and bases layered, environments and their
// values loaded, templates rendered with helmfile's data and functions,
// releases selected and their needs resolved. Files, the environment and
// commands come through Host, so the package stays pure.
package helmfile

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

// DefaultEnvironment is the environment used unless one is chosen.
const DefaultEnvironment = "default"

// ErrUnknownEnvironment is returned when the chosen environment is declared nowhere.
var ErrUnknownEnvironment = errors.New("environment is not defined")

// Options say how a state file is read.
type Options struct {
	// Environment is the one chosen ("" means "default").
	Environment string
	// Selectors are helmfile's -l selectors: any one matching selects a release.
	Selectors    []string
	IncludeNeeds bool
	AllowExec    bool
	// StateValuesSet are --state-values-set entries (key.path=value).
	StateValuesSet []string
	// StateValuesFiles are --state-values-file paths.
	StateValuesFiles []string
	// Log receives what helmfile logs at info and warning level (the
	// missingFileHandler's "skipping missing ..." lines).
	Log func(msg string)
}

// Loader reads state files through its host.
type Loader struct {
	Host Host
}

// env is helmfile's environment while parts are read: its name, kube context
// and values so far, and the state's own `values:` (Defaults) under them.
type env struct {
	Name        string
	KubeContext string
	Values      map[string]any
	Defaults    map[string]any
}

// merged are the values templates see as .Values: the state's values under
// the environment's (and the --state-values-* overrides in them).
func (e env) merged() map[string]any {
	if len(e.Defaults) == 0 {
		return e.Values
	}
	return mergeMaps(e.Defaults, e.Values)
}

// envData is the template data of state files and environment values files.
type envData struct {
	Environment envTemplate
	Namespace   string
	Values      map[string]any
	StateValues *map[string]any
}

type envTemplate struct {
	Name        string
	KubeContext string
	Values      map[string]any
}

func newEnvData(e env) *envData {
	envVals, vals := e.Values, e.merged()
	if envVals == nil {
		envVals = map[string]any{}
	}
	if vals == nil {
		vals = map[string]any{}
	}
	d := &envData{Environment: envTemplate{Name: e.Name, KubeContext: e.KubeContext, Values: envVals}, Values: vals}
	d.StateValues = &d.Values
	return d
}

type loadRun struct {
	ctx    context.Context
	host   Host
	opts   Options
	over   map[string]any
	stack  *stack.Stack
	active map[string]bool
	// group numbers the state files in the order helmfile works on them.
	group int
	// disabled are the releases whose condition is false: they keep their
	// place among needs and waves, as in helmfile, and are selected only as
	// a need of a selected release (--include-needs).
	disabled map[declared]bool
}

// declared tells releases apart by where they were declared: two of one
// identity may both be declared when conditions enable only one.
type declared struct {
	group  int
	source string
}

func declaredAt(r stack.Release) declared { return declared{r.Group, r.Source} }

// Load reads the state file at path (helmfile's defaults when empty) and
// resolves it for opts.
func (l Loader) Load(ctx context.Context, path string, opts Options) (stack.Stack, error) {
	if opts.Environment == "" {
		opts.Environment = DefaultEnvironment
	}
	if opts.Log == nil {
		opts.Log = func(string) {}
	}
	files, err := l.stateFiles(path)
	if err != nil {
		return stack.Stack{}, err
	}
	r := &loadRun{ctx: ctx, host: l.Host, opts: opts, stack: &stack.Stack{Environment: opts.Environment}, active: map[string]bool{}, disabled: map[declared]bool{}}
	if r.over, err = r.overrides(); err != nil {
		return stack.Stack{}, err
	}
	var all []stack.Release
	for _, f := range files {
		rels, err := r.loadStack(f, r.over)
		if err != nil {
			return stack.Stack{}, err
		}
		all = append(all, rels...)
	}
	if err := checkDuplicates(all, r.disabled); err != nil {
		return stack.Stack{}, err
	}
	if err := resolveAllNeeds(all); err != nil {
		return stack.Stack{}, err
	}
	setWaves(all)
	r.stack.Notes = markUninstalledNeeds(all)
	selected, err := selectReleases(all, r.disabled, opts.Selectors, opts.IncludeNeeds)
	if err != nil {
		return stack.Stack{}, err
	}
	r.stack.Releases = selected
	return *r.stack, nil
}

// stateFiles finds the state files: path, or helmfile's defaults
// (helmfile.yaml, helmfile.yaml.gotmpl, then helmfile.d/*.yaml*).
func (l Loader) stateFiles(path string) ([]string, error) {
	if path == "" {
		for _, p := range []string{"helmfile.yaml", "helmfile.yaml.gotmpl"} {
			if fi, err := l.Host.Stat(p); err == nil && !fi.IsDir() {
				return []string{p}, nil
			}
		}
		path = "helmfile.d"
	}
	fi, err := l.Host.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("no state file found: %w", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var files []string
	for _, pat := range []string{"*.yaml", "*.yaml.gotmpl", "*.yml", "*.yml.gotmpl"} {
		m, err := l.Host.Glob(filepath.Join(path, pat))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("no state file found in %s", path)
	}
	return files, nil
}

// overrides are --state-values-file and --state-values-set, over every environment.
func (r *loadRun) overrides() (map[string]any, error) {
	if len(r.opts.StateValuesFiles) == 0 && len(r.opts.StateValuesSet) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, f := range r.opts.StateValuesFiles {
		m, err := r.valuesFile(f, env{Name: r.opts.Environment})
		if err != nil {
			return nil, err
		}
		out = mergeMaps(out, m)
	}
	for _, s := range r.opts.StateValuesSet {
		for _, kv := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("--state-values-set %q: expected key=value", kv)
			}
			out = mergeMaps(out, nested(strings.Split(k, "."), v))
		}
	}
	return out, nil
}

func nested(keys []string, v any) map[string]any {
	if len(keys) == 1 {
		return map[string]any{keys[0]: v}
	}
	return map[string]any{keys[0]: nested(keys[1:], v)}
}

// loadStack reads one state file and its sub-helmfiles (first, as helmfile
// runs them) into releases.
func (r *loadRun) loadStack(file string, over map[string]any) ([]stack.Release, error) {
	if r.active[file] {
		return nil, fmt.Errorf("%s: helmfiles include %s again (a cycle)", file, file)
	}
	r.active[file] = true
	defer delete(r.active, file)
	var start *env
	if over != nil {
		start = &env{Name: r.opts.Environment, Values: over}
	}
	spec, e, err := r.loadFile(file, filepath.Dir(file), start, true)
	if err != nil {
		return nil, err
	}
	if len(spec.Environments) == 0 && start == nil && r.opts.Environment != DefaultEnvironment {
		return nil, fmt.Errorf("failed to read %s: environment %q: %w", file, r.opts.Environment, ErrUnknownEnvironment)
	}
	dir := filepath.Dir(file)
	var out []stack.Release
	for _, sub := range spec.Helmfiles {
		matches, err := r.host.Glob(filepath.Join(dir, sub.Path))
		if err != nil {
			return nil, fmt.Errorf("%s: helmfiles: %w", file, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: helmfiles: no matches for path: %s", file, sub.Path)
		}
		sort.Strings(matches)
		subOver := over
		if len(sub.Values) > 0 {
			vals, err := r.valuesEntries(dir, sub.Values, nil, *e)
			if err != nil {
				return nil, err
			}
			subOver = mergeMaps(over, vals)
		}
		for _, m := range matches {
			rels, err := r.loadStack(m, subOver)
			if err != nil {
				return nil, err
			}
			out = append(out, rels...)
		}
	}
	r.addRepositories(spec.Repositories)
	rels, err := r.releases(file, spec, *e)
	if err != nil {
		return nil, err
	}
	r.group++
	return append(out, rels...), nil
}

func (r *loadRun) addRepositories(repos []repoSpec) {
	for _, rp := range repos {
		dup := false
		for _, have := range r.stack.Repositories {
			dup = dup || have.Name == rp.Name
		}
		if !dup {
			r.stack.Repositories = append(r.stack.Repositories, stack.Repository{Name: rp.Name, URL: rp.URL, OCI: rp.OCI, Username: rp.Username, Password: rp.Password, Group: r.group})
		}
	}
}

// loadFile reads file's parts, each rendered (for .gotmpl) with the
// environment the previous parts made, and layers them. Relative paths are
// taken from dir: the file's own, or for a base its including file's.
func (r *loadRun) loadFile(file, dir string, ctxEnv *env, evaluateBases bool) (stateSpec, *env, error) {
	raw, err := r.host.ReadFile(file)
	if err != nil {
		return stateSpec{}, nil, fmt.Errorf("read state file: %w", err)
	}
	content := strings.ReplaceAll(string(raw), "\r\n", "\n")
	parts := strings.Split(content, "\n---\n")
	var final stateSpec
	e := ctxEnv
	line := 0
	for i, part := range parts {
		text := []byte(part)
		if strings.HasSuffix(file, ".gotmpl") {
			data := newEnvData(env{Name: r.opts.Environment})
			if e != nil {
				data = newEnvData(*e)
			}
			rd := renderer{ctx: r.ctx, host: r.host, dir: dir, allowExec: r.opts.AllowExec}
			if text, err = rd.render("stringTemplate", part, data); err != nil {
				return stateSpec{}, nil, templateError(file, line, err)
			}
		}
		layer, err := parseLayer(file, line, text)
		if err != nil {
			return stateSpec{}, nil, err
		}
		if len(layer.Bases) > 0 {
			if !evaluateBases {
				return stateSpec{}, nil, fmt.Errorf("%s: nested `base` helmfile is unsupported", file)
			}
			var merged stateSpec
			for _, b := range layer.Bases {
				base, _, err := r.loadFile(filepath.Join(dir, b), dir, e, false)
				if err != nil {
					return stateSpec{}, nil, err
				}
				merged = mergeLayers(merged, base, true)
			}
			layer.Bases = nil
			layer = mergeLayers(merged, layer, true)
		}
		newEnv, err := r.envValues(dir, layer, e)
		if err != nil {
			return stateSpec{}, nil, err
		}
		if i == 0 {
			final = layer
		} else {
			final = mergeLayers(final, layer, false)
		}
		e = newEnv
		if _, ok := final.Environments[e.Name]; evaluateBases && len(final.Environments) > 0 && e.Name != DefaultEnvironment && !ok {
			return stateSpec{}, nil, fmt.Errorf("failed to read %s: environment %q: %w", file, e.Name, ErrUnknownEnvironment)
		}
		line += strings.Count(part, "\n") + 2
	}
	return final, e, nil
}

// envValues loads the chosen environment's values of a layer over ctxEnv's.
func (r *loadRun) envValues(dir string, layer stateSpec, ctxEnv *env) (*env, error) {
	name := r.opts.Environment
	spec := layer.Environments[name]
	base := env{Name: name}
	if ctxEnv != nil {
		base = *ctxEnv
	}
	vals, err := r.valuesEntries(dir, spec.Values, spec.MissingFileHandler, base)
	if err != nil {
		return nil, err
	}
	// The state's own `values:` are read with the environment so far, as
	// helmfile reads them, and stay under the environment's.
	defaults, err := r.valuesEntries(dir, layer.Values, nil, base)
	if err != nil {
		return nil, err
	}
	e := &env{Name: name, KubeContext: spec.KubeContext, Values: vals, Defaults: defaults}
	if ctxEnv != nil {
		e.Defaults = mergeMaps(ctxEnv.Defaults, defaults)
		e.Values = mergeMaps(ctxEnv.Values, vals)
		if ctxEnv.KubeContext != "" {
			e.KubeContext = ctxEnv.KubeContext
		}
	}
	if r.over != nil {
		e.Values = mergeMaps(e.Values, r.over)
	}
	return e, nil
}

// valuesEntries loads environment values entries: files (globs, rendered
// when .gotmpl with the environment so far) and inline maps.
func (r *loadRun) valuesEntries(dir string, entries []any, handler *string, e env) (map[string]any, error) {
	out := map[string]any{}
	for _, entry := range entries {
		switch v := entry.(type) {
		case string:
			paths, err := r.resolve(dir, "environment values", v, handler)
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				m, err := r.valuesFile(p, e)
				if err != nil {
					return nil, err
				}
				out = mergeMaps(out, m)
			}
		case map[string]any:
			out = mergeMaps(out, v)
		default:
			return nil, fmt.Errorf("environment values: unexpected type of value: value=%v, type=%T", v, v)
		}
	}
	return out, nil
}

func (r *loadRun) valuesFile(path string, e env) (map[string]any, error) {
	b, err := r.renderFile(path, newEnvData(e))
	if err != nil {
		return nil, fmt.Errorf("failed to load environment values file %q: %w", path, err)
	}
	m := map[string]any{}
	if err := yamlv3.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("failed to load environment values file %q: %w", path, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return stringifyKeys(m).(map[string]any), nil
}

// renderFile reads path, rendering it with data when it is a .gotmpl file.
func (r *loadRun) renderFile(path string, data any) ([]byte, error) {
	b, err := r.host.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gotmpl") {
		return b, nil
	}
	rd := renderer{ctx: r.ctx, host: r.host, dir: filepath.Dir(path), allowExec: r.opts.AllowExec}
	out, err := rd.render("stringTemplate", string(b), data)
	if err != nil {
		return nil, templateError(path, 0, err)
	}
	return out, nil
}

// resolve finds the files a values entry names, applying the
// missingFileHandler (Error unless set) when there are none.
func (r *loadRun) resolve(dir, kind, pattern string, handler *string) ([]string, error) {
	p := pattern
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	matches, err := r.host.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("failed processing %s: %w", pattern, err)
	}
	sort.Strings(matches)
	if len(matches) > 0 {
		return matches, nil
	}
	h := "Error"
	if handler != nil {
		h = *handler
	}
	switch h {
	case "Error":
		return nil, fmt.Errorf("%s file matching %q does not exist in %q", kind, pattern, dir)
	case "Warn", "Info":
		r.opts.Log(fmt.Sprintf("skipping missing %s file matching %q", kind, pattern))
		return nil, nil
	case "Debug":
		return nil, nil
	}
	return nil, fmt.Errorf("invalid missing file handler %q while processing %q: it must be one of [Error Warn Info Debug]", h, pattern)
}

// releases resolves a file's releases for environment e.
func (r *loadRun) releases(file string, spec stateSpec, e env) ([]stack.Release, error) {
	dir := filepath.Dir(file)
	var out []stack.Release
	for _, rs := range spec.Releases {
		if rs.Name == "" {
			return nil, fmt.Errorf("%s: a release has no name", rs.source)
		}
		if rs.Chart == "" {
			return nil, fmt.Errorf("%s: release %q has no chart", rs.source, rs.Name)
		}
		rs, err := r.renderRelease(dir, rs, e)
		if err != nil {
			return nil, err
		}
		enabled, err := conditionEnabled(rs.Condition, e.merged())
		if err != nil {
			return nil, fmt.Errorf("%s: failed to parse condition in release %s: %w", rs.source, rs.Name, err)
		}
		rel := stack.Release{
			// helmfile's effective context: the release's, the environment's, helmDefaults'.
			ID:             stack.ID{KubeContext: firstOf(rs.KubeContext, spec.Environments[e.Name].KubeContext, spec.HelmDefaults.KubeContext), Namespace: rs.Namespace, Name: rs.Name},
			Chart:          chartRef(dir, rs.Chart, spec.Repositories),
			ChartAsWritten: filepath.Clean(rs.Chart),
			Version:        rs.Version,
			Needs:          nil,
			Labels:         rs.Labels,
			Installed:      rs.Installed == nil || *rs.Installed,
			Source:         rs.source,
			Group:          r.group,
		}
		for _, n := range rs.Needs {
			rel.Needs = append(rel.Needs, needID(n, rel.ID))
		}
		if !enabled {
			r.disabled[declaredAt(rel)] = true
		}
		rel.CreateNamespace = boolOf(rs.CreateNamespace, spec.HelmDefaults.CreateNamespace, true)
		rel.Wait = boolOf(rs.Wait, &spec.HelmDefaults.Wait, false)
		rel.WaitForJobs = boolOf(rs.WaitForJobs, &spec.HelmDefaults.WaitForJobs, false)
		timeout := spec.HelmDefaults.Timeout
		if rs.Timeout != nil {
			timeout = *rs.Timeout
		}
		rel.Timeout = time.Duration(timeout) * time.Second
		if rel.Values, err = r.releaseValues(dir, rs, e); err != nil {
			return nil, err
		}
		rel.Set = setValues(rs.Set)
		rel.SetString = setValues(rs.SetString)
		out = append(out, rel)
	}
	return out, nil
}

// chartRef joins a local chart's path to the state file's directory; a
// chart of a repository declared as OCI becomes oci://.
func chartRef(dir, chart string, repos []repoSpec) string {
	if strings.Contains(chart, "://") {
		return chart
	}
	if repo, name, ok := strings.Cut(chart, "/"); ok && !strings.HasPrefix(chart, ".") {
		for _, rp := range repos {
			if rp.Name == repo {
				if rp.OCI {
					return "oci://" + strings.TrimSuffix(rp.URL, "/") + "/" + name
				}
				return chart
			}
		}
	}
	if filepath.IsAbs(chart) {
		return chart
	}
	// Kept visibly a path ("./", "../" or "/") so that it never reads as repo/chart.
	p := filepath.Join(dir, chart)
	if filepath.IsAbs(p) || strings.HasPrefix(p, "..") {
		return p
	}
	return "./" + p
}

// IsLocalChart tells a resolved Release.Chart that is a directory or archive
// from repo/chart and oci:// references.
func IsLocalChart(chart string) bool {
	return strings.HasPrefix(chart, "/") || strings.HasPrefix(chart, "./") || strings.HasPrefix(chart, "../")
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func boolOf(release, defaults *bool, def bool) bool {
	switch {
	case release != nil:
		return *release
	case defaults != nil:
		return *defaults
	}
	return def
}

// setValues are set entries as helmfile passes them to helm: name=value with
// braces and commas escaped.
func setValues(in []setSpec) []stack.SetValue {
	var out []stack.SetValue
	for _, s := range in {
		if s.Value == "" {
			continue
		}
		out = append(out, stack.SetValue{Name: escapeSet(s.Name), Value: escapeSet(s.Value)})
	}
	return out
}

func escapeSet(v string) string {
	return strings.NewReplacer("{", `\{`, "}", `\}`, ",", `\,`).Replace(v)
}
