// Package engine renders chart templates with Go's text/template, sprig and Helm's
// own functions, giving each template the objects Helm gives it (.Values, .Release,
// .Chart, .Capabilities, .Files, .Template, .Subcharts) and Helm's error texts.
package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"text/template/parse"

	"github.com/Masterminds/sprig/v3"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	helm3chart "github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chartutil"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/common"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/tmplparse"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// LookupFunc reads a live object (or, with an empty name, a list) for the lookup
// template function. It returns an empty map when the object does not exist.
type LookupFunc func(apiVersion, kind, namespace, name string) (map[string]any, error)

// Engine renders charts. The zero value renders like `helm template`: no cluster
// (lookup returns empty maps) and no DNS.
type Engine struct {
	// Strict makes a missing map key an error instead of an empty value.
	Strict bool
	// LintMode turns required and fail into no-ops that report through Warn.
	LintMode bool
	// EnableDNS lets getHostByName resolve names.
	EnableDNS bool
	// Lookup answers the lookup function; nil means no cluster.
	Lookup LookupFunc
	// Warn receives lint-mode reports; may be nil.
	Warn func(format string, args ...any)
	// Dialect selects the Helm release whose template functions, .Chart object and
	// error texts templates get (the zero value is Helm 3).
	Dialect dialect.Dialect
	// Budget bounds the render; its zero value is DefaultBudget's limits.
	Budget Budget
	// unmetered renders without the budget, for tests to measure its cost.
	unmetered bool
}

// rootName is the name of the template set. tpl parses its text under this name, so
// errors inside tpl strings read "template: gotpl:...", as in Helm.
const rootName = "gotpl"

// includeDepthLimit stops runaway recursion through include and tpl.
const includeDepthLimit = 1000

// Error markers let required and fail messages pass through text/template's error
// wrapping intact.
const (
	warnStart = "HELM_ERR_START"
	warnEnd   = "HELM_ERR_END"
)

var warnPattern = regexp.MustCompile(warnStart + `((?s).*)` + warnEnd)

type renderable struct {
	text     string
	scope    *scope
	basePath string
}

// scope is one chart of the tree as its templates see it: top is the object
// they are executed with (Helm's one map per chart, whose "Template" entry is
// set anew before each template of the chart), subs the scopes of its
// .Subcharts.
type scope struct {
	top    map[string]any
	subs   map[string]*scope
	parent *scope
	// current is the template whose .Template top holds.
	current string
}

// Render executes every template of the chart tree with top, the object built by
// RenderValues, and returns the output by template path ("chart/templates/x.yaml").
// Partials (names starting with "_") are parsed but not part of the output.
func (e Engine) Render(ch *chart.Chart, top values.Values) (map[string]string, error) {
	return e.RenderContext(context.Background(), ch, top)
}

// RenderContext is Render that stops, with ctx's error, when ctx ends.
func (e Engine) RenderContext(ctx context.Context, ch *chart.Chart, top values.Values) (map[string]string, error) {
	return e.render(ctx, ch, top, runtime.GOMAXPROCS(0))
}

// render executes the templates on at most maxWorkers goroutines.
func (e Engine) render(ctx context.Context, ch *chart.Chart, top values.Values, maxWorkers int) (rendered map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	tpls := map[string]renderable{}
	collectTemplates(ch, tpls, top, nil, e.Dialect)

	t := template.New(rootName)
	e.setMissingKey(t)
	m := newMeter(ctx, e.Budget)
	m.off = e.unmetered
	memo := newYAMLMemo()
	funcs := e.bindFuncs(t, m, memo, nil)

	names := sortedByPathDepth(tpls)
	if err := parseAll(t, names, tpls, parseFuncNames(funcs), m); err != nil {
		return map[string]string{}, err
	}
	jobs := make([]string, 0, len(names))
	for _, name := range names {
		if !strings.HasPrefix(path.Base(name), "_") {
			jobs = append(jobs, name)
		}
	}
	if workers := e.workers(len(jobs), maxWorkers); workers > 1 {
		return e.executeConcurrently(t, jobs, tpls, m, memo, workers)
	}
	return e.executeInOrder(t, jobs, tpls, m)
}

