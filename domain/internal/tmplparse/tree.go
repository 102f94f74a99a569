// Package tmplparse parses templates as text/template/parse does, into its trees,
// in about two thirds of its time. It is that package's lexer and parser (Go 1.26,
// BSD licence: LICENSE), changed where the time went: tokens hold offsets into the
// text instead of strings (no write barriers while tokens are passed around),
// ASCII runes are read without decoding, keywords are found without a map, and a
// field chain ($x.a.b, .a.b) is built from its parts instead of being formatted
// and split again. A text that does not parse is parsed again by
// text/template/parse, so that its error, words and all, is that package's.
package tmplparse

import (
	"strings"
	"text/template/parse"
)

// textDelim is a left delimiter a template's text does not hold: parsed with it,
// the text is a single text node, which is how a tree gets the text it reports
// execution errors from.
const textDelim, textRightDelim = "\x00\x00\x00", "\x00\x00\x01"

// Parse returns the trees that parse.Parse(name, text, "", "", funcs) returns:
// name's tree and those the text defines, by name.
func Parse(name, text string, funcs map[string]any) (map[string]*parse.Tree, error) {
	roots, ok := parseRoots(name, text, funcs)
	if !ok || strings.Contains(text, textDelim) {
		return parse.Parse(name, text, "", "", funcs)
	}
	base, err := parse.New(name).Parse(text, textDelim, textRightDelim, map[string]*parse.Tree{})
	if err != nil {
		return parse.Parse(name, text, "", "", funcs)
	}
	base.Root = nil
	trees := make(map[string]*parse.Tree, len(roots))
	for n, root := range roots {
		tr := base.Copy()
		tr.Name, tr.Root = n, root
		trees[n] = tr
	}
	return trees, nil
}

// parseRoots parses text into the roots of its trees; ok is false when it does
// not parse (or the parser fails in any way: text/template/parse has the last
// word).
func parseRoots(name, text string, funcs map[string]any) (roots map[string]*parse.ListNode, ok bool) {
	defer func() {
		if recover() != nil {
			roots, ok = nil, false
		}
	}()
	roots = map[string]*parse.ListNode{}
	t := &tree{name: name, text: text}
	t.startParse(funcs, lex(name, text, "", ""), roots)
	t.parse()
	t.add()
	t.stopParse()
	return roots, true
}
