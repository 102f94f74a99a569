//go:build go1.26 && !go1.27

package tmplparse

import (
	"strings"
	"text/template/parse"
)

// forked says which parser Parse is: this copy (release_test.go).
const forked = true

// textDelim is a left delimiter a template's text does not hold: parsed with it,
// the text is a single text node, which is how a tree gets the text it reports
// execution errors from.
const textDelim, textRightDelim = "\x00\x00\x00", "\x00\x00\x01"

// Parse returns the trees that parse.Parse(name, text, "", "", funcs) returns:
// name's tree and those the text defines, by name.
func Parse(name, text string, funcs map[string]any) (map[string]*parse.Tree, error) {
	set, ok := parseSet(name, text, funcs)
	if !ok || strings.Contains(text, textDelim) {
		return parse.Parse(name, text, "", "", funcs)
	}
	base, err := parse.New(name).Parse(text, textDelim, textRightDelim, map[string]*parse.Tree{})
	if err != nil {
		return parse.Parse(name, text, "", "", funcs)
	}
	base.Root = nil
	trees := make(map[string]*parse.Tree, len(set))
	for n, t := range set {
		tr := base.Copy()
		tr.Name, tr.Root = n, t.Root
		trees[n] = tr
	}
	return trees, nil
}

// parseSet parses text into this copy's trees, by name; ok is false when it
// does not parse (or the parser fails in any way: text/template/parse has the
// last word).
func parseSet(name, text string, funcs map[string]any) (set map[string]*Tree, ok bool) {
	defer func() {
		if recover() != nil {
			set, ok = nil, false
		}
	}()
	set = map[string]*Tree{}
	t := New(name)
	t.text = text
	if _, err := t.Parse(text, "", "", set, funcs); err != nil {
		return nil, false
	}
	return set, true
}

// val is the text of token i, which holds its offsets in the text.
func (t *Tree) val(i item) string {
	switch i.typ {
	case itemEOF:
		return "EOF"
	case itemError:
		return t.lex.errMsg
	}
	return t.text[i.pos:i.end]
}
