package schema

import (
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
)

// checkEvery is how many steps pass between looks at the clock and context.
const checkEvery = 1 << 12

// work counts, before the validator runs, the steps validating a value will
// take, walking the subschemas the validator applies in its order and with its
// scopes, and stops at the first limit. It counts every subschema whether or
// not an earlier one already failed (anyOf and oneOf stop early at times, and
// then/else are counted both), so it counts at least what the validator does;
// it does none of the checks themselves, so it costs far less.
type work struct {
	clock
	max  int64
	cost int64 // in 1/unit of a step
	// scope is the validator's: every schema applied on the way to the current
	// one, with the depth of the value it was applied to (its cycle check and
	// its dynamic references look through it).
	scope []scoped
	dyn   *dynamic
}

type scoped struct {
	s   *jsonschema.Schema
	vid int
}

// A step is worth unit; looking through one scope is far cheaper for the
// validator (a comparison of two pointers), and worth 1.
const unit = 64

// add counts n steps.
func (w *work) add(n int64) error {
	return w.addCost(n * unit)
}

// addCost counts cost in 1/unit of a step.
func (w *work) addCost(cost int64) error {
	before := w.cost
	w.cost += cost
	if w.cost > w.max*unit {
		return &LimitError{Limit: LimitSteps,
			What: fmt.Sprintf("validating values against it takes more than %d steps", w.max)}
	}
	if before/(checkEvery*unit) != w.cost/(checkEvery*unit) {
		return w.check()
	}
	return nil
}

// root counts validating v against s from a fresh scope, as the validator
// does for the whole value and for each property name.
func (w *work) root(s *jsonschema.Schema, v any) error {
	saved := w.scope
	w.scope = nil
	err := w.apply(s, v, 0)
	w.scope = saved
	return err
}

// apply counts applying s to v, v being vid levels deep in the value.
func (w *work) apply(s *jsonschema.Schema, v any, vid int) error {
	w.scope = append(w.scope, scoped{s, vid})
	defer func() { w.scope = w.scope[:len(w.scope)-1] }()
	n := int64(1)
	switch x := v.(type) {
	case map[string]any:
		n += int64(len(x))
	case []any:
		n += int64(len(x))
	}
	if s.Bool != nil {
		return w.add(n)
	}
	if s.Enum != nil {
		n += int64(len(s.Enum.Values))
	}
	cost, cycle := n*unit, false
	for i := len(w.scope) - 2; i >= 0 && w.scope[i].vid == vid; i-- {
		cost++
		if w.scope[i].s == s {
			cycle = true // the validator reports the cycle and goes no further
			break
		}
	}
	if err := w.addCost(cost); err != nil || cycle {
		return err
	}
	if s.Ref != nil {
		if err := w.apply(s.Ref, v, vid); err != nil || s.DraftVersion < 2019 {
			return err
		}
	}
	switch x := v.(type) {
	case map[string]any:
		if err := w.object(s, x, vid); err != nil {
			return err
		}
	case []any:
		if err := w.array(s, x, vid); err != nil {
			return err
		}
	}
	if s.DraftVersion >= 2019 {
		if err := w.refs(s, v, vid); err != nil {
			return err
		}
	}
	if err := w.inPlace(v, vid, s.Not, s.If, s.Then, s.Else); err != nil {
		return err
	}
	for _, group := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		if err := w.inPlace(v, vid, group...); err != nil {
			return err
		}
	}
	if s.DraftVersion >= 2019 {
		return w.unevaluated(s, v, vid)
	}
	return nil
}

// inPlace counts applying each of subs (nil ones skipped) to v itself.
func (w *work) inPlace(v any, vid int, subs ...*jsonschema.Schema) error {
	for _, c := range subs {
		if c == nil {
			continue
		}
		if err := w.apply(c, v, vid); err != nil {
			return err
		}
	}
	return nil
}

