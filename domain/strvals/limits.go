package strvals

import (
	"errors"
	"fmt"
)

const (
	// MaxIndex is the largest list index accepted in a key such as a[3].
	// Helm caps it so a single flag cannot allocate an arbitrarily large list.
	MaxIndex = 65536

	// MaxNestedNameLevel is how many dotted segments a key may nest.
	MaxNestedNameLevel = 30

	// DefaultMaxListGrowth is how many list items the flags of one command may add
	// in all (a[65536]=x adds 65,537): MaxIndex alone lets 12,000 such flags take
	// gigabytes.
	DefaultMaxListGrowth = 1 << 20
)

// ErrListBudget matches (errors.Is) the refusal of list growth past a Budget.
var ErrListBudget = errors.New("lists would hold more than the maximum supported total")

// Budget is what list growth is left to the flags of one command; share one among
// the parses of all of them (WithBudget).
type Budget struct{ left, max int }

// NewBudget lets the parses sharing it add at most items list items in all.
func NewBudget(items int) *Budget { return &Budget{left: items, max: items} }

// Option changes how a line is parsed.
type Option func(*parser)

// WithBudget makes list growth count against b.
func WithBudget(b *Budget) Option { return func(p *parser) { p.budget = b } }

// TruncatedIndexEnds makes an index cut off by the end of the input ("a[",
// "a[0][1") end the parse without an error, keeping what was set before, as
// Helm 4's parser does (it wraps the EOF and tests with errors.Is); Helm 3's
// reports it.
func TruncatedIndexEnds() Option { return func(p *parser) { p.truncatedIndexEnds = true } }

// grow takes n items from the budget, if there is one.
func (p *parser) grow(n int) error {
	if p.budget == nil || n <= 0 {
		return nil
	}
	if n > p.budget.left {
		return fmt.Errorf("%w of %d items", ErrListBudget, p.budget.max)
	}
	p.budget.left -= n
	return nil
}
