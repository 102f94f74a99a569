package engine

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// Printing a value with fmt (an action's output, print, toString, the error
// text of int ...) and encoding it recurse once per level of nesting and take
// time in its size as a tree: a value that contains itself (set $d "self" $d)
// overflows the goroutine stack, a crash no recover catches, and a value that
// holds one map twice at each of 60 levels would take 2^60 steps. Helm does
// both. The engine walks a value before such a function gets it, refusing a
// cycle and holding the size to the budget.

// cycleCheckDepth is the nesting past which a walk looks for a cycle: no chart
// nests values that deep, so a walk of an ordinary value never looks.
const cycleCheckDepth = 1000

// UnprintableError is a value a function cannot print: one that contains
// itself, or nests deeper than encodeMaxDepth.
type UnprintableError struct {
	// Fn is the function that was given the value, or "output" for an
	// action's own output.
	Fn  string
	Err error
}

func (e *UnprintableError) Error() string { return e.Fn + ": " + e.Err.Error() }

func (e *UnprintableError) Unwrap() error { return e.Err }

// errCycle is the error of a value that contains itself.
var errCycle = errors.New("value contains itself")

// shape is what a walk found: a value of bounded size, one that contains
// itself, or one nested deeper than encodeMaxDepth.
type shape int

const (
	shapeTree shape = iota
	shapeCycle
	shapeTooDeep
)

// walkValue walks v as fmt and the encoders would, as a tree, counting a lower
// bound of the bytes they write for it against the budget (a step per map or
// list) for function fn. It stops at the budget, at a cycle, and past
// encodeMaxDepth. A value without maps or lists costs a type switch.
func (m *meter) walkValue(fn string, v any) (shape, string, error) {
	if !isContainer(v) {
		return shapeTree, "", nil
	}
	type item struct {
		v     any
		depth int
	}
	var small [16]item
	stack := append(small[:0], item{v, 1})
	var n int64
	looked := false
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > cycleCheckDepth && !looked {
			looked = true
			if via, ok := cycleVia(v); ok {
				return shapeCycle, via, nil
			}
		}
		if it.depth > encodeMaxDepth {
			return shapeTooDeep, "", nil
		}
		n++
		if l, ok := it.v.([]any); ok {
			for _, x := range l {
				// A separator: " " (fmt), "," (JSON), "- " (YAML).
				n++
				if isContainer(x) {
					stack = append(stack, item{x, it.depth + 1})
				} else {
					n += scalarBytes(x)
				}
			}
		} else {
			for k, x := range asMap(it.v) {
				// The key, ":" and a separator.
				n += int64(len(k)) + 2
				if isContainer(x) {
					stack = append(stack, item{x, it.depth + 1})
				} else {
					n += scalarBytes(x)
				}
			}
		}
		if m.off {
			continue
		}
		if n > m.budget.MaxValueBytes {
			return shapeTree, "", &BudgetError{Limit: LimitValueBytes,
				What: fmt.Sprintf("%s would build a value of more than %d bytes", fn, m.budget.MaxValueBytes)}
		}
		if err := m.step(); err != nil {
			return shapeTree, "", err
		}
	}
	return shapeTree, "", nil
}

// scalarBytes is a lower bound of the bytes a value that is not a map or list
// prints as.
func scalarBytes(x any) int64 {
	if s, ok := x.(string); ok {
		return int64(len(s))
	}
	return 1
}

// printable returns nil when fmt can print v, and otherwise why not.
func (m *meter) printable(fn string, v any) error {
	s, via, err := m.walkValue(fn, v)
	switch {
	case err != nil:
		return err
	case s == shapeCycle:
		return &UnprintableError{Fn: fn, Err: fmt.Errorf("%w (a cycle via %s)", errCycle, via)}
	case s == shapeTooDeep:
		return &UnprintableError{Fn: fn, Err: fmt.Errorf("%w of %d", ErrTooDeep, encodeMaxDepth)}
	}
	return nil
}

// sized returns nil when an encoder may be given v: one within the budget, or
// one it refuses itself (a cycle, too deep) in its own way, as Helm's does.
func (m *meter) sized(fn string, v any) error {
	_, _, err := m.walkValue(fn, v)
	return err
}

// fmtFuncs print their arguments with fmt, directly or in an error text they
// build (sprig's numeric conversions cast with "%#v" and discard the error),
// or copy or merge them as deep as they nest.
var fmtFuncs = []string{
	"print", "println", "html", "js", "urlquery",
	"toString", "toStrings", "cat", "quote", "squote", "join", "sortAlpha",
	"int", "int64", "float64", "toDecimal", "add", "add1", "sub", "div", "mod", "mul",
	"max", "min", "biggest", "maxf", "minf", "addf", "add1f", "subf", "divf", "mulf",
	"round", "ceil", "floor", "slice", "mustSlice",
}

