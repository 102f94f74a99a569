package engine

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Helm executes a chart's templates one after another; here they execute
// concurrently, each with the top object Helm's would see at its turn, and give
// Helm's outcome: the output of every template, or the error of the first one in
// Helm's order that fails. That holds while no template changes what the others
// can see (set .Values ..., merge into a values table): a function about to do
// so refuses with errShared instead. The first template in order that does is
// then executed alone, on the objects Helm's would have, and the templates after
// it concurrently again, with what it changed.

// errShared is what a function returns, in a concurrent render, instead of
// changing a map or list that other templates share.
var errShared = errors.New("a template changes a value other templates share")

// maxInOrder is how many templates that change shared values a render executes
// alone before it executes all the rest in order: each costs the concurrent
// work done after it.
const maxInOrder = 8

// workers is how many goroutines, at most maxWorkers, execute n templates: one
// where the render must or need not be concurrent. Lint mode reports through
// Warn in order, and a lookup goes to a cluster whose calls are made one at a
// time as in Helm.
func (e Engine) workers(n, maxWorkers int) int {
	if e.LintMode || e.Lookup != nil {
		return 1
	}
	return min(maxWorkers, n)
}

// outcome is what executing one template gave.
type outcome struct {
	out string
	err error
	// panicked: err is a recovered panic, reported as it is.
	panicked bool
	// written is the bytes the template wrote, the text of its include and
	// tpl calls included, as the budget counts them.
	written int64
}

// executeConcurrently executes jobs on workers goroutines and gives Helm's
// outcome.
func (e Engine) executeConcurrently(t *template.Template, jobs []string, tpls map[string]renderable, m *meter, memo *yamlMemo, workers int) (map[string]string, error) {
	rendered := make(map[string]string, len(jobs))
	start, inOrder := 0, 0
	// done is the bytes the templates before start wrote.
	var done int64
	for start < len(jobs) && inOrder < maxInOrder {
		results, first, err := e.executeSegment(t, jobs, start, tpls, m, memo, workers)
		if err != nil {
			return map[string]string{}, err
		}
		// Bytes written by templates after the first failure (or by several
		// at once) may have pushed the shared count past the limit where
		// Helm's order would not; the templates from start are executed in
		// order then.
		exceeded := m.outExceeded()
		m.out.Store(done)
		if exceeded {
			break
		}
		for i := start; i < first; i++ {
			rendered[jobs[i]] = results[i-start].out
			done += results[i-start].written
		}
		m.out.Store(done)
		if first == len(jobs) {
			return rendered, nil
		}
		r := results[first-start]
		switch {
		case r.panicked:
			return map[string]string{}, r.err
		case !errors.Is(r.err, errShared):
			return map[string]string{}, e.execError(jobs[first], r.err)
		}
		// The template changes shared values: it runs alone, in order.
		inOrder++
		setTemplates(e.Dialect, jobs[:first], tpls)
		out, err := e.executeInOrder(t, jobs[first:first+1], tpls, m)
		if err != nil {
			return out, err
		}
		rendered[jobs[first]] = out[jobs[first]]
		done = m.out.Load()
		start = first + 1
	}
	setTemplates(e.Dialect, jobs[:start], tpls)
	out, err := e.executeInOrder(t, jobs[start:], tpls, m)
	if err != nil {
		return out, err
	}
	maps.Copy(rendered, out)
	return rendered, nil
}

// setTemplates leaves the "Template" entries of the charts' top objects as
// Helm's execution of done leaves them.
func setTemplates(d dialect.Dialect, done []string, tpls map[string]renderable) {
	last := map[*scope]string{}
	for _, name := range done {
		last[tpls[name].scope] = name
	}
	for s, name := range last {
		if s.current != name {
			s.top["Template"] = templateObject(d, name, tpls[name].basePath)
			s.current = name
		}
	}
}

// executeSegment executes jobs[start:] concurrently, longest first, and returns
// their outcomes and first, the index of the first job that failed (len(jobs)
// if none). Every job before first was executed, none after it that was not
// already started.
func (e Engine) executeSegment(t *template.Template, jobs []string, start int, tpls map[string]renderable, m *meter, memo *yamlMemo, workers int) (results []outcome, first int, err error) {
	tops := snapshots(e.Dialect, jobs, start, tpls)
	shared := &sharedSet{maps: map[uintptr]struct{}{}}
	for _, top := range tops {
		shared.add(top)
	}
	results = make([]outcome, len(tops))
	order := longestFirst(jobs[start:], tpls)
	var next, stop atomic.Int64
	stop.Store(int64(len(tops)))
	var wg sync.WaitGroup
	for range min(workers, len(tops)) {
		wt, err := t.Clone()
		if err != nil {
			return nil, 0, fmt.Errorf("cannot clone template: %w", err)
		}
		wm := m.fork()
		e.bindFuncs(wt, wm, memo, shared)
		wg.Go(func() {
			for k := next.Add(1) - 1; k < int64(len(order)); k = next.Add(1) - 1 {
				i := order[k]
				if i >= stop.Load() {
					continue
				}
				results[i] = e.executeOne(wt, wm, jobs[start+int(i)], tops[i])
				if results[i].err != nil {
					lower(&stop, i)
				}
			}
		})
	}
	wg.Wait()
	return results, start + int(stop.Load()), nil
}

