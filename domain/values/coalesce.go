package values

import (
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Warn receives the non-fatal problems found while coalescing (a table replaced by
// a scalar and so on). Helm logs the same warnings.
type Warn func(format string, args ...any)

// coalescer combines user values with chart defaults. Merge keeps null values
// instead of treating them as deletions, which dependency processing needs.
type coalescer struct {
	Warn Warn
	// Dialect selects Helm 4's fix for chart default nulls: when coalescing, a null
	// default (at any depth of a default table) is left out instead of showing as a
	// key with no value.
	Dialect dialect.Dialect
	merge   bool
}

func (c coalescer) warnf(format string, args ...any) {
	if c.Warn != nil {
		c.Warn(format, args...)
	}
}

// CoalesceFor returns the values a chart renders with by the dialect's rules:
// vals over the chart's defaults, for the chart and each subchart, globals
// propagated, null deleting a default.
func CoalesceFor(d dialect.Dialect, ch *chart.Chart, vals map[string]any, warn Warn) (Values, error) {
	return coalescer{Warn: warn, Dialect: d}.run(ch, vals)
}

// Merge is CoalesceFor (Helm 3's rules) that keeps null values.
func Merge(ch *chart.Chart, vals map[string]any, warn Warn) (Values, error) {
	return coalescer{Warn: warn, merge: true}.run(ch, vals)
}

func (c coalescer) run(ch *chart.Chart, vals map[string]any) (Values, error) {
	dest, _ := DeepCopy(map[string]any(vals)).(map[string]any)
	if dest == nil {
		dest = map[string]any{}
	}
	return c.coalesce(ch, dest, "")
}

func concatPrefix(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func (c coalescer) coalesce(ch *chart.Chart, dest map[string]any, prefix string) (map[string]any, error) {
	c.coalesceValues(ch, dest, prefix)
	return c.coalesceDeps(ch, dest, prefix)
}

func (c coalescer) coalesceDeps(ch *chart.Chart, dest map[string]any, prefix string) (map[string]any, error) {
	for _, sub := range ch.Dependencies() {
		name := sub.Name()
		cur, ok := dest[name]
		if !ok {
			cur = map[string]any{}
			dest[name] = cur
		}
		subVals, ok := cur.(map[string]any)
		if !ok {
			return dest, fmt.Errorf("type mismatch on %s: %t", name, cur)
		}
		subPrefix := concatPrefix(prefix, ch.Name())
		c.coalesceGlobals(subVals, dest, subPrefix)
		out, err := c.coalesce(sub, subVals, subPrefix)
		dest[name] = out
		if err != nil {
			return dest, err
		}
	}
	return dest, nil
}

// coalesceGlobals copies the parent's globals into the subchart's, the parent's
// winning, so globals flow down the tree.
func (c coalescer) coalesceGlobals(dest, src map[string]any, prefix string) {
	var dg, sg map[string]any
	if g, ok := dest[GlobalKey]; !ok {
		dg = map[string]any{}
	} else if dg, ok = g.(map[string]any); !ok {
		c.warnf("warning: skipping globals because destination %s is not a table.", GlobalKey)
		return
	}
	if g, ok := src[GlobalKey]; !ok {
		sg = map[string]any{}
	} else if sg, ok = g.(map[string]any); !ok {
		c.warnf("warning: skipping globals because source %s is not a table.", GlobalKey)
		return
	}
	for key, val := range sg {
		if table, ok := val.(map[string]any); ok {
			vv := make(map[string]any, len(table))
			for k, x := range table {
				vv[k] = x
			}
			destv, ok := dg[key]
			if !ok {
				dg[key] = vv
				continue
			}
			destTable, ok := destv.(map[string]any)
			if !ok {
				c.warnf("Conflict: cannot merge map onto non-map for %q. Skipping.", key)
				continue
			}
			// The parent's global table wins over the subchart's own global table.
			coalescer{Warn: c.Warn, merge: true}.coalesceTables(vv, destTable, concatPrefix(prefix, key))
			dg[key] = vv
		} else if dv, ok := dg[key]; ok && isTable(dv) {
			c.warnf("key %s is table. Skipping", key)
		} else {
			dg[key] = val
		}
	}
	dest[GlobalKey] = dg
}

// coalesceValues fills v with the chart's default values where v has none.
func (c coalescer) coalesceValues(ch *chart.Chart, v map[string]any, prefix string) {
	subPrefix := concatPrefix(prefix, ch.Name())
	defaults, _ := DeepCopy(ch.Values).(map[string]any)
	dropNulls := c.Dialect.IsHelm4() && !c.merge
	for key, def := range defaults {
		userVal, ok := v[key]
		if !ok {
			if dropNulls {
				if def == nil {
					continue
				}
				dropNullValues(def)
			}
			v[key] = def
			continue
		}
		if userVal == nil && !c.merge {
			delete(v, key)
			continue
		}
		dest, ok := userVal.(map[string]any)
		if !ok {
			continue
		}
		src, ok := def.(map[string]any)
		if !ok {
			if def != nil {
				c.warnf("warning: skipped value for %s.%s: Not a table.", subPrefix, key)
			}
			continue
		}
		// A subchart's values are coalesced again later with the subchart's own
		// defaults, so nulls must survive until then.
		inner := c
		if isDependencyName(ch, key) {
			inner.merge = true
		}
		if inner.Dialect.IsHelm4() && !inner.merge {
			dropNullValues(src)
		}
		inner.coalesceTables(dest, src, concatPrefix(subPrefix, key))
	}
}

// dropNullValues removes the null entries of a table and of the tables in it (not
// of lists); other values are left alone.
func dropNullValues(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, x := range m {
		if x == nil {
			delete(m, k)
		} else {
			dropNullValues(x)
		}
	}
}

func isDependencyName(ch *chart.Chart, key string) bool {
	for _, sub := range ch.Dependencies() {
		if sub.Name() == key {
			return true
		}
	}
	return false
}

// CoalesceTables merges src into dst where dst has no value; dst wins; null in dst
// deletes the key.
func CoalesceTables(dst, src map[string]any, warn Warn) map[string]any {
	return coalescer{Warn: warn}.coalesceTables(dst, src, "")
}

// MergeTables is CoalesceTables that keeps nulls.
func MergeTables(dst, src map[string]any, warn Warn) map[string]any {
	return coalescer{Warn: warn, merge: true}.coalesceTables(dst, src, "")
}

func (c coalescer) coalesceTables(dst, src map[string]any, prefix string) map[string]any {
	if src == nil {
		return dst
	}
	if dst == nil {
		return src
	}
	srcNonNil := make(map[string]bool, len(src))
	for key, val := range src {
		if val != nil {
			srcNonNil[key] = true
		}
	}
	// A null in dst overrides src, so make src carry it too.
	for key, val := range dst {
		if val == nil {
			src[key] = nil
		}
	}
	for key, val := range src {
		fullKey := concatPrefix(prefix, key)
		dv, ok := dst[key]
		switch {
		case ok && !c.merge && dv == nil && srcNonNil[key]:
			delete(dst, key)
		case !ok:
			dst[key] = val
		case isTable(val):
			if isTable(dv) {
				c.coalesceTables(dv.(map[string]any), val.(map[string]any), fullKey)
			} else {
				c.warnf("warning: cannot overwrite table with non table for %s (%v)", fullKey, val)
			}
		case isTable(dv) && val != nil:
			c.warnf("warning: destination for %s is a table. Ignoring non-table value (%v)", fullKey, val)
		}
	}
	return dst
}
