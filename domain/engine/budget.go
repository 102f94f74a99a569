package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Budget bounds what rendering a chart may make us do: CI systems render charts
// they do not trust. A zero field takes its default from DefaultBudget, which
// every chart of the conformance corpora stays far within.
type Budget struct {
	// Timeout bounds the wall time of one render.
	Timeout time.Duration
	// MaxOutputBytes bounds the bytes templates write, the text of include and
	// tpl calls included (so text an include returns counts again where it is
	// written).
	MaxOutputBytes int64
	// MaxDepth bounds how deep include and tpl calls nest, all names together
	// (Helm's own rule, 1,000 nested calls of one name, applies as well).
	MaxDepth int
	// MaxValueBytes bounds the size of one value a function builds: the string
	// of repeat, indent, randAlpha ..., the list of until, untilStep, seq
	// (8 bytes an element).
	MaxValueBytes int64
	// MaxSchemaNodes and MaxSchemaSteps bound each values.schema.json checked
	// before the templates render (see schema.Limits): the objects and
	// booleans it holds, and the steps of validating values against it. The
	// wall time of that check counts against Timeout.
	MaxSchemaNodes int
	MaxSchemaSteps int64
	// Clock tells the time Timeout is measured by (nil: the system clock).
	Clock ports.Clock
}

// Defaults of a Budget.
const (
	DefaultTimeout        = 5 * time.Minute
	DefaultMaxOutputBytes = 1 << 30
	// DefaultMaxDepth leaves room for Helm's 1,000 nested includes of one name.
	// Each level wraps the error of the next in its own text, so an error
	// from the deepest level costs memory in the square of the depth.
	DefaultMaxDepth      = 2000
	DefaultMaxValueBytes = 256 << 20
)

// Names of the limits, as the command line spells the flags that raise them.
const (
	LimitTimeout     = "render-timeout"
	LimitOutputBytes = "render-max-output-bytes"
	LimitDepth       = "render-max-depth"
	LimitValueBytes  = "render-max-value-bytes"
	LimitSchemaNodes = "render-max-schema-nodes"
	LimitSchemaSteps = "render-max-schema-steps"
)

// WithDefaults fills the zero fields of b but the schema limits, which the
// schema package's defaults fill.
func (b Budget) WithDefaults() Budget {
	if b.Timeout <= 0 {
		b.Timeout = DefaultTimeout
	}
	if b.MaxOutputBytes <= 0 {
		b.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if b.MaxDepth <= 0 {
		b.MaxDepth = DefaultMaxDepth
	}
	if b.MaxValueBytes <= 0 {
		b.MaxValueBytes = DefaultMaxValueBytes
	}
	if b.Clock == nil {
		b.Clock = ports.SystemClock{}
	}
	return b
}

// BudgetError is a render stopped at a limit of its Budget.
type BudgetError struct {
	// Limit is the limit's name (LimitTimeout ...), the flag that raises it.
	Limit string
	// What says what went past it.
	What string
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("render budget exceeded: %s (raise it with --%s)", e.What, e.Limit)
}

// checkEvery is how many metered steps pass between looks at the clock.
const checkEvery = 1 << 10

// meter holds one goroutine's use of its render's budget: the steps and the
// depth of the calls it makes itself, and the bytes that every goroutine of the
// render wrote, counted together. Its checks are an addition and a comparison,
// and a look at the clock and the context every checkEvery steps.
type meter struct {
	ctx      context.Context
	budget   Budget
	deadline time.Time
	out      *atomic.Int64
	// written is what this goroutine wrote of out.
	written int64
	steps   uint64
	depth   int
	// off meters nothing (Engine.unmetered).
	off bool
}

func newMeter(ctx context.Context, b Budget) *meter {
	b = b.WithDefaults()
	return &meter{ctx: ctx, budget: b, deadline: b.Clock.Now().Add(b.Timeout), out: new(atomic.Int64)}
}

// fork is a meter for another goroutine of the same render: the same limits,
// deadline and output count, steps and depth of its own.
func (m *meter) fork() *meter {
	return &meter{ctx: m.ctx, budget: m.budget, deadline: m.deadline, out: m.out, off: m.off}
}

// outExceeded reports whether a write was refused for the output limit.
func (m *meter) outExceeded() bool { return m.out.Load() > m.budget.MaxOutputBytes }

// prepareTree readies a parsed tree to execute: guardActions, and meterRanges.
// known holds the functions templates call.
func prepareTree(tree *parse.Tree, m *meter, known map[string]any) {
	if tree == nil {
		return
	}
	guardActions(tree.Root, known)
	meterRanges(tree, m)
}

// meterRanges makes each iteration of every range in tree a step: an iteration
// that writes nothing and calls no function (`{{ range 100000000 }}`, templates
// range over integers) would never look at the clock. Each range body gets an
// empty text node first, a write of no bytes, which text/template makes
// without a function call; the output is unchanged.
func meterRanges(tree *parse.Tree, m *meter) {
	if tree != nil && !m.off {
		meterNode(tree.Root)
	}
}

// prepareNewTrees prepares the trees t holds that parent does not: those a tpl
// call parsed into its clone of parent, whose own trees are prepared already
// (and may be executing in other goroutines). The clone costs as much.
func prepareNewTrees(t, parent *template.Template, m *meter, known map[string]any) {
	for _, tt := range t.Templates() {
		if p := parent.Lookup(tt.Name()); p == nil || p.Tree != tt.Tree {
			prepareTree(tt.Tree, m, known)
		}
	}
}

func meterNode(n parse.Node) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			meterNode(c)
		}
	case *parse.IfNode:
		meterBranch(&x.BranchNode)
	case *parse.WithNode:
		meterBranch(&x.BranchNode)
	case *parse.RangeNode:
		meterBranch(&x.BranchNode)
		if x.List != nil {
			step := &parse.TextNode{NodeType: parse.NodeText, Pos: x.Pos, Text: []byte{}}
			x.List.Nodes = append([]parse.Node{step}, x.List.Nodes...)
		}
	}
}