// longestFirst orders the indexes of jobs by the length of their templates,
// longest first (then in jobs order): handed out that way, the workers end
// together instead of one executing a long template while the others wait.
func longestFirst(jobs []string, tpls map[string]renderable) []int64 {
	order := make([]int64, len(jobs))
	for i := range order {
		order[i] = int64(i)
	}
	slices.SortStableFunc(order, func(a, b int64) int { return len(tpls[jobs[b]].text) - len(tpls[jobs[a]].text) })
	return order
}

// lower sets v to i if i is smaller.
func lower(v *atomic.Int64, i int64) {
	for {
		cur := v.Load()
		if i >= cur || v.CompareAndSwap(cur, i) {
			return
		}
	}
}

// executeOne executes template name with top.
func (e Engine) executeOne(t *template.Template, m *meter, name string, top map[string]any) (o outcome) {
	before := m.written
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: fmt.Errorf("rendering template failed: %v", r), panicked: true}
		}
	}()
	buf := &writer{m: m}
	if err := t.ExecuteTemplate(buf, name, valuesFor(e.Dialect, top)); err != nil {
		return outcome{err: err}
	}
	return outcome{out: strings.ReplaceAll(buf.buf.String(), "<no value>", ""), written: m.written - before}
}

// snapshots gives each of jobs[start:] the top object Helm's would see at its
// turn. Helm keeps one top object per chart and sets its "Template" entry
// before each of the chart's templates, so a template that reads a subchart's
// entry of .Subcharts sees the .Template of the subchart's template executed
// last before it. Each job gets copies: its chart's top object with its own
// .Template and, in .Subcharts, the subcharts' as the jobs before it left them.
// Copies are shared between jobs that see the same state. The top objects
// hold what the jobs before start left in them.
func snapshots(d dialect.Dialect, jobs []string, start int, tpls map[string]renderable) []map[string]any {
	type state struct {
		template any
		version  int // changes with the template of the scope or of a scope below
	}
	states := map[*scope]*state{}
	stateOf := func(s *scope) *state {
		st := states[s]
		if st == nil {
			st = &state{}
			states[s] = st
		}
		return st
	}
	advance := func(name string) *scope {
		r := tpls[name]
		stateOf(r.scope).template = templateObject(d, name, r.basePath)
		for s := r.scope; s != nil; s = s.parent {
			stateOf(s).version++
		}
		return r.scope
	}
	type key struct {
		s       *scope
		version int
	}
	copies := map[key]map[string]any{}
	var snapshot func(s *scope) map[string]any
	snapshot = func(s *scope) map[string]any {
		st := stateOf(s)
		k := key{s, st.version}
		if c, ok := copies[k]; ok {
			return c
		}
		c := maps.Clone(s.top)
		if st.template != nil {
			c["Template"] = st.template
		}
		subs := make(map[string]any, len(s.subs))
		for name, sub := range s.subs {
			subs[name] = snapshot(sub)
		}
		c["Subcharts"] = subs
		copies[k] = c
		return c
	}
	tops := make([]map[string]any, 0, len(jobs)-start)
	for _, name := range jobs[start:] {
		tops = append(tops, snapshot(advance(name)))
	}
	return tops
}

// sharedSet holds the maps (those a function can change: string keys, any
// values) and the string lists that templates executed concurrently share: all
// that their top objects reach.
type sharedSet struct {
	maps  map[uintptr]struct{}
	lists []span
}

// span is the memory of a list's elements.
type span struct{ start, end uintptr }

var stringsType = reflect.TypeFor[[]string]()

// add adds what v reaches.
func (s *sharedSet) add(v any) {
	walk(v, func(p uintptr, isMap bool, size uintptr) step {
		if !isMap {
			s.lists = append(s.lists, span{p, p + size})
			return descend
		}
		if _, seen := s.maps[p]; seen {
			return skip
		}
		s.maps[p] = struct{}{}
		return descend
	})
}

// hasMap reports whether m is shared.
func (s *sharedSet) hasMap(m map[string]any) bool {
	if m == nil {
		return false
	}
	_, ok := s.maps[reflect.ValueOf(m).Pointer()]
	return ok
}

func (s *sharedSet) inList(p uintptr) bool {
	for _, sp := range s.lists {
		if p >= sp.start && p < sp.end {
			return true
		}
	}
	return false
}