// executeInOrder executes the templates one after another, as Helm does.
func (e Engine) executeInOrder(t *template.Template, jobs []string, tpls map[string]renderable, m *meter) (map[string]string, error) {
	rendered := make(map[string]string, len(jobs))
	buf := &writer{m: m}
	for _, name := range jobs {
		r := tpls[name]
		r.scope.top["Template"] = templateObject(e.Dialect, name, r.basePath)
		r.scope.current = name
		buf.buf.Reset()
		if err := t.ExecuteTemplate(buf, name, valuesFor(e.Dialect, r.scope.top)); err != nil {
			return map[string]string{}, e.execError(name, err)
		}
		rendered[name] = strings.ReplaceAll(buf.buf.String(), "<no value>", "")
	}
	return rendered, nil
}

// execError is the error a failed execution of template name reports.
func (e Engine) execError(name string, err error) error {
	if stop := budgetStop(name, err); stop != nil {
		return stop
	}
	if e.Dialect.IsHelm4() {
		return traceExecError(name, err)
	}
	return cleanupExecError(name, err)
}

// templateObject is .Template for template name.
func templateObject(d dialect.Dialect, name, basePath string) any {
	return valuesFor(d, map[string]any{"Name": name, "BasePath": basePath})
}

// parseAll parses every template into t. Files are parsed concurrently (parsing is
// a large part of rendering big charts) and their trees added in names order, as
// t.New(name).Parse would, so later files' definitions win and the first bad file
// in that order is the one reported.
func parseAll(t *template.Template, names []string, tpls map[string]renderable, known map[string]any, m *meter) error {
	results := make([]parsed, len(names))
	workers := min(runtime.GOMAXPROCS(0), len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) {
					return
				}
				results[i].trees, results[i].err = tmplparse.Parse(names[i], tpls[names[i]].text, known)
				for _, tree := range results[i].trees {
					prepareTree(tree, m, known)
				}
			}
		})
	}
	wg.Wait()
	for i, name := range names {
		if results[i].err != nil {
			return cleanupParseError(name, results[i].err)
		}
		// Within one file the order does not matter: a file cannot define a name twice.
		for treeName, tree := range results[i].trees {
			if _, err := t.AddParseTree(treeName, tree); err != nil {
				return cleanupParseError(name, err)
			}
		}
	}
	return nil
}

type parsed struct {
	trees map[string]*parse.Tree
	err   error
}

// parseFuncNames are the function names a template may call: text/template's
// built-ins and the engine's functions. Parsing only checks that names exist.
func parseFuncNames(funcs template.FuncMap) map[string]any {
	known := make(map[string]any, len(funcs)+20)
	for _, b := range []string{"and", "call", "html", "index", "slice", "js", "len", "not", "or",
		"print", "printf", "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne"} {
		known[b] = true
	}
	for name, fn := range funcs {
		known[name] = fn
	}
	// guardActions adds the calls of outputGuard; templates cannot call it.
	delete(known, outputGuard)
	return known
}

func (e Engine) setMissingKey(t *template.Template) {
	if e.Strict {
		t.Option("missingkey=error")
	} else {
		t.Option("missingkey=zero")
	}
}

func (e Engine) warnf(format string, args ...any) {
	if e.Warn != nil {
		e.Warn(format, args...)
	}
}

// bindFuncs gives t the engine's functions, bound to the meter and memo of the
// render (m: of the goroutine that executes t). With shared set, the functions
// that change a map or list in place refuse to change one of shared.
func (e Engine) bindFuncs(t *template.Template, m *meter, memo *yamlMemo, shared *sharedSet) template.FuncMap {
	funcs := baseFuncs()
	if e.Dialect.IsHelm4() {
		maps.Copy(funcs, helm4Funcs())
	}
	if !m.off {
		meterFuncs(funcs, m)
	}
	funcs["semverCompare"] = memoSemverCompare(funcs["semverCompare"].(func(string, string) (bool, error)))
	if shared != nil {
		guardMutations(funcs, shared)
	}
	guardPrinting(funcs, m)
	funcs["fromYaml"] = memo.fromYAML
	depth := map[string]int{}
	// known is filled once funcs is complete: tpl parses with it.
	known := new(map[string]any)
	funcs["include"] = e.includeFunc(t, depth, m)
	funcs["tpl"] = e.tplFunc(t, depth, m, known)
	funcs["required"] = func(msg string, val any) (any, error) {
		if s, isString := val.(string); val == nil || (isString && s == "") {
			if e.LintMode {
				e.warnf("[INFO] Missing required value: %s", msg)
				return "", nil
			}
			return val, errors.New(warnStart + msg + warnEnd)
		}
		return val, nil
	}
	funcs["fail"] = func(msg string) (string, error) {
		if e.LintMode {
			e.warnf("[INFO] Fail: %s", msg)
			return "", nil
		}
		return "", errors.New(warnStart + msg + warnEnd)
	}
	funcs["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]any, error) {
		if e.Lookup == nil || e.LintMode {
			return map[string]any{}, nil
		}
		return e.Lookup(apiVersion, kind, namespace, name)
	}
	if e.EnableDNS {
		funcs["getHostByName"] = sprig.TxtFuncMap()["getHostByName"]
	} else {
		funcs["getHostByName"] = func(string) string { return "" }
	}
	t.Funcs(funcs)
	*known = parseFuncNames(funcs)
	return funcs
}

