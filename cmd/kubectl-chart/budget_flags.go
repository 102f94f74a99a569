package main

import (
	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/schema"
)

// budgetFlags raise the render budget (engine.Budget) of template, install,
// upgrade and lint; each flag is named as the limit its error names.
type budgetFlags struct {
	budget engine.Budget
}

// AddFlags adds the flags to fs.
func (b *budgetFlags) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&b.budget.Timeout, engine.LimitTimeout, engine.DefaultTimeout,
		"render budget: the longest a render of the templates may take")
	fs.Int64Var(&b.budget.MaxOutputBytes, engine.LimitOutputBytes, engine.DefaultMaxOutputBytes,
		"render budget: the most bytes templates may write, include and tpl output included")
	fs.IntVar(&b.budget.MaxDepth, engine.LimitDepth, engine.DefaultMaxDepth,
		"render budget: how deep include and tpl calls may nest")
	fs.Int64Var(&b.budget.MaxValueBytes, engine.LimitValueBytes, engine.DefaultMaxValueBytes,
		"render budget: the largest value a template function may build (repeat, until, randAlpha ...)")
	fs.IntVar(&b.budget.MaxSchemaNodes, engine.LimitSchemaNodes, schema.DefaultMaxNodes,
		"render budget: the most objects and booleans a values.schema.json may hold")
	fs.Int64Var(&b.budget.MaxSchemaSteps, engine.LimitSchemaSteps, schema.DefaultMaxSteps,
		"render budget: the most steps validating values against a values.schema.json may take")
}