// hasList reports whether l's elements are (in) a shared list.
func (s *sharedSet) hasList(l []string) bool {
	if cap(l) == 0 {
		return false
	}
	return s.inList(reflect.ValueOf(l).Pointer())
}

// reaches reports whether v reaches a shared map or list.
func (s *sharedSet) reaches(v any) bool {
	found := false
	walk(v, func(p uintptr, isMap bool, _ uintptr) step {
		if _, ok := s.maps[p]; (isMap && ok) || (!isMap && s.inList(p)) {
			found = true
			return stopWalk
		}
		return descend
	})
	return found
}

// step is what walk does after a visit.
type step int

const (
	descend step = iota
	skip         // the map's values
	stopWalk
)

// walk calls visit for every changeable map (isMap) and non-empty []string
// (size: the bytes of its capacity) that v reaches through maps, lists,
// pointers, interfaces and struct fields.
func walk(v any, visit func(p uintptr, isMap bool, size uintptr) step) {
	stack := []reflect.Value{reflect.ValueOf(v)}
	pointers := map[uintptr]struct{}{}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				stack = append(stack, v.Elem())
			}
		case reflect.Pointer:
			if v.IsNil() {
				continue
			}
			if _, seen := pointers[v.Pointer()]; seen {
				continue
			}
			pointers[v.Pointer()] = struct{}{}
			stack = append(stack, v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if holdsReferences(v.Type().Field(i).Type.Kind()) {
					stack = append(stack, v.Field(i))
				}
			}
		case reflect.Map:
			if v.IsNil() {
				continue
			}
			t := v.Type()
			if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Interface {
				switch visit(v.Pointer(), true, 0) {
				case skip:
					continue
				case stopWalk:
					return
				}
			}
			if holdsReferences(t.Elem().Kind()) {
				for it := v.MapRange(); it.Next(); {
					stack = append(stack, it.Value())
				}
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.Type() == stringsType && v.Cap() > 0 {
				if visit(v.Pointer(), false, uintptr(v.Cap())*stringsType.Elem().Size()) == stopWalk {
					return
				}
			}
			if holdsReferences(v.Type().Elem().Kind()) {
				for i := range v.Len() {
					stack = append(stack, v.Index(i))
				}
			}
		}
	}
}

// holdsReferences reports whether a value of kind k can lead to a map or list.
func holdsReferences(k reflect.Kind) bool {
	switch k {
	case reflect.Interface, reflect.Pointer, reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		return true
	}
	return false
}

// guardMutations replaces the functions that change a map or list in place
// (set, unset, the merge family, sortAlpha of a []string) with ones that refuse,
// with errShared, to change what shared holds.
func guardMutations(f template.FuncMap, shared *sharedSet) {
	set := f["set"].(func(map[string]any, string, any) map[string]any)
	f["set"] = func(d map[string]any, key string, value any) (map[string]any, error) {
		if shared.hasMap(d) {
			return nil, errShared
		}
		return set(d, key, value), nil
	}
	unset := f["unset"].(func(map[string]any, string) map[string]any)
	f["unset"] = func(d map[string]any, key string) (map[string]any, error) {
		if shared.hasMap(d) {
			return nil, errShared
		}
		return unset(d, key), nil
	}
	// A merge writes into the maps of dst, which after the first source may
	// be the source's own: each source is merged on its own, after a look at
	// what dst then reaches.
	for _, name := range []string{"merge", "mergeOverwrite"} {
		merge := f[name].(func(map[string]any, ...map[string]any) any)
		f[name] = func(dst map[string]any, srcs ...map[string]any) (any, error) {
			var out any = dst
			for _, src := range srcs {
				if shared.reaches(dst) {
					return nil, errShared
				}
				out = merge(dst, src)
				m, ok := out.(map[string]any)
				if !ok {
					return out, nil
				}
				dst = m
			}
			return out, nil
		}
	}
	for _, name := range []string{"mustMerge", "mustMergeOverwrite"} {
		merge := f[name].(func(map[string]any, ...map[string]any) (any, error))
		f[name] = func(dst map[string]any, srcs ...map[string]any) (any, error) {
			var out any = dst
			for _, src := range srcs {
				if shared.reaches(dst) {
					return nil, errShared
				}
				var err error
				if out, err = merge(dst, src); err != nil {
					return out, err
				}
				m, ok := out.(map[string]any)
				if !ok {
					return out, nil
				}
				dst = m
			}
			return out, nil
		}
	}
	sortAlpha := f["sortAlpha"].(func(any) []string)
	f["sortAlpha"] = func(list any) ([]string, error) {
		// sprig sorts a []string in place.
		if l, ok := list.([]string); ok && shared.hasList(l) {
			return nil, errShared
		}
		return sortAlpha(list), nil
	}
}