func (e Engine) includeFunc(t *template.Template, depth map[string]int, m *meter) func(string, any) (string, error) {
	return func(name string, data any) (string, error) {
		if depth[name] > includeDepthLimit {
			return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
		}
		if err := m.enter("include"); err != nil {
			return "", err
		}
		depth[name]++
		defer func() { depth[name]--; m.leave() }()
		buf := &writer{m: m}
		if err := t.ExecuteTemplate(buf, name, data); err != nil {
			return buf.buf.String(), bare(err)
		}
		return buf.buf.String(), nil
	}
}

// tplFunc renders a string as a template with every defined template available.
// known names the functions a template may call.
func (e Engine) tplFunc(parent *template.Template, depth map[string]int, m *meter, known *map[string]any) func(string, any) (string, error) {
	return func(text string, data any) (string, error) {
		if err := m.enter("tpl"); err != nil {
			return "", err
		}
		defer m.leave()
		t, err := e.tplTemplate(parent, depth, m, known, text)
		if err != nil {
			return "", err
		}
		buf := &writer{m: m}
		if err := t.Execute(buf, data); err != nil {
			if cause := stopCause(err); cause != nil {
				return "", cause
			}
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(buf.buf.String(), "<no value>", ""), nil
	}
}

// tplTemplate is text parsed as a template of parent's set, under parent's name.
// Templates that text defines stay local to it: such text is parsed into a clone
// of the set. Text that defines none and cannot call the template it replaces
// (most) is executed on the set itself, without being added to it, which saves
// the clone.
func (e Engine) tplTemplate(parent *template.Template, depth map[string]int, m *meter, known *map[string]any, text string) (*template.Template, error) {
	if !strings.Contains(text, parent.Name()) {
		trees, err := tmplparse.Parse(parent.Name(), text, *known)
		if err != nil {
			return nil, fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		if tree := trees[parent.Name()]; len(trees) == 1 && tree != nil && !includesByValue(tree.Root) {
			prepareTree(tree, m, *known)
			t := parent.New(parent.Name())
			e.setMissingKey(t)
			t.Tree = tree
			return t, nil
		}
	}
	t, err := parent.Clone()
	if err != nil {
		return nil, fmt.Errorf("cannot clone template: %w", err)
	}
	e.setMissingKey(t)
	t.Funcs(template.FuncMap{
		"include": e.includeFunc(t, depth, m),
		"tpl":     e.tplFunc(t, depth, m, known),
	})
	t, err = t.New(parent.Name()).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("cannot parse template %q: %w", text, err)
	}
	prepareNewTrees(t, parent, m, *known)
	return t, nil
}

// includesByValue reports whether n calls include with a name that is not a
// string in the text, which might name any template.
func includesByValue(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return false
		}
		return slices.ContainsFunc(n.Nodes, includesByValue)
	case *parse.ActionNode:
		return includesByValue(n.Pipe)
	case *parse.IfNode:
		return includesByValue(&n.BranchNode)
	case *parse.RangeNode:
		return includesByValue(&n.BranchNode)
	case *parse.WithNode:
		return includesByValue(&n.BranchNode)
	case *parse.BranchNode:
		return includesByValue(n.Pipe) || includesByValue(n.List) || includesByValue(n.ElseList)
	case *parse.TemplateNode:
		return includesByValue(n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return false
		}
		for _, c := range n.Cmds {
			if id, ok := c.Args[0].(*parse.IdentifierNode); ok && id.Ident == "include" {
				if len(c.Args) < 2 {
					return true
				}
				if _, literal := c.Args[1].(*parse.StringNode); !literal {
					return true
				}
			}
			if slices.ContainsFunc(c.Args, includesByValue) {
				return true
			}
		}
	case *parse.ChainNode:
		return includesByValue(n.Node)
	}
	return false
}

