package strvals

import "errors"

// FileReader turns a --set-file value (a path) into the value to store,
// usually the file's content as a string. It receives the value as runes,
// as Helm's reader does, so callers can share one implementation.
type FileReader func(rs []rune) (any, error)

// Parse parses a --set line ("a=b,c.d=e") into a fresh map.
func Parse(s string) (map[string]any, error) {
	return parseFresh(s, ParseInto)
}

// ParseString parses a --set-string line into a fresh map.
func ParseString(s string) (map[string]any, error) {
	return parseFresh(s, ParseIntoString)
}

// ParseInto parses a --set value ("a=b,c.d=e") into dest, inferring types like
// Helm (ints, bools, null). Keys already in dest are overwritten.
func ParseInto(s string, dest map[string]any, opts ...Option) error {
	return newParser(s, modeSet, inferValue, opts).run(dest)
}

// ParseIntoString is --set-string: every value is a string.
func ParseIntoString(s string, dest map[string]any, opts ...Option) error {
	return newParser(s, modeSet, verbatimValue, opts).run(dest)
}

// ParseJSON is --set-json: "key=<json>" pairs, key paths as in --set.
// An empty value means null, and JSON numbers become float64 as in Helm.
func ParseJSON(s string, dest map[string]any, opts ...Option) error {
	return newParser(s, modeJSON, nil, opts).run(dest)
}

// ParseLiteral is --set-literal: the value is taken verbatim, no splitting on
// commas, so a line holds exactly one key.
func ParseLiteral(s string, dest map[string]any, opts ...Option) error {
	return newParser(s, modeLiteral, nil, opts).run(dest)
}

// ParseIntoFile is --set-file: each value is a path, and what reader returns
// for it is stored. Braced lists read one file per element, as Helm does.
func ParseIntoFile(s string, dest map[string]any, reader FileReader, opts ...Option) error {
	if reader == nil {
		return errors.New("strvals: nil FileReader")
	}
	convert := func(raw string) (any, error) { return reader([]rune(raw)) }
	return newParser(s, modeSet, convert, opts).run(dest)
}

func parseFresh(s string, into func(string, map[string]any, ...Option) error) (map[string]any, error) {
	vals := map[string]any{}
	if err := into(s, vals); err != nil {
		return nil, err
	}
	return vals, nil
}
