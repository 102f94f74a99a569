package schema

import (
	"context"
	"fmt"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Limits bound what a schema may make us do: charts are untrusted, and the
// validator (Helm's too) compiles in time growing with the square of a schema's
// subschemas and validates in time growing with every subschema that allOf,
// anyOf, $ref ... apply to a value, so a 100,000-link $ref chain, or an allOf
// fanning out ten ways at each of eleven levels, runs for hours. The validator
// cannot be interrupted: the size is checked before it compiles, and its work
// is counted (see work) before it validates. A zero field takes its default.
type Limits struct {
	// MaxNodes bounds the objects and booleans (whatever may be a subschema)
	// of the schema and the documents it references.
	MaxNodes int
	// MaxSteps bounds the work of validating values: a step for each subschema
	// applied to a value, each member of an object or array it is applied to
	// and each enum entry compared, and a 64th of one for each scope looked
	// through for a reference cycle or a dynamic anchor. Nesting is bounded by
	// it as well: each level costs at least a step.
	MaxSteps int64
	// Deadline, unless zero, bounds the wall time of validating, as Clock
	// (nil: the system clock) tells it.
	Deadline time.Time
	Clock    ports.Clock
}

// Defaults of Limits. The largest schema of the conformance corpora holds
// under 1,000 nodes and validates its chart's values in a few thousand steps;
// the validator compiles 10,000 nodes in about a second, and takes a second or
// two for a million steps.
const (
	DefaultMaxNodes = 10000
	DefaultMaxSteps = 1_000_000
)

// withDefaults fills the zero fields of l.
func withDefaults(l Limits) Limits {
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.Clock == nil {
		l.Clock = ports.SystemClock{}
	}
	return l
}

// Limit names one of the Limits.
type Limit int

// The Limits a LimitError may name.
const (
	LimitNodes Limit = iota + 1
	LimitSteps
	LimitTime
)

// LimitError is a schema refused at one of its Limits.
type LimitError struct {
	// File is the schema's path in the chart ("values.schema.json", or
	// "charts/sub/values.schema.json" for a subchart's), set by ValidateTree.
	File  string
	Limit Limit
	// What says what went past the limit.
	What string
}

func (e *LimitError) Error() string {
	if e.File == "" {
		return e.What
	}
	return e.File + ": " + e.What
}

// nodeBudget counts the nodes of the documents one compilation reads, and
// notes whether they hold a dynamic reference (see dynamic).
type nodeBudget struct {
	max, used int
	dynamic   bool
}

// add counts doc's nodes, stopping as soon as they are too many.
func (b *nodeBudget) add(doc any) error {
	b.count(doc)
	return b.err()
}

// err is the LimitError once the documents hold too many nodes.
func (b *nodeBudget) err() error {
	if b.used <= b.max {
		return nil
	}
	return &LimitError{Limit: LimitNodes,
		What: fmt.Sprintf("the schema holds more than %d objects and booleans", b.max)}
}

func (b *nodeBudget) count(v any) {
	if b.used > b.max {
		return
	}
	switch x := v.(type) {
	case bool:
		b.used++
	case map[string]any:
		b.used++
		_, r1 := x["$dynamicRef"]
		_, r2 := x["$recursiveRef"]
		b.dynamic = b.dynamic || r1 || r2
		for _, c := range x {
			b.count(c)
		}
	case []any:
		for _, c := range x {
			b.count(c)
		}
	}
}

// clock bounds one validation in time and by its context.
type clock struct {
	ctx      context.Context
	deadline time.Time
	now      ports.Clock
}

// check returns the context's error, or a LimitError past the deadline.
func (c clock) check() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	if !c.deadline.IsZero() && c.now.Now().After(c.deadline) {
		return &LimitError{Limit: LimitTime, What: "validating values took too long"}
	}
	return nil
}
