package manifest

import (
	"strings"
	"unicode/utf8"
)

// scanHead reads a document's head without building its value tree: a rendered
// manifest is mostly large CRD schemas, and Helm's decision for a document (is it
// YAML, what are its kind, name and annotations) only needs the tree checked, not
// built. It takes the document when it is plain block YAML (block mappings and
// sequences; plain, quoted and block scalars; "{}" and "[]") that the YAML parser
// Helm uses certainly accepts and the JSON step certainly converts, and reports
// false for anything else (flow collections, anchors, aliases, tags, tabs,
// directives, keys that are not plainly strings, head fields that are not plain
// strings, anything unusual), which then takes the decoding route. The rules
// below follow go.yaml.in/yaml/v2's scanner (scannerc.go); the differential
// tests and FuzzParseHead hold them to Helm's decoding.
func scanHead(doc string) (*Head, bool) {
	if !plainText(doc) {
		return nil, false
	}
	s := &headScanner{s: doc}
	start, indent, ok := s.nextLine(0)
	if !ok {
		return &Head{}, true
	}
	s.i = start + indent
	if isSeqEntry(doc, s.i) || !s.keyFollows(s.i) {
		return nil, false
	}
	h := &Head{}
	if !s.mapping(indent, roleTop, h, 0) {
		return nil, false
	}
	if _, _, more := s.nextLine(s.following()); more {
		return nil, false
	}
	return h, true
}

