package engine

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chartutil"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/common"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// Nesting bounds of the serialising functions. Encoders recurse once per level of
// nesting, so a value that contains itself (set $d "self" $d) or that a loop nested
// a million deep would overflow the goroutine stack, a crash no recover catches.
const (
	// yamlMaxDepth is Helm's rule for toYaml: it re-parses its JSON with a YAML
	// parser that refuses more than 10,000 nested maps and lists.
	yamlMaxDepth = 10000
	// encodeMaxDepth bounds toJson and the other encoders, far beyond any chart
	// and far below a stack overflow.
	encodeMaxDepth = 100000
)

// ErrTooDeep is the error of a serialising function given a value nested deeper
// than it encodes; a value that contains itself gives a *json.UnsupportedValueError
// instead, as Helm's encoders report it.
var ErrTooDeep = errors.New("exceeded max depth")

// checkNesting returns nil when v nests at most limit maps and lists, and
// otherwise the error an encoder reports for it. It walks without recursion and
// only when the value holds containers.
func checkNesting(v any, limit int) error {
	if !isContainer(v) || !deeperThan(v, limit) {
		return nil
	}
	if via, ok := cycleVia(v); ok {
		return fmt.Errorf("json: unsupported value: encountered a cycle via %s", via)
	}
	return fmt.Errorf("%w of %d", ErrTooDeep, limit)
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any, values.Values, chartutil.Values, common.Values:
		return true
	}
	return false
}

// children calls visit with each map or list directly inside v.
func children(v any, visit func(any)) {
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			if isContainer(x) {
				visit(x)
			}
		}
	case values.Values:
		children(map[string]any(t), visit)
	case chartutil.Values:
		children(map[string]any(t), visit)
	case common.Values:
		children(map[string]any(t), visit)
	case []any:
		for _, x := range t {
			if isContainer(x) {
				visit(x)
			}
		}
	}
}

// deeperThan reports whether more than limit containers nest in v (v counts).
func deeperThan(v any, limit int) bool {
	type item struct {
		v     any
		depth int
	}
	stack := []item{{v, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > limit {
			return true
		}
		children(it.v, func(x any) { stack = append(stack, item{x, it.depth + 1}) })
	}
	return false
}

// cycleVia reports whether v contains itself, and the type of the container that
// closes the cycle. Depth-first, without recursion: a container counts as a cycle
// only when it is met again on the path that leads to it. A container whose
// walk ended is not walked again, so a value holding one map many times costs
// its distinct maps and lists, not its size as a tree. One stack entry of two
// words per pending container and one map entry per container visited keep a
// million-deep chain to tens of megabytes.
func cycleVia(v any) (string, bool) {
	type entry struct {
		v    any
		exit bool // the walk below v has ended
	}
	const (
		onPath uint8 = iota + 1
		done
	)
	state := map[identity]uint8{}
	stack := []entry{{v: v}}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		id := identityOf(e.v)
		if e.exit {
			state[id] = done
			continue
		}
		if id.ptr != 0 {
			switch state[id] {
			case onPath:
				return reflect.TypeOf(e.v).String(), true
			case done:
				continue
			}
			state[id] = onPath
			stack = append(stack, entry{v: e.v, exit: true})
		}
		children(e.v, func(c any) { stack = append(stack, entry{v: c}) })
	}
	return "", false
}

// identity tells containers apart: a map by its pointer, a list by where its
// elements start and how many it holds (lists may share their elements).
type identity struct {
	ptr uintptr
	n   int
}

func identityOf(x any) identity {
	rv := reflect.ValueOf(x)
	id := identity{ptr: rv.Pointer()}
	if rv.Kind() == reflect.Slice {
		id.n = rv.Len()
	}
	return id
}

// guardSprigEncoders bounds the nesting of what sprig's JSON encoders and deep
// copy are given. Each keeps its way of failing: an empty string, or an error
// where it would panic or return one.
func guardSprigEncoders(f map[string]any) {
	toPretty := f["toPrettyJson"].(func(any) string)
	f["toPrettyJson"] = func(v any) string {
		if checkNesting(v, encodeMaxDepth) != nil {
			return ""
		}
		return toPretty(v)
	}
	for _, name := range []string{"mustToJson", "mustToPrettyJson", "mustToRawJson"} {
		fn := f[name].(func(any) (string, error))
		f[name] = func(v any) (string, error) {
			if err := checkNesting(v, encodeMaxDepth); err != nil {
				return "", err
			}
			return fn(v)
		}
	}
	f["toRawJson"] = f["mustToRawJson"]
	copyFn := f["mustDeepCopy"].(func(any) (any, error))
	mustDeepCopy := func(v any) (any, error) {
		if err := checkNesting(v, encodeMaxDepth); err != nil {
			return nil, err
		}
		return copyFn(v)
	}
	f["mustDeepCopy"] = mustDeepCopy
	f["deepCopy"] = func(v any) (any, error) {
		c, err := mustDeepCopy(v)
		if err != nil {
			return nil, fmt.Errorf("deepCopy error: %w", err)
		}
		return c, nil
	}
}