// chartObject is .Chart in the Helm 3 dialect: the metadata plus whether the chart
// is the root, as Helm 3's anonymous struct (typeOf reads "struct { chart.Metadata;
// IsRoot bool }"), of Helm 3's metadata types.
type chartObject = struct {
	helm3chart.Metadata
	IsRoot bool
}

// collectTemplates gathers the templates of a chart tree with the scope each one
// is executed in and returns the chart's scope (its top object is the chart's
// .Subcharts entry in its parent).
func collectTemplates(ch *chart.Chart, out map[string]renderable, parent map[string]any, parentScope *scope, d dialect.Dialect) *scope {
	subcharts := map[string]any{}
	var chartObj any = chartObject{Metadata: helm3chart.FromMetadata(ch.Metadata), IsRoot: ch.IsRoot()}
	if d.IsHelm4() {
		chartObj = chartMap(ch.Metadata, ch.IsRoot())
	}
	next := map[string]any{
		"Chart":        chartObj,
		"Files":        NewFiles(ch.Files),
		"Release":      parent["Release"],
		"Capabilities": parent["Capabilities"],
		"Values":       valuesFor(d, map[string]any{}),
		"Subcharts":    subcharts,
	}
	if ch.IsRoot() {
		next["Values"] = valuesFor(d, asMap(parent["Values"]))
	} else if vs, err := values.Values(asMap(parent["Values"])).Table(ch.Name()); err == nil {
		next["Values"] = valuesFor(d, vs)
	}
	s := &scope{top: next, subs: map[string]*scope{}, parent: parentScope}
	for _, sub := range ch.Dependencies() {
		subScope := collectTemplates(sub, out, next, s, d)
		subcharts[sub.Name()] = subScope.top
		s.subs[sub.Name()] = subScope
	}
	prefix := ch.ChartFullPath()
	for _, f := range ch.Templates {
		if f == nil || (ch.IsLibrary() && !strings.HasPrefix(path.Base(f.Name), "_")) {
			continue
		}
		out[path.Join(prefix, f.Name)] = renderable{
			text:     string(f.Data),
			scope:    s,
			basePath: path.Join(prefix, "templates"),
		}
	}
	return s
}

// sortedByPathDepth orders templates deepest path first, then by name descending,
// so that a parent chart's definitions are parsed last and win over a subchart's.
func sortedByPathDepth(tpls map[string]renderable) []string {
	names := make([]string, 0, len(tpls))
	for n := range tpls {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		di, dj := strings.Count(names[i], "/"), strings.Count(names[j], "/")
		if di != dj {
			return di > dj
		}
		return names[i] > names[j]
	})
	return names
}

func cleanupParseError(name string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", tokens[1], tokens[len(tokens)-1])
}

// cleanupExecError shortens the messages of required and fail to
// "execution error at (file:line:col): message"; other errors pass unchanged.
func cleanupExecError(name string, err error) error {
	var execErr template.ExecError
	if !errors.As(err, &execErr) {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	if m := warnPattern.FindStringSubmatch(tokens[2]); len(m) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], m[1])
	}
	return err
}

// valuesFor is a values table under the type name the dialect's Helm gives it
// (chartutil.Values, common.Values), which typeOf and template type errors show.
func valuesFor(d dialect.Dialect, m map[string]any) any {
	if d.IsHelm4() {
		return common.Values(m)
	}
	return chartutil.Values(m)
}

// asMap is a values table of any of the types it takes, as a plain map.
func asMap(v any) map[string]any {
	switch t := v.(type) {
	case values.Values:
		return t
	case chartutil.Values:
		return t
	case common.Values:
		return t
	case map[string]any:
		return t
	}
	return nil
}
