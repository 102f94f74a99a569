package strvals

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

func (p *parser) indexedKey(data map[string]any, k string, depth int) error {
	i, err := p.index()
	if err != nil {
		return err
	}
	list := []any{}
	if cur, ok := data[k]; ok {
		l, isList := cur.([]any)
		if !isList {
			return errNotA(cur, listTypeName)
		}
		list = l
	}
	list, err = p.listItem(list, i, depth)
	if errors.Is(err, ErrListBudget) {
		return fmt.Errorf("key %q: %w", k, err)
	}
	// Helm stores the list even when the item failed or input ended, so
	// "a[0]" alone still creates an empty list.
	if serr := set(data, k, list); serr != nil {
		return serr
	}
	return err
}

// index reads the number up to ']'.
func (p *parser) index() (int, error) {
	raw, _, err := p.sc.until("]", p.escapes())
	if err != nil {
		return 0, errBadIndex(err)
	}
	i, err := strconv.Atoi(raw)
	if err != nil {
		return 0, errBadIndex(err)
	}
	return i, nil
}

// listItem reads what follows "[i]" and returns list with item i updated.
// Nested dots inside list items do not add to depth, as in Helm.
func (p *parser) listItem(list []any, i, depth int) ([]any, error) {
	if i < 0 {
		return list, errNegativeIndex(i)
	}
	extra, stop, err := p.sc.until("[.=", p.escapes())
	switch {
	case extra != "":
		return list, errTrailingIndexData(extra)
	case err != nil:
		return list, err
	}
	switch stop {
	case '=':
		v, err := p.value()
		if err != nil && err != io.EOF {
			return list, err
		}
		return p.setIndex(list, i, v)
	case '[':
		j, err := p.index()
		if err != nil {
			return list, err
		}
		var sub []any
		if i < len(list) && list[i] != nil {
			l, ok := list[i].([]any)
			if !ok {
				return list, errNotA(list[i], listTypeName)
			}
			sub = l
		}
		if sub, err = p.listItem(sub, j, depth); err != nil {
			return list, err
		}
		return p.setIndex(list, i, sub)
	default: // '.'
		inner := map[string]any{}
		if i < len(list) {
			m, ok := list[i].(map[string]any)
			if !ok {
				// Unlike map keys, a list slot of another kind is replaced.
				m = map[string]any{}
				list[i] = m
			}
			inner = m
		}
		// Any error, io.EOF included, leaves the item unstored: "a[0].b=" at
		// end of input yields an empty list, as in Helm.
		if err := p.key(inner, depth); err != nil {
			return list, err
		}
		return p.setIndex(list, i, inner)
	}
}

// setIndex stores v at i, padding with nils when the list is too short.
func (p *parser) setIndex(list []any, i int, v any) ([]any, error) {
	if i < 0 {
		return list, errNegativeIndex(i)
	}
	if i > MaxIndex {
		return list, errIndexTooLarge(i)
	}
	if i >= len(list) {
		if err := p.grow(i + 1 - len(list)); err != nil {
			return list, err
		}
		grown := make([]any, i+1)
		copy(grown, list)
		list = grown
	}
	list[i] = v
	return list, nil
}