// encodeFuncs are the serialising functions, which refuse a cycle their own way.
var encodeFuncs = []string{
	"toYaml", "toYamlPretty", "mustToYaml", "toJson", "mustToJson", "toPrettyJson",
	"mustToPrettyJson", "toRawJson", "mustToRawJson", "deepCopy", "mustDeepCopy",
	"toToml", "mustToToml",
}

// outputGuard is the function guardActions calls on what an action prints.
const outputGuard = "_output"

// guardPrinting replaces the functions that print, encode or copy a value as
// deep as it nests with ones that first walk their arguments (printable or
// sized), and adds outputGuard.
func guardPrinting(f template.FuncMap, m *meter) {
	builtins := map[string]any{
		"print": fmt.Sprint, "printf": fmt.Sprintf, "println": fmt.Sprintln,
		"html": template.HTMLEscaper, "js": template.JSEscaper, "urlquery": template.URLQueryEscaper,
	}
	wrap := func(names []string, check func(string, any) error) {
		for _, name := range names {
			fn, ok := f[name]
			if !ok {
				fn, ok = builtins[name]
			}
			if ok {
				f[name] = checked(name, fn, check)
			}
		}
	}
	wrap(fmtFuncs, m.printable)
	wrap(encodeFuncs, m.sized)
	// printf "%T" prints no value.
	f["printf"] = func(format string, v ...any) (string, error) {
		for i, printed := range valuesPrinted(format, len(v)) {
			if printed {
				if err := m.printable("printf", v[i]); err != nil {
					return "", err
				}
			}
		}
		return fmt.Sprintf(format, v...), nil
	}
	// dict prints its keys.
	dict := f["dict"].(func(...any) map[string]any)
	f["dict"] = func(v ...any) (map[string]any, error) {
		for i := 0; i < len(v); i += 2 {
			if err := m.printable("dict", v[i]); err != nil {
				return nil, err
			}
		}
		return dict(v...), nil
	}
	// The guard takes and returns the reflect.Value itself: an addressable
	// value (a field of .Capabilities) stays addressable, so that text/template
	// prints it with its pointer's String method, as Helm does
	// ({{ .Capabilities.KubeVersion }} is v1.37.0, not its fields).
	f[outputGuard] = func(v reflect.Value) (reflect.Value, error) {
		if !v.IsValid() || !v.CanInterface() {
			return v, nil
		}
		if err := m.printable("output", v.Interface()); err != nil {
			return reflect.Value{}, err
		}
		return v, nil
	}
}

// valuesPrinted reports which of n arguments fmt.Sprintf(format, ...) prints
// the value of: all but those only a %T or %p verb takes. An indexed verb
// (%[1]v) makes it report all.
func valuesPrinted(format string, n int) []bool {
	printed := make([]bool, n)
	arg := 0
	take := func(value bool) {
		if arg < n {
			printed[arg] = value
		}
		arg++
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for ; j < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[j]) >= 0; j++ {
			switch format[j] {
			case '[':
				for k := range printed {
					printed[k] = true
				}
				return printed
			case '*':
				take(true)
			}
		}
		if j == len(format) {
			break
		}
		switch format[j] {
		case '%':
		case 'T', 'p':
			take(false)
		default:
			take(true)
		}
		i = j
	}
	// fmt prints the arguments no verb takes: %!(EXTRA type=value).
	for ; arg < n; arg++ {
		printed[arg] = true
	}
	return printed
}

// checked is fn, with the same signature plus an error, calling check on
// each argument first. The common signatures are wrapped directly, as cheap as
// a call; the others through reflection.
func checked(name string, fn any, check func(string, any) error) any {
	switch fn := fn.(type) {
	case func(any) string:
		return checked1(name, fn, check)
	case func(any) int:
		return checked1(name, fn, check)
	case func(any) int64:
		return checked1(name, fn, check)
	case func(any) float64:
		return checked1(name, fn, check)
	case func(...any) string:
		return checkedN(name, fn, check)
	case func(...any) int64:
		return checkedN(name, fn, check)
	case func(any, any) int64:
		return func(a, b any) (int64, error) {
			if err := checkAll(name, check, a, b); err != nil {
				return 0, err
			}
			return fn(a, b), nil
		}
	}
	return checkedFunc(name, fn, check)
}