// plainText reports whether doc holds only characters the YAML reader accepts
// and the scanner takes as nothing special: printable ASCII, line feeds, and
// printable non-ASCII other than the Unicode line breaks and the byte order mark.
// Tabs and carriage returns have rules of their own; those documents are left
// to the parser.
func plainText(doc string) bool {
	for i := 0; i < len(doc); {
		c := doc[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(doc[i:])
		switch {
		case r == utf8.RuneError && n == 1, r < 0xa0, r >= 0xd800 && r <= 0xdfff,
			r == 0x2028, r == 0x2029, r == 0xfeff, r == 0xfffe, r == 0xffff:
			return false
		}
		i += n
	}
	return true
}

// headScanner walks a document line by line; i is the position being read.
type headScanner struct {
	s string
	i int
}

// role says what a mapping is to the head: its top level, its metadata, the
// metadata's annotations, or none of these.
type role int

const (
	roleOther role = iota
	roleTop
	roleMeta
	roleAnnotations
)

// maxDepth bounds the nesting the scanner follows; deeper documents go to the
// parser, which has limits of its own.
const maxDepth = 1000

// maxKeyLength is under the 1024 characters the scanner allows a simple key.
const maxKeyLength = 1000

// nodeKind is what a value turned out to be, as far as the head cares.
type nodeKind int

const (
	nodeNull     nodeKind = iota
	nodeString            // a one-line scalar that is certainly a string; str holds it
	nodeScalar            // any other scalar
	nodeEmptyMap          // {}
	nodeMapping
	nodeOther // a sequence or []
)

// nextLine finds the first line from the one starting at start that holds
// more than spaces and a comment, and returns its start and indentation; ok is
// false at the end of the document.
func (s *headScanner) nextLine(start int) (int, int, bool) {
	for start < len(s.s) {
		j := skipSpaces(s.s, start)
		if j < len(s.s) && s.s[j] != '\n' && s.s[j] != '#' {
			return start, j - start, true
		}
		start = lineEnd(s.s, j) + 1
	}
	return len(s.s), 0, false
}

// following is the start of the line after the one s.i ends.
func (s *headScanner) following() int {
	return min(s.i+1, len(s.s))
}

func lineStart(s string, i int) int {
	return strings.LastIndexByte(s[:i], '\n') + 1
}

// lineEnd is the position of the line feed ending the line holding i, or len(s).
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// endOfLine reports whether i is at a line end or at a comment after a space.
func endOfLine(s string, i int) bool {
	return i == len(s) || s[i] == '\n' || (s[i] == '#' && i > 0 && s[i-1] == ' ')
}

// isSeqEntry reports whether a block sequence entry ("-" and a blank) starts at i.
func isSeqEntry(s string, i int) bool {
	return i < len(s) && s[i] == '-' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n')
}

// column is i's distance from its line's start.
func (s *headScanner) column(i int) int {
	return i - lineStart(s.s, i)
}

// mapping checks a block mapping whose keys are at column col, the first at
// s.i, and fills h with what r says to take. It stops before the first line
// that is less indented.
func (s *headScanner) mapping(col int, r role, h *Head, depth int) bool {
	if depth > maxDepth {
		return false
	}
	seen := map[string]bool{}
	for first := true; ; first = false {
		if !first {
			start, indent, ok := s.nextLine(s.following())
			if !ok || indent < col {
				return true
			}
			if indent > col {
				return false
			}
			s.i = start + indent
		}
		key, ok := s.key()
		if !ok {
			return false
		}
		if !s.entry(col, r, h, key, seen, depth) {
			return false
		}
	}
}

// entry checks the value of key in a mapping at column col playing role r.
func (s *headScanner) entry(col int, r role, h *Head, key string, seen map[string]bool, depth int) bool {
	field, child := headField(r, key)
	if field == "" {
		if r == roleAnnotations {
			if _, dup := h.Metadata.Annotations[key]; dup {
				return false
			}
		}
		n, ok := s.value(col, false, child, h, depth)
		if !ok {
			return false
		}
		if r == roleAnnotations {
			// Annotations are strings; anything else is converted by the
			// JSON step or refused.
			if n.kind != nodeString {
				return false
			}
			h.Metadata.Annotations[key] = n.str
		}
		return true
	}
	if field == "?" || seen[field] {
		// A key that JSON decoding would match regardless of case, or one
		// given twice: the decoding route decides which value wins.
		return false
	}
	seen[field] = true
	switch field {
	case "metadata":
		h.Metadata = &HeadMeta{}
	case "annotations":
		h.Metadata.Annotations = map[string]string{}
	}
	n, ok := s.value(col, false, child, h, depth)
	if !ok {
		return false
	}
	switch field {
	case "apiVersion", "kind", "name":
		var v string
		switch n.kind {
		case nodeNull:
		case nodeString:
			v = n.str
		default:
			return false
		}
		switch field {
		case "apiVersion":
			h.Version = v
		case "kind":
			h.Kind = v
		default:
			h.Metadata.Name = v
		}
	case "metadata", "annotations":
		switch n.kind {
		case nodeNull:
			if field == "metadata" {
				h.Metadata = nil
			} else {
				h.Metadata.Annotations = nil
			}
		case nodeMapping, nodeEmptyMap:
		default:
			return false
		}
	}
	return true
}

// headField names the head field key is in a mapping playing role r ("" for
// none, "?" for a key that differs from a field's name only in case), and the
// role of its value.
func headField(r role, key string) (field string, child role) {
	var fields []string
	switch r {
	case roleTop:
		fields = []string{"apiVersion", "kind", "metadata"}
	case roleMeta:
		fields = []string{"name", "annotations"}
	}
	for _, f := range fields {
		switch {
		case key == f:
			switch f {
			case "metadata":
				return f, roleMeta
			case "annotations":
				return f, roleAnnotations
			}
			return f, roleOther
		case strings.EqualFold(key, f):
			return "?", roleOther
		}
	}
	return "", roleOther
}

// key reads a mapping key at s.i and leaves s.i after its ':'. Keys the JSON
// step might not take as the same string (non-strings, merge keys) are refused.
func (s *headScanner) key() (string, bool) {
	start := s.i
	var key string
	var end int
	switch c := s.s[start]; c {
	case '"', '\'':
		v, e, ok := s.oneLineQuoted(start)
		if !ok {
			return "", false
		}
		key = v
		end = skipSpaces(s.s, e)
		if end >= len(s.s) || s.s[end] != ':' || !blankOrEnd(s.s, end+1) {
			return "", false
		}
	default:
		if isIndicator(c) {
			return "", false
		}
		end = plainKeyEnd(s.s, start)
		if end < 0 {
			return "", false
		}
		key = strings.TrimRight(s.s[start:end], " ")
		if !plainString(key) {
			return "", false
		}
	}
	if end-start > maxKeyLength || key == "<<" {
		return "", false
	}
	s.i = end + 1
	return key, true
}

// plainKeyEnd is the position of the ':' ending a plain key starting at i, or -1
// when the line has none before a comment or its end.
func plainKeyEnd(s string, i int) int {
	for ; i < len(s) && s[i] != '\n'; i++ {
		switch s[i] {
		case ':':
			if blankOrEnd(s, i+1) {
				return i
			}
		case '#':
			if s[i-1] == ' ' {
				return -1
			}
		}
	}
	return -1
}

// keyFollows reports whether a mapping key (plain or quoted, on one line) starts at i.
func (s *headScanner) keyFollows(i int) bool {
	switch c := s.s[i]; c {
	case '"', '\'':
		_, e, ok := s.oneLineQuoted(i)
		if !ok {
			return false
		}
		e = skipSpaces(s.s, e)
		return e < len(s.s) && s.s[e] == ':' && blankOrEnd(s.s, e+1)
	default:
		return !isIndicator(c) && plainKeyEnd(s.s, i) >= 0
	}
}

// blankOrEnd reports whether i is at a space, a line end or the document's end.
func blankOrEnd(s string, i int) bool {
	return i >= len(s) || s[i] == ' ' || s[i] == '\n'
}

// isIndicator reports whether a token starting with c is not a plain scalar
// (or one this scanner leaves to the parser: "-", "?" and ":" start plain
// scalars only before a non-blank).
func isIndicator(c byte) bool {
	return strings.IndexByte("-?:,[]{}#&*!|>'\"%@` ", c) >= 0
}

// plainString reports whether a one-line plain scalar resolves to a string
// that the JSON step keeps as it is: the YAML resolver only looks further at
// scalars starting with a sign, a digit, a dot or one of "yYnNtTfFoO~".
func plainString(v string) bool {
	if v == "" {
		return false
	}
	switch c := v[0]; {
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		return false
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		switch v {
		case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
			"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
			"~", "null", "Null", "NULL":
			return false
		}
	}
	return true
}

// nonFinite reports whether a plain scalar is one the YAML resolver reads as an
// infinity or NaN, which the JSON step refuses.
func nonFinite(v string) bool {
	switch strings.TrimLeft(v, "+-") {
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF":
		return true
	}
	return false
}

// node is a value as the head sees it.
type node struct {
	kind nodeKind
	str  string
}

// value checks the value that starts at s.i, after the ':' of a key or the '-'
// of a sequence entry (seqItem) of a collection at column col, and leaves s.i
// at the end of its last line. A nested mapping plays role r.
func (s *headScanner) value(col int, seqItem bool, r role, h *Head, depth int) (node, bool) {
	j := skipSpaces(s.s, s.i)
	if endOfLine(s.s, j) {
		return s.nested(col, seqItem, r, h, depth)
	}
	if seqItem && s.keyFollows(j) {
		s.i = j
		if !s.mapping(s.column(j), r, h, depth+1) {
			return node{}, false
		}
		return node{kind: nodeMapping}, true
	}
	return s.scalar(j, col)
}

// scalar checks a scalar (or an empty flow collection) starting at j, the value
// of an entry of a collection at column col.
func (s *headScanner) scalar(j, col int) (node, bool) {
	switch c := s.s[j]; c {
	case '"', '\'':
		return s.quoted(j)
	case '|', '>':
		return s.blockScalar(j, col)
	case '{':
		if j+1 < len(s.s) && s.s[j+1] == '}' && s.tailOK(j+2) {
			return node{kind: nodeEmptyMap}, true
		}
		return node{}, false
	case '[':
		e, ok := s.flowSequence(j)
		return node{kind: nodeOther}, ok && s.tailOK(e)
	case '-':
		if isSeqEntry(s.s, j) {
			return node{}, false
		}
	default:
		if isIndicator(c) {
			return node{}, false
		}
	}
	return s.plain(j, col)
}

// tailOK reports whether only spaces and a comment follow i on its line, and
// moves s.i to the line's end.
func (s *headScanner) tailOK(i int) bool {
	j := skipSpaces(s.s, i)
	if !endOfLine(s.s, j) || (j == i && j < len(s.s) && s.s[j] == '#') {
		return false
	}
	s.i = lineEnd(s.s, j)
	return true
}

// nested checks a value given on the lines after its key or dash: a block
// collection more indented, a sequence at the column of the mapping it is a
// value of, or nothing (null).
func (s *headScanner) nested(col int, seqItem bool, r role, h *Head, depth int) (node, bool) {
	s.i = lineEnd(s.s, s.i)
	start, indent, ok := s.nextLine(s.following())
	if !ok || indent < col {
		return node{kind: nodeNull}, true
	}
	i := start + indent
	if isSeqEntry(s.s, i) && (indent > col || !seqItem) {
		s.i = i
		return node{kind: nodeOther}, s.sequence(indent, h, depth+1)
	}
	if indent == col {
		return node{kind: nodeNull}, true
	}
	if !s.keyFollows(i) {
		return s.scalar(i, col)
	}
	s.i = i
	return node{kind: nodeMapping}, s.mapping(indent, r, h, depth+1)
}

// sequence checks a block sequence whose dashes are at column col, the first at s.i.
func (s *headScanner) sequence(col int, h *Head, depth int) bool {
	if depth > maxDepth {
		return false
	}
	for first := true; ; first = false {
		if !first {
			start, indent, ok := s.nextLine(s.following())
			if !ok || indent < col || !isSeqEntry(s.s, start+indent) {
				// What follows is for the collection around to place.
				return true
			}
			if indent > col {
				return false
			}
			s.i = start + indent
		}
		s.i++
		if _, ok := s.value(col, true, roleOther, h, depth); !ok {
			return false
		}
	}
}

// plain checks a plain scalar starting at j, the value of an entry of a
// collection at column col, and its continuation lines (those more indented).
func (s *headScanner) plain(j, col int) (node, bool) {
	end, comment, ok := plainLine(s.s, j)
	if !ok {
		return node{}, false
	}
	v := strings.TrimRight(s.s[j:end], " ")
	if nonFinite(v) {
		return node{}, false
	}
	s.i = lineEnd(s.s, end)
	multiline := false
	for !comment && s.i < len(s.s) {
		// The scalar goes on over blank lines and lines more indented than
		// its collection; a comment ends it.
		next := s.i + 1
		k := skipSpaces(s.s, next)
		if k < len(s.s) && s.s[k] == '\n' {
			s.i = k
			continue
		}
		if k == len(s.s) || k-next <= col || s.s[k] == '#' {
			break
		}
		end, comment, ok = plainLine(s.s, k)
		if !ok {
			return node{}, false
		}
		multiline = true
		s.i = lineEnd(s.s, end)
	}
	if multiline || !plainString(v) {
		return node{kind: nodeScalar}, true
	}
	return node{kind: nodeString, str: v}, true
}

// plainLine scans one line of a plain scalar from j: end is where its text
// ends (the line's end or a comment, comment tells which). A ": " in it is a
// mapping where none may start.
func plainLine(s string, j int) (end int, comment, ok bool) {
	for i := j; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return i, false, true
		case ':':
			if blankOrEnd(s, i+1) {
				return 0, false, false
			}
		case '#':
			if s[i-1] == ' ' {
				return i, true, true
			}
		}
	}
	return len(s), false, true
}