func (w *work) object(s *jsonschema.Schema, obj map[string]any, vid int) error {
	for name, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok && has(obj, name) {
			if err := w.apply(c, obj, vid); err != nil {
				return err
			}
		}
	}
	for name, val := range obj {
		matched := false
		if c, ok := s.Properties[name]; ok {
			matched = true
			if err := w.apply(c, val, vid+1); err != nil {
				return err
			}
		}
		for re, c := range s.PatternProperties {
			if err := w.add(1); err != nil {
				return err
			}
			if re.MatchString(name) {
				matched = true
				if err := w.apply(c, val, vid+1); err != nil {
					return err
				}
			}
		}
		if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !matched {
			if err := w.apply(c, val, vid+1); err != nil {
				return err
			}
		}
		if s.PropertyNames != nil {
			if err := w.root(s.PropertyNames, name); err != nil {
				return err
			}
		}
	}
	for name, c := range s.DependentSchemas {
		if has(obj, name) {
			if err := w.apply(c, obj, vid); err != nil {
				return err
			}
		}
	}
	return nil
}

func has(obj map[string]any, name string) bool {
	_, ok := obj[name]
	return ok
}

func (w *work) array(s *jsonschema.Schema, arr []any, vid int) error {
	each := func(c *jsonschema.Schema, items []any) error {
		for _, item := range items {
			if err := w.apply(c, item, vid+1); err != nil {
				return err
			}
		}
		return nil
	}
	evaluated := 0
	if s.DraftVersion < 2020 {
		switch items := s.Items.(type) {
		case *jsonschema.Schema:
			if err := each(items, arr); err != nil {
				return err
			}
			evaluated = len(arr)
		case []*jsonschema.Schema:
			evaluated = min(len(arr), len(items))
			for i := range evaluated {
				if err := w.apply(items[i], arr[i], vid+1); err != nil {
					return err
				}
			}
		}
		if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			if err := each(c, arr[evaluated:]); err != nil {
				return err
			}
		}
	} else {
		evaluated = min(len(arr), len(s.PrefixItems))
		for i := range evaluated {
			if err := w.apply(s.PrefixItems[i], arr[i], vid+1); err != nil {
				return err
			}
		}
		if s.Items2020 != nil {
			if err := each(s.Items2020, arr[evaluated:]); err != nil {
				return err
			}
		}
	}
	if s.Contains != nil {
		return each(s.Contains, arr)
	}
	return nil
}

// unevaluated counts unevaluatedProperties and unevaluatedItems as applied to
// every member.
func (w *work) unevaluated(s *jsonschema.Schema, v any, vid int) error {
	switch x := v.(type) {
	case map[string]any:
		if s.UnevaluatedProperties == nil {
			return nil
		}
		for _, val := range x {
			if err := w.apply(s.UnevaluatedProperties, val, vid+1); err != nil {
				return err
			}
		}
	case []any:
		if s.UnevaluatedItems == nil {
			return nil
		}
		for _, item := range x {
			if err := w.apply(s.UnevaluatedItems, item, vid+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// refs counts $recursiveRef and $dynamicRef, resolved through the scope.
func (w *work) refs(s *jsonschema.Schema, v any, vid int) error {
	if t := s.RecursiveRef; t != nil {
		if t.RecursiveAnchor {
			if err := w.addCost(int64(len(w.scope))); err != nil {
				return err
			}
			t = w.dyn.recursiveTarget(w.scope, t)
		}
		if err := w.apply(t, v, vid); err != nil {
			return err
		}
	}
	if d := s.DynamicRef; d != nil {
		t := d.Ref
		if d.Anchor != "" && t.DynamicAnchor == d.Anchor {
			if err := w.addCost(int64(len(w.scope))); err != nil {
				return err
			}
			t = w.dyn.dynamicTarget(w.scope, d.Anchor, t)
		}
		return w.apply(t, v, vid)
	}
	return nil
}