func meterBranch(b *parse.BranchNode) {
	meterNode(b.List)
	meterNode(b.ElseList)
}

// step counts one metered step (a call of include, tpl or a function that
// builds a value, a write) and looks at the clock now and then.
func (m *meter) step() error {
	if m.off {
		return nil
	}
	m.steps++
	if m.steps%checkEvery != 0 {
		return nil
	}
	if err := m.ctx.Err(); err != nil {
		return err
	}
	if m.budget.Clock.Now().After(m.deadline) {
		return &BudgetError{Limit: LimitTimeout, What: fmt.Sprintf("rendering took longer than %s", m.budget.Timeout)}
	}
	return nil
}

// value refuses a value of size bytes that fn would build.
func (m *meter) value(fn string, size int64) error {
	if size > m.budget.MaxValueBytes && !m.off {
		return &BudgetError{Limit: LimitValueBytes,
			What: fmt.Sprintf("%s would build a value of %d bytes, more than %d", fn, size, m.budget.MaxValueBytes)}
	}
	return m.step()
}

// enter counts one more nested include or tpl call; leave undoes it.
func (m *meter) enter(fn string) error {
	if m.depth >= m.budget.MaxDepth && !m.off {
		return &BudgetError{Limit: LimitDepth, What: fmt.Sprintf("%s calls nested deeper than %d", fn, m.budget.MaxDepth)}
	}
	m.depth++
	return m.step()
}

func (m *meter) leave() { m.depth-- }

// writer is a template's output, counted against the budget.
type writer struct {
	m   *meter
	buf strings.Builder
}

func (w *writer) Write(p []byte) (int, error) {
	if w.m.off {
		return w.buf.Write(p)
	}
	w.m.written += int64(len(p))
	if w.m.out.Add(int64(len(p))) > w.m.budget.MaxOutputBytes {
		return 0, &BudgetError{Limit: LimitOutputBytes,
			What: fmt.Sprintf("templates wrote more than %d bytes", w.m.budget.MaxOutputBytes)}
	}
	if err := w.m.step(); err != nil {
		return 0, err
	}
	return w.buf.Write(p)
}

// budgetStop returns, for an error that ended a render at a limit of its budget,
// when its context ended or at a value it cannot print, that error with where the template that was
// rendered called into it: the outermost position in text/template's chain
// ("template: NAME:LINE:COL"), or the template's name when a write was refused.
// Any other error gives nil.
func budgetStop(name string, err error) error {
	cause := stopCause(err)
	if cause == nil {
		return nil
	}
	loc := "template: " + name
	if rest, ok := strings.CutPrefix(err.Error(), "template: "); ok {
		if at, _, found := strings.Cut(rest, ": "); found {
			loc = "template: " + at
		}
	}
	return fmt.Errorf("%s: %w", loc, cause)
}

// stopCause is the limit or context error that err carries, or the
// *UnprintableError, or nil.
func stopCause(err error) error {
	var cause error
	if be, ok := errors.AsType[*BudgetError](err); ok {
		cause = be
	} else if ue, ok := errors.AsType[*UnprintableError](err); ok {
		cause = ue
	} else if errors.Is(err, context.Canceled) {
		cause = context.Canceled
	} else if errors.Is(err, context.DeadlineExceeded) {
		cause = context.DeadlineExceeded
	}
	return cause
}

// bare is what include and tpl return for an error of the template they ran: a
// limit or context error alone, without the text of the calls it went through,
// which would grow with the square of their depth; any other error as it is.
func bare(err error) error {
	if cause := stopCause(err); cause != nil {
		return cause
	}
	return err
}