// oneLineQuoted reads a quoted scalar at i that ends on its line and returns its
// value and the position after the closing quote. Double-quoted scalars with
// escapes are refused.
func (s *headScanner) oneLineQuoted(i int) (string, int, bool) {
	q := s.s[i]
	var b strings.Builder
	for k := i + 1; k < len(s.s); k++ {
		switch c := s.s[k]; {
		case c == '\n', q == '"' && c == '\\':
			return "", 0, false
		case c == q && q == '\'' && k+1 < len(s.s) && s.s[k+1] == '\'':
			b.WriteByte('\'')
			k++
		case c == q:
			return b.String(), k + 1, true
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// quoted checks a quoted scalar at j, which may span lines, and what follows it
// on its last line.
func (s *headScanner) quoted(j int) (node, bool) {
	if v, e, ok := s.oneLineQuoted(j); ok {
		if !s.tailOK(e) {
			return node{}, false
		}
		return node{kind: nodeString, str: v}, true
	}
	q := s.s[j]
	for k := j + 1; k < len(s.s); k++ {
		switch c := s.s[k]; {
		case c == '\n':
			if documentIndicator(s.s, k+1) {
				return node{}, false
			}
		case q == '\'' && c == '\'':
			if k+1 < len(s.s) && s.s[k+1] == '\'' {
				k++
				continue
			}
			return node{kind: nodeScalar}, s.tailOK(k + 1)
		case q == '"' && c == '"':
			return node{kind: nodeScalar}, s.tailOK(k + 1)
		case q == '"' && c == '\\':
			n, ok := escapeLength(s.s, k+1)
			if !ok {
				return node{}, false
			}
			k += n
		}
	}
	return node{}, false
}

// documentIndicator reports whether a "---" or "..." marker starts the line at i.
func documentIndicator(s string, i int) bool {
	if !strings.HasPrefix(s[i:], "---") && !strings.HasPrefix(s[i:], "...") {
		return false
	}
	return blankOrEnd(s, i+3)
}

// escapeLength is the length of the escape after a backslash at i-1 in a
// double-quoted scalar, or false when the scanner would refuse it.
func escapeLength(s string, i int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	var digits int
	switch s[i] {
	case '0', 'a', 'b', 't', 'n', 'v', 'f', 'r', 'e', ' ', '"', '\'', '\\', 'N', '_', 'L', 'P':
		return 1, true
	case '\n':
		// An escaped line break: the next line is checked as the scalar goes on.
		return 0, true
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		return 0, false
	}
	if i+1+digits > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[i+1 : i+1+digits]) {
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, false
		}
		v = v<<4 + d
	}
	if (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff {
		return 0, false
	}
	return 1 + digits, true
}

// blockScalar checks a literal or folded scalar whose indicator is at j, the
// value of an entry of a collection at column col: its header, then the lines
// at its indentation (col plus the header's indentation indicator, or the
// first content line's, at least col+1).
func (s *headScanner) blockScalar(j, col int) (node, bool) {
	k := j + 1
	chomp := func() {
		if k < len(s.s) && (s.s[k] == '+' || s.s[k] == '-') {
			k++
		}
	}
	chomp()
	increment := 0
	if k < len(s.s) && s.s[k] >= '1' && s.s[k] <= '9' {
		increment = int(s.s[k] - '0')
		k++
		if k == j+2 {
			chomp()
		}
	}
	k = skipSpaces(s.s, k)
	if k < len(s.s) && s.s[k] != '\n' && s.s[k] != '#' {
		// A 0 indicator, or text after the header.
		return node{}, false
	}
	s.i = lineEnd(s.s, k)
	indent := col + increment
	if increment == 0 {
		// The first line that is not blank sets the indentation; blank lines
		// before it with more spaces would raise it, and are left to the parser.
		longestBlank := 0
		for next := s.i + 1; next < len(s.s); {
			k := skipSpaces(s.s, next)
			if k < len(s.s) && s.s[k] != '\n' {
				if longestBlank > k-next {
					return node{}, false
				}
				indent = max(k-next, col+1)
				break
			}
			longestBlank = max(longestBlank, k-next)
			next = k + 1
		}
	}
	for s.i < len(s.s) {
		next := s.i + 1
		k := skipSpaces(s.s, next)
		if k < len(s.s) && s.s[k] != '\n' && k-next < indent {
			break
		}
		s.i = lineEnd(s.s, k)
	}
	return node{kind: nodeScalar}, true
}

// flowSequence checks a flow sequence at j that ends on its line and holds only
// quoted scalars and plain words (letters, digits, "_./-", not starting with
// "-" or "."), and returns the position after its "]".
func (s *headScanner) flowSequence(j int) (int, bool) {
	k := skipSpaces(s.s, j+1)
	if k < len(s.s) && s.s[k] == ']' {
		return k + 1, true
	}
	for k < len(s.s) {
		switch c := s.s[k]; {
		case c == '"' || c == '\'':
			e, ok := s.flowQuoted(k)
			if !ok {
				return 0, false
			}
			k = e
		case flowWordByte(c) && c != '-' && c != '.':
			for k < len(s.s) && flowWordByte(s.s[k]) {
				k++
			}
		default:
			return 0, false
		}
		k = skipSpaces(s.s, k)
		if k == len(s.s) {
			return 0, false
		}
		switch s.s[k] {
		case ']':
			return k + 1, true
		case ',':
			k = skipSpaces(s.s, k+1)
		default:
			return 0, false
		}
	}
	return 0, false
}

func flowWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}

// flowQuoted checks a quoted scalar at k that ends on its line and returns the
// position after its closing quote.
func (s *headScanner) flowQuoted(k int) (int, bool) {
	q := s.s[k]
	for i := k + 1; i < len(s.s); i++ {
		switch c := s.s[i]; {
		case c == '\n':
			return 0, false
		case q == '\'' && c == '\'':
			if i+1 < len(s.s) && s.s[i+1] == '\'' {
				i++
				continue
			}
			return i + 1, true
		case q == '"' && c == '"':
			return i + 1, true
		case q == '"' && c == '\\':
			n, ok := escapeLength(s.s, i+1)
			if !ok || n == 0 {
				return 0, false
			}
			i += n
		}
	}
	return 0, false
}
