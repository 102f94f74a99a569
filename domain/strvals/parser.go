package strvals

import (
	"errors"
	"io"
)

// mode selects how keys are split and how the text after '=' is read.
type mode uint8

const (
	// modeSet covers --set, --set-string and --set-file: values end at a comma,
	// {a,b} is a list, and a converter types each raw value.
	modeSet mode = iota
	// modeJSON reads each value as one JSON document.
	modeJSON
	// modeLiteral takes the rest of the input as the value, with no escapes.
	modeLiteral
)

// parser holds the state of one parse. io.EOF is its internal signal for
// "input exhausted, stop without error", compared with == on purpose so that
// wrapped EOFs (a truncated index) stay real errors, as in Helm 3, unless
// truncatedIndexEnds (Helm 4).
type parser struct {
	sc                 scanner
	mode               mode
	convert            func(raw string) (any, error)
	budget             *Budget
	truncatedIndexEnds bool
}

func newParser(s string, m mode, convert func(string) (any, error), opts []Option) *parser {
	p := &parser{sc: scanner{src: s}, mode: m, convert: convert}
	for _, o := range opts {
		o(p)
	}
	return p
}

func (p *parser) run(dest map[string]any) error {
	for {
		if err := p.key(dest, 0); err != nil {
			if err == io.EOF || p.truncatedIndexEnds && errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// keyStops are the runes that end a key segment; a literal line holds a
// single key, so a comma is part of the key there.
func (p *parser) keyStops() string {
	if p.mode == modeLiteral {
		return "=[."
	}
	return "=[,."
}

func (p *parser) escapes() bool { return p.mode != modeLiteral }

// key reads one key segment and what follows it into data. depth counts the
// dots seen so far on this path.
func (p *parser) key(data map[string]any, depth int) error {
	k, stop, err := p.sc.until(p.keyStops(), p.escapes())
	if err != nil {
		if k == "" {
			return err
		}
		return errNoValue(k)
	}
	switch stop {
	case '=':
		v, err := p.value()
		if err != nil && err != io.EOF {
			return err
		}
		if serr := set(data, k, v); serr != nil {
			return serr
		}
		// An io.EOF here (nothing after '=') still stops the parse early, which
		// decides whether enclosing maps and list items get stored.
		return err
	case ',':
		if err := set(data, k, ""); err != nil {
			return err
		}
		return errTrailingComma(k)
	case '[':
		return p.indexedKey(data, k, depth)
	default: // '.'
		return p.nestedKey(data, k, depth)
	}
}

func (p *parser) nestedKey(data map[string]any, k string, depth int) error {
	depth++
	if depth > MaxNestedNameLevel {
		return errTooDeep()
	}
	inner := map[string]any{}
	if cur, ok := data[k]; ok {
		m, isMap := cur.(map[string]any)
		if !isMap {
			return errNotA(cur, mapTypeName)
		}
		inner = m
	}
	err := p.key(inner, depth)
	if err == nil && len(inner) == 0 {
		return errEmptyMap(k)
	}
	// An empty inner map is never stored, so "a.=" at end of input adds nothing.
	if len(inner) != 0 {
		if serr := set(data, k, inner); serr != nil {
			return serr
		}
	}
	return err
}

// set stores v under k. Helm silently drops empty keys ("=x", ".a=1").
func set(data map[string]any, k string, v any) error {
	if k == "" {
		return nil
	}
	if data == nil {
		return errNilMap()
	}
	data[k] = v
	return nil
}
