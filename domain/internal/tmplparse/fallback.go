//go:build !go1.26 || go1.27

package tmplparse

import "text/template/parse"

// forked says which parser Parse is: text/template/parse, for this copy is of
// another Go release (release_test.go).
const forked = false

// Parse returns the trees that parse.Parse(name, text, "", "", funcs) returns:
// name's tree and those the text defines, by name.
func Parse(name, text string, funcs map[string]any) (map[string]*parse.Tree, error) {
	return parse.Parse(name, text, "", "", funcs)
}
