package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ChartSchema is one chart's schema with its values, for the recursive check.
//
// The caller fills it from the loaded chart after dependencies are processed:
//   - ChartName: the chart's effective name (Helm's chart.Name(), i.e. the
//     alias for an aliased dependency). It prefixes the chart's errors and is
//     the key under which the parent's values hold this chart's values.
//   - Schema: the raw values.schema.json; nil when the chart has none. A
//     present but empty file must be non-nil (Helm then reports "EOF").
//   - Values: read for the root only, and must be the coalesced values Helm
//     validates (chart defaults merged with user values). Subcharts' Values
//     are ignored: as in Helm, a subchart's values are looked up in its
//     parent's values under ChartName; missing or null means the subchart
//     (and its own subcharts) is not validated.
//   - Subcharts: the enabled dependencies, in Helm's chart.Dependencies() order.
type ChartSchema struct {
	ChartName string
	Schema    []byte
	Values    map[string]any
	Subcharts []ChartSchema
}

// treeErrorHeader is how Helm introduces schema failures at install, upgrade,
// template and lint time.
const treeErrorHeader = "values don't meet the specifications of the schema(s) in the following chart(s):\n"

// TreeError is the combined failure of ValidateTree.
type TreeError struct {
	// Details lists each failing chart as "<name>:\n" followed by its
	// violations, in validation order (Helm's ValidateAgainstSchema text).
	Details string
}

func (e *TreeError) Error() string { return treeErrorHeader + e.Details }

// ValidateTree validates a chart and its subcharts the way Helm's ValidateAgainstSchema does (which charts are checked, the order, how errors are combined and prefixed), returning Helm's combined error.
// Charts are visited depth first, parent before its subcharts; every failure
// is collected, none stops the walk, but a schema refused at one of lim (a
// *LimitError naming the file) or the end of ctx does.
func ValidateTree(ctx context.Context, root ChartSchema, loader Loader, lim Limits) error {
	values, _ := helmShape(root.Values).(map[string]any)
	var sb strings.Builder
	if err := validateChart(ctx, &sb, root, root.ChartName+"/", values, loader, withDefaults(lim)); err != nil {
		return err
	}
	if sb.Len() == 0 {
		return nil
	}
	return &TreeError{Details: sb.String()}
}

// validateChart appends c's failures, then its subcharts', to sb. values must
// already be in Helm's shape; dir is c's directory as template names spell
// it ("root/", "root/charts/sub/" ...).
func validateChart(ctx context.Context, sb *strings.Builder, c ChartSchema, dir string, values map[string]any, loader Loader, lim Limits) error {
	if c.Schema != nil {
		err := validateShaped(ctx, c.Schema, values, loader, lim)
		if le, ok := errors.AsType[*LimitError](err); ok {
			le.File = dir + "values.schema.json"
			return le
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%svalues.schema.json: %w", dir, ctxErr)
		}
		if err != nil {
			fmt.Fprintf(sb, "%s:\n%s", c.ChartName, err.Error())
		}
	}
	for _, sub := range c.Subcharts {
		raw, ok := values[sub.ChartName]
		if !ok || raw == nil {
			continue
		}
		subValues, ok := raw.(map[string]any)
		if !ok {
			fmt.Fprintf(sb, "%s:\ninvalid type for values: expected object (map), got %T\n", sub.ChartName, raw)
			continue
		}
		if err := validateChart(ctx, sb, sub, dir+"charts/"+sub.ChartName+"/", subValues, loader, lim); err != nil {
			return err
		}
	}
	return nil
}