func checked1[T any](name string, fn func(any) T, check func(string, any) error) func(any) (T, error) {
	return func(v any) (T, error) {
		if err := check(name, v); err != nil {
			var zero T
			return zero, err
		}
		return fn(v), nil
	}
}

func checkedN[T any](name string, fn func(...any) T, check func(string, any) error) func(...any) (T, error) {
	return func(v ...any) (T, error) {
		if err := checkAll(name, check, v...); err != nil {
			var zero T
			return zero, err
		}
		return fn(v...), nil
	}
}

func checkAll(name string, check func(string, any) error, v ...any) error {
	for _, x := range v {
		if err := check(name, x); err != nil {
			return err
		}
	}
	return nil
}

// checkedFunc is checked through reflection.
func checkedFunc(name string, fn any, check func(string, any) error) any {
	fv := reflect.ValueOf(fn)
	ft := fv.Type()
	in := make([]reflect.Type, ft.NumIn())
	for i := range in {
		in[i] = ft.In(i)
	}
	out := make([]reflect.Type, 0, ft.NumOut()+1)
	for i := range ft.NumOut() {
		out = append(out, ft.Out(i))
	}
	returnsErr := ft.NumOut() > 0 && ft.Out(ft.NumOut()-1) == errorType
	if !returnsErr {
		out = append(out, errorType)
	}
	wt := reflect.FuncOf(in, out, ft.IsVariadic())
	return reflect.MakeFunc(wt, func(args []reflect.Value) []reflect.Value {
		if err := checkArgs(name, args, ft.IsVariadic(), check); err != nil {
			res := make([]reflect.Value, len(out))
			for i, t := range out {
				res[i] = reflect.Zero(t)
			}
			res[len(res)-1] = reflect.ValueOf(&err).Elem()
			return res
		}
		var res []reflect.Value
		if ft.IsVariadic() {
			res = fv.CallSlice(args)
		} else {
			res = fv.Call(args)
		}
		if !returnsErr {
			res = append(res, reflect.Zero(errorType))
		}
		return res
	}).Interface()
}

var errorType = reflect.TypeFor[error]()

func checkArgs(name string, args []reflect.Value, variadic bool, check func(string, any) error) error {
	for i, a := range args {
		if variadic && i == len(args)-1 {
			for j := range a.Len() {
				if err := check(name, a.Index(j).Interface()); err != nil {
					return err
				}
			}
			continue
		}
		if a.Kind() == reflect.Interface || a.Kind() == reflect.Map || a.Kind() == reflect.Slice {
			if err := check(name, a.Interface()); err != nil {
				return err
			}
		}
	}
	return nil
}

// guardActions makes every action of tree that prints a value which may hold
// maps or lists pass it through outputGuard first: text/template prints it with
// fmt. An action whose last command is a literal or a call of a function that
// returns a string, number or bool is left alone. known holds the functions.
func guardActions(n parse.Node, known map[string]any) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			guardActions(c, known)
		}
	case *parse.IfNode:
		guardBranch(&x.BranchNode, known)
	case *parse.WithNode:
		guardBranch(&x.BranchNode, known)
	case *parse.RangeNode:
		guardBranch(&x.BranchNode, known)
	case *parse.ActionNode:
		if len(x.Pipe.Decl) == 0 && len(x.Pipe.Cmds) > 0 && mayHoldContainers(x.Pipe.Cmds[len(x.Pipe.Cmds)-1], known) {
			id := parse.NewIdentifier(outputGuard).SetPos(x.Pos)
			x.Pipe.Cmds = append(x.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: x.Pos, Args: []parse.Node{id}})
		}
	}
}

func guardBranch(b *parse.BranchNode, known map[string]any) {
	guardActions(b.List, known)
	guardActions(b.ElseList, known)
}

// mayHoldContainers reports whether the value of cmd may be a map or list.
func mayHoldContainers(cmd *parse.CommandNode, known map[string]any) bool {
	switch first := cmd.Args[0].(type) {
	case *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
		return false
	case *parse.IdentifierNode:
		switch first.Ident {
		case "print", "printf", "println", "html", "js", "urlquery", "len",
			"eq", "ne", "lt", "le", "gt", "ge", "not":
			return false
		}
		fn, ok := known[first.Ident]
		if !ok {
			return true
		}
		ft := reflect.TypeOf(fn)
		if ft == nil || ft.Kind() != reflect.Func || ft.NumOut() == 0 {
			return true
		}
		return !isScalarKind(ft.Out(0).Kind())
	}
	return true
}

func isScalarKind(k reflect.Kind) bool {
	return k == reflect.String || k == reflect.Bool || (k >= reflect.Int && k <= reflect.Float64)
}
