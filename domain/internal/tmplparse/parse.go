// Copyright 2011 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tmplparse

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template/parse"
)

// Pos is a byte offset in a template's text.
type Pos = parse.Pos

// errParse ends a parse that text/template/parse is left to report.
var errParse = errors.New("template does not parse")

// maxStackDepth is the maximum depth permitted for nested parenthesized
// expressions, as in text/template/parse.
const maxStackDepth = 10000

// tree is the state of the parse of one template (the file's, or one it
// defines), as text/template/parse's Tree holds it while parsing.
type tree struct {
	name       string
	root       *parse.ListNode
	text       string
	funcs      map[string]any
	lex        *lexer
	token      [3]item // three-token lookahead for parser.
	peekCount  int
	vars       []string // variables defined at the moment.
	treeSet    map[string]*parse.ListNode
	actionLine int // line of left delim starting action
	rangeDepth int
	stackDepth int // depth of nested parenthesized expressions
}

// mark is a {{end}} or {{else}}: they end a list and are no nodes of a tree.
type mark struct {
	kind markKind
	pos  Pos
	line int
}

type markKind int

const (
	noMark markKind = iota
	endMark
	elseMark
)

// next returns the next token.
func (t *tree) next() item {
	if t.peekCount > 0 {
		t.peekCount--
	} else {
		t.token[0] = t.lex.nextItem()
	}
	return t.token[t.peekCount]
}

// backup backs the input stream up one token.
func (t *tree) backup() {
	t.peekCount++
}

// backup2 backs the input stream up two tokens.
// The zeroth token is already there.
func (t *tree) backup2(t1 item) {
	t.token[1] = t1
	t.peekCount = 2
}

// backup3 backs the input stream up three tokens
// The zeroth token is already there.
func (t *tree) backup3(t2, t1 item) { // Reverse order: we're pushing back.
	t.token[1] = t1
	t.token[2] = t2
	t.peekCount = 3
}

// peek returns but does not consume the next token.
func (t *tree) peek() item {
	if t.peekCount > 0 {
		return t.token[t.peekCount-1]
	}
	t.peekCount = 1
	t.token[0] = t.lex.nextItem()
	return t.token[0]
}

// nextNonSpace returns the next non-space token.
func (t *tree) nextNonSpace() (token item) {
	for {
		token = t.next()
		if token.typ != itemSpace {
			break
		}
	}
	return token
}

// peekNonSpace returns but does not consume the next non-space token.
func (t *tree) peekNonSpace() item {
	token := t.nextNonSpace()
	t.backup()
	return token
}

// val is the text of token i.
func (t *tree) val(i item) string {
	switch i.typ {
	case itemEOF:
		return "EOF"
	case itemError:
		return t.lex.errMsg
	}
	return t.text[i.pos:i.end]
}

// errorf ends the parse; the text is parsed again by text/template/parse,
// whose error is the one reported.
func (t *tree) errorf(string, ...any) {
	t.root = nil
	panic(errParse)
}

// error terminates processing.
func (t *tree) error(error) {
	t.errorf("")
}

// expect consumes the next token and guarantees it has the required type.
func (t *tree) expect(expected itemType, context string) item {
	token := t.nextNonSpace()
	if token.typ != expected {
		t.unexpected(token, context)
	}
	return token
}

// expectOneOf consumes the next token and guarantees it has one of the required types.
func (t *tree) expectOneOf(expected1, expected2 itemType, context string) item {
	token := t.nextNonSpace()
	if token.typ != expected1 && token.typ != expected2 {
		t.unexpected(token, context)
	}
	return token
}

// unexpected complains about the token and terminates processing.
func (t *tree) unexpected(item, string) {
	t.errorf("")
}

// startParse initializes the parser, using the lexer.
func (t *tree) startParse(funcs map[string]any, lex *lexer, set map[string]*parse.ListNode) {
	t.root = nil
	t.lex = lex
	t.vars = []string{"$"}
	t.funcs = funcs
	t.treeSet = set
	t.stackDepth = 0
	lex.options = lexOptions{
		breakOK:    !t.hasFunction("break"),
		continueOK: !t.hasFunction("continue"),
	}
}

// stopParse terminates parsing.
func (t *tree) stopParse() {
	t.lex = nil
	t.vars = nil
	t.funcs = nil
	t.treeSet = nil
}

// add adds the tree to the tree set.
func (t *tree) add() {
	if root, ok := t.treeSet[t.name]; !ok || parse.IsEmptyTree(root) {
		t.treeSet[t.name] = t.root
		return
	}
	if !parse.IsEmptyTree(t.root) {
		t.errorf("template: multiple definition of template %q", t.name)
	}
}

// parse is the top-level parser for a template, essentially the same
// as itemList except it also parses {{define}} actions.
// It runs to EOF.
func (t *tree) parse() {
	t.root = newList(t.peek().pos)
	for t.peek().typ != itemEOF {
		if t.peek().typ == itemLeftDelim {
			delim := t.next()
			if t.nextNonSpace().typ == itemDefine {
				newT := &tree{name: "definition", text: t.text} // name will be updated once we know it.
				newT.startParse(t.funcs, t.lex, t.treeSet)
				newT.parseDefinition()
				continue
			}
			t.backup2(delim)
		}
		n, m := t.textOrAction()
		if m.kind != noMark {
			t.errorf("unexpected %v", m)
		}
		t.root.Nodes = append(t.root.Nodes, n)
	}
}

// parseDefinition parses a {{define}} ...  {{end}} template definition and
// installs the definition in the tree set. The "define" keyword has already
// been scanned.
func (t *tree) parseDefinition() {
	const context = "define clause"
	name := t.expectOneOf(itemString, itemRawString, context)
	var err error
	t.name, err = strconv.Unquote(t.val(name))
	if err != nil {
		t.error(err)
	}
	t.expect(itemRightDelim, context)
	var end mark
	t.root, end = t.itemList()
	if end.kind != endMark {
		t.errorf("unexpected %v in %s", end, context)
	}
	t.add()
	t.stopParse()
}

// itemList:
//
//	textOrAction*
//
// Terminates at {{end}} or {{else}}, returned separately.
func (t *tree) itemList() (list *parse.ListNode, next mark) {
	list = newList(t.peekNonSpace().pos)
	for t.peekNonSpace().typ != itemEOF {
		n, m := t.textOrAction()
		if m.kind != noMark {
			return list, m
		}
		list.Nodes = append(list.Nodes, n)
	}
	t.errorf("unexpected EOF")
	return
}

// textOrAction:
//
//	text | comment | action
func (t *tree) textOrAction() (parse.Node, mark) {
	switch token := t.nextNonSpace(); token.typ {
	case itemText:
		return &parse.TextNode{NodeType: parse.NodeText, Pos: token.pos, Text: []byte(t.val(token))}, mark{}
	case itemLeftDelim:
		t.actionLine = token.line
		defer t.clearActionLine()
		return t.action()
	case itemComment:
		return &parse.CommentNode{NodeType: parse.NodeComment, Pos: token.pos, Text: t.val(token)}, mark{}
	default:
		t.unexpected(token, "input")
	}
	return nil, mark{}
}

func (t *tree) clearActionLine() {
	t.actionLine = 0
}

// Action:
//
//	control
//	command ("|" command)*
//
// Left delim is past. Now get actions.
// First word could be a keyword such as range.
func (t *tree) action() (parse.Node, mark) {
	switch token := t.nextNonSpace(); token.typ {
	case itemBlock:
		return t.blockControl(), mark{}
	case itemBreak:
		return t.breakControl(token.pos, token.line), mark{}
	case itemContinue:
		return t.continueControl(token.pos, token.line), mark{}
	case itemElse:
		return nil, t.elseControl()
	case itemEnd:
		return nil, t.endControl()
	case itemIf:
		return t.ifControl(), mark{}
	case itemRange:
		return t.rangeControl(), mark{}
	case itemTemplate:
		return t.templateControl(), mark{}
	case itemWith:
		return t.withControl(), mark{}
	}
	t.backup()
	token := t.peek()
	// Do not pop variables; they persist until "end".
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: token.pos, Line: token.line, Pipe: t.pipeline("command", itemRightDelim)}, mark{}
}

// Break:
//
//	{{break}}
//
// Break keyword is past.
func (t *tree) breakControl(pos Pos, line int) parse.Node {
	if token := t.nextNonSpace(); token.typ != itemRightDelim {
		t.unexpected(token, "{{break}}")
	}
	if t.rangeDepth == 0 {
		t.errorf("{{break}} outside {{range}}")
	}
	return &parse.BreakNode{NodeType: parse.NodeBreak, Pos: pos, Line: line}
}

// Continue:
//
//	{{continue}}
//
// Continue keyword is past.
func (t *tree) continueControl(pos Pos, line int) parse.Node {
	if token := t.nextNonSpace(); token.typ != itemRightDelim {
		t.unexpected(token, "{{continue}}")
	}
	if t.rangeDepth == 0 {
		t.errorf("{{continue}} outside {{range}}")
	}
	return &parse.ContinueNode{NodeType: parse.NodeContinue, Pos: pos, Line: line}
}

// Pipeline:
//
//	declarations? command ('|' command)*
func (t *tree) pipeline(context string, end itemType) (pipe *parse.PipeNode) {
	token := t.peekNonSpace()
	pipe = &parse.PipeNode{NodeType: parse.NodePipe, Pos: token.pos, Line: token.line}
	// Are there declarations or assignments?
decls:
	if v := t.peekNonSpace(); v.typ == itemVariable {
		t.next()
		// Since space is a token, we need 3-token look-ahead here in the worst case:
		// in "$x foo" we need to read "foo" (as opposed to ":=") to know that $x is an
		// argument variable rather than a declaration. So remember the token
		// adjacent to the variable so we can push it back if necessary.
		tokenAfterVariable := t.peek()
		next := t.peekNonSpace()
		switch {
		case next.typ == itemAssign, next.typ == itemDeclare:
			pipe.IsAssign = next.typ == itemAssign
			t.nextNonSpace()
			pipe.Decl = append(pipe.Decl, newVariable(v.pos, t.val(v)))
			t.vars = append(t.vars, t.val(v))
		case next.typ == itemChar && t.val(next) == ",":
			t.nextNonSpace()
			pipe.Decl = append(pipe.Decl, newVariable(v.pos, t.val(v)))
			t.vars = append(t.vars, t.val(v))
			if context == "range" && len(pipe.Decl) < 2 {
				switch t.peekNonSpace().typ {
				case itemVariable, itemRightDelim, itemRightParen:
					// second initialized variable in a range pipeline
					goto decls
				default:
					t.errorf("range can only initialize variables")
				}
			}
			t.errorf("too many declarations in %s", context)
		case tokenAfterVariable.typ == itemSpace:
			t.backup3(v, tokenAfterVariable)
		default:
			t.backup2(v)
		}
	}
	for {
		switch token := t.nextNonSpace(); token.typ {
		case end:
			// At this point, the pipeline is complete
			t.checkPipeline(pipe, context)
			return
		case itemBool, itemCharConstant, itemComplex, itemDot, itemField, itemIdentifier,
			itemNumber, itemNil, itemRawString, itemString, itemVariable, itemLeftParen:
			t.backup()
			pipe.Cmds = append(pipe.Cmds, t.command())
		default:
			t.unexpected(token, context)
		}
	}
}

func (t *tree) checkPipeline(pipe *parse.PipeNode, context string) {
	// Reject empty pipelines
	if len(pipe.Cmds) == 0 {
		t.errorf("missing value for %s", context)
	}
	// Only the first command of a pipeline can start with a non executable operand
	for i, c := range pipe.Cmds[1:] {
		switch c.Args[0].Type() {
		case parse.NodeBool, parse.NodeDot, parse.NodeNil, parse.NodeNumber, parse.NodeString:
			// With A|B|C, pipeline stage 2 is B
			t.errorf("non executable command in pipeline stage %d", i+2)
		}
	}
}

func (t *tree) parseControl(context string) (pos Pos, line int, pipe *parse.PipeNode, list, elseList *parse.ListNode) {
	defer t.popVars(len(t.vars))
	pipe = t.pipeline(context, itemRightDelim)
	if context == "range" {
		t.rangeDepth++
	}
	var next mark
	list, next = t.itemList()
	if context == "range" {
		t.rangeDepth--
	}
	switch next.kind {
	case endMark: //done
	case elseMark:
		// Special case for "else if" and "else with".
		// If the "else" is followed immediately by an "if" or "with",
		// the elseControl will have left the "if" or "with" token pending. Treat
		//	{{if a}}_{{else if b}}_{{end}}
		//  {{with a}}_{{else with b}}_{{end}}
		// as
		//	{{if a}}_{{else}}{{if b}}_{{end}}{{end}}
		//  {{with a}}_{{else}}{{with b}}_{{end}}{{end}}.
		// To do this, parse the "if" or "with" as usual and stop at it {{end}};
		// the subsequent{{end}} is assumed. This technique works even for long if-else-if chains.
		if context == "if" && t.peek().typ == itemIf {
			t.next() // Consume the "if" token.
			elseList = newList(next.pos)
			elseList.Nodes = append(elseList.Nodes, t.ifControl())
		} else if context == "with" && t.peek().typ == itemWith {
			t.next()
			elseList = newList(next.pos)
			elseList.Nodes = append(elseList.Nodes, t.withControl())
		} else {
			elseList, next = t.itemList()
			if next.kind != endMark {
				t.errorf("expected end; found %v", next)
			}
		}
	}
	return pipe.Position(), pipe.Line, pipe, list, elseList
}

// If:
//
//	{{if pipeline}} itemList {{end}}
//	{{if pipeline}} itemList {{else}} itemList {{end}}
//
// If keyword is past.
func (t *tree) ifControl() parse.Node {
	return &parse.IfNode{BranchNode: branch(parse.NodeIf)(t.parseControl("if"))}
}

// Range:
//
//	{{range pipeline}} itemList {{end}}
//	{{range pipeline}} itemList {{else}} itemList {{end}}
//
// Range keyword is past.
func (t *tree) rangeControl() parse.Node {
	return &parse.RangeNode{BranchNode: branch(parse.NodeRange)(t.parseControl("range"))}
}

// With:
//
//	{{with pipeline}} itemList {{end}}
//	{{with pipeline}} itemList {{else}} itemList {{end}}
//
// If keyword is past.
func (t *tree) withControl() parse.Node {
	return &parse.WithNode{BranchNode: branch(parse.NodeWith)(t.parseControl("with"))}
}

// branch builds the branch node of type typ from what parseControl returns.
func branch(typ parse.NodeType) func(Pos, int, *parse.PipeNode, *parse.ListNode, *parse.ListNode) parse.BranchNode {
	return func(pos Pos, line int, pipe *parse.PipeNode, list, elseList *parse.ListNode) parse.BranchNode {
		return parse.BranchNode{NodeType: typ, Pos: pos, Line: line, Pipe: pipe, List: list, ElseList: elseList}
	}
}

// End:
//
//	{{end}}
//
// End keyword is past.
func (t *tree) endControl() mark {
	return mark{kind: endMark, pos: t.expect(itemRightDelim, "end").pos}
}

// Else:
//
//	{{else}}
//
// Else keyword is past.
func (t *tree) elseControl() mark {
	peek := t.peekNonSpace()
	// The "{{else if ... " and "{{else with ..." will be
	// treated as "{{else}}{{if ..." and "{{else}}{{with ...".
	// So return the else node here.
	if peek.typ == itemIf || peek.typ == itemWith {
		return mark{kind: elseMark, pos: peek.pos, line: peek.line}
	}
	token := t.expect(itemRightDelim, "else")
	return mark{kind: elseMark, pos: token.pos, line: token.line}
}

// Block:
//
//	{{block stringValue pipeline}}
//
// Block keyword is past.
// The name must be something that can evaluate to a string.
// The pipeline is mandatory.
func (t *tree) blockControl() parse.Node {
	const context = "block clause"

	token := t.nextNonSpace()
	name := t.parseTemplateName(token, context)
	pipe := t.pipeline(context, itemRightDelim)

	block := &tree{name: name, text: t.text} // name will be updated once we know it.
	block.startParse(t.funcs, t.lex, t.treeSet)
	var end mark
	block.root, end = block.itemList()
	if end.kind != endMark {
		t.errorf("unexpected %v in %s", end, context)
	}
	block.add()
	block.stopParse()

	return &parse.TemplateNode{NodeType: parse.NodeTemplate, Pos: token.pos, Line: token.line, Name: name, Pipe: pipe}
}

// Template:
//
//	{{template stringValue pipeline}}
//
// Template keyword is past. The name must be something that can evaluate
// to a string.
func (t *tree) templateControl() parse.Node {
	const context = "template clause"
	token := t.nextNonSpace()
	name := t.parseTemplateName(token, context)
	var pipe *parse.PipeNode
	if t.nextNonSpace().typ != itemRightDelim {
		t.backup()
		// Do not pop variables; they persist until "end".
		pipe = t.pipeline(context, itemRightDelim)
	}
	return &parse.TemplateNode{NodeType: parse.NodeTemplate, Pos: token.pos, Line: token.line, Name: name, Pipe: pipe}
}

func (t *tree) parseTemplateName(token item, context string) (name string) {
	switch token.typ {
	case itemString, itemRawString:
		s, err := strconv.Unquote(t.val(token))
		if err != nil {
			t.error(err)
		}
		name = s
	default:
		t.unexpected(token, context)
	}
	return
}

// command:
//
//	operand (space operand)*
//
// space-separated arguments up to a pipeline character or right delimiter.
// we consume the pipe character but leave the right delim to terminate the action.
func (t *tree) command() *parse.CommandNode {
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: t.peekNonSpace().pos}
	for {
		t.peekNonSpace() // skip leading spaces.
		operand := t.operand()
		if operand != nil {
			cmd.Args = append(cmd.Args, operand)
		}
		switch token := t.next(); token.typ {
		case itemSpace:
			continue
		case itemRightDelim, itemRightParen:
			t.backup()
		case itemPipe:
			// nothing here; break loop below
		default:
			t.unexpected(token, "operand")
		}
		break
	}
	if len(cmd.Args) == 0 {
		t.errorf("empty command")
	}
	return cmd
}

// operand:
//
//	term .Field*
//
// An operand is a space-separated component of a command,
// a term possibly followed by field accesses.
// A nil return means the next item is not an operand.
func (t *tree) operand() parse.Node {
	node := t.term()
	if node == nil {
		return nil
	}
	if t.peek().typ == itemField {
		chain := &parse.ChainNode{NodeType: parse.NodeChain, Pos: t.peek().pos, Node: node}
		for t.peek().typ == itemField {
			chain.Add(t.val(t.next()))
		}
		// Compatibility with original API: If the term is of type NodeField
		// or NodeVariable, just put more fields on the original.
		// Otherwise, keep the Chain node.
		// Obvious parsing errors involving literal values are detected here.
		// More complex error cases will have to be handled at execution time.
		// A field or variable takes the chain's fields as they are, not by
		// formatting the chain and splitting it again.
		switch n := node.(type) {
		case *parse.FieldNode:
			node = &parse.FieldNode{NodeType: parse.NodeField, Pos: chain.Pos, Ident: joinIdents(n.Ident, chain.Field)}
		case *parse.VariableNode:
			node = &parse.VariableNode{NodeType: parse.NodeVariable, Pos: chain.Pos, Ident: joinIdents(n.Ident, chain.Field)}
		case *parse.BoolNode, *parse.StringNode, *parse.NumberNode, *parse.NilNode, *parse.DotNode:
			t.errorf("unexpected . after term %q", node.String())
		default:
			node = chain
		}
	}
	return node
}

// joinIdents is a field or variable's identifiers followed by a chain's fields.
func joinIdents(ident, fields []string) []string {
	out := make([]string, 0, len(ident)+len(fields))
	return append(append(out, ident...), fields...)
}

// term:
//
//	literal (number, string, nil, boolean)
//	function (identifier)
//	.
//	.Field
//	$
//	'(' pipeline ')'
//
// A term is a simple "expression".
// A nil return means the next item is not a term.
func (t *tree) term() parse.Node {
	switch token := t.nextNonSpace(); token.typ {
	case itemIdentifier:
		if !t.hasFunction(t.val(token)) {
			t.errorf("function %q not defined", t.val(token))
		}
		return parse.NewIdentifier(t.val(token)).SetPos(token.pos)
	case itemDot:
		return &parse.DotNode{NodeType: parse.NodeDot, Pos: token.pos}
	case itemNil:
		return &parse.NilNode{NodeType: parse.NodeNil, Pos: token.pos}
	case itemVariable:
		return t.useVar(token.pos, t.val(token))
	case itemField:
		return newField(token.pos, t.val(token))
	case itemBool:
		return &parse.BoolNode{NodeType: parse.NodeBool, Pos: token.pos, True: t.val(token) == "true"}
	case itemCharConstant, itemComplex, itemNumber:
		number, err := newNumber(token.pos, t.val(token), token.typ)
		if err != nil {
			t.error(err)
		}
		return number
	case itemLeftParen:
		if t.stackDepth >= maxStackDepth {
			t.errorf("max expression depth exceeded")
		}
		t.stackDepth++
		defer func() { t.stackDepth-- }()
		return t.pipeline("parenthesized pipeline", itemRightParen)
	case itemString, itemRawString:
		s, err := strconv.Unquote(t.val(token))
		if err != nil {
			t.error(err)
		}
		return &parse.StringNode{NodeType: parse.NodeString, Pos: token.pos, Quoted: t.val(token), Text: s}
	}
	t.backup()
	return nil
}

// hasFunction reports if a function name exists in the tree's functions.
func (t *tree) hasFunction(name string) bool {
	return t.funcs[name] != nil
}

// popVars trims the variable list to the specified length
func (t *tree) popVars(n int) {
	t.vars = t.vars[:n]
}

// useVar returns a node for a variable reference. It errors if the
// variable is not defined.
func (t *tree) useVar(pos Pos, name string) parse.Node {
	v := newVariable(pos, name)
	for _, varName := range t.vars {
		if varName == v.Ident[0] {
			return v
		}
	}
	t.errorf("undefined variable %q", v.Ident[0])
	return nil
}

func newList(pos Pos) *parse.ListNode {
	return &parse.ListNode{NodeType: parse.NodeList, Pos: pos}
}

func newVariable(pos Pos, ident string) *parse.VariableNode {
	return &parse.VariableNode{NodeType: parse.NodeVariable, Pos: pos, Ident: strings.Split(ident, ".")}
}

func newField(pos Pos, ident string) *parse.FieldNode {
	return &parse.FieldNode{NodeType: parse.NodeField, Pos: pos, Ident: strings.Split(ident[1:], ".")} // [1:] to drop leading period
}

func newNumber(pos Pos, text string, typ itemType) (*parse.NumberNode, error) {
	n := &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, Text: text}
	switch typ {
	case itemCharConstant:
		rune, _, tail, err := strconv.UnquoteChar(text[1:], text[0])
		if err != nil {
			return nil, err
		}
		if tail != "'" {
			return nil, fmt.Errorf("malformed character constant: %s", text)
		}
		n.Int64 = int64(rune)
		n.IsInt = true
		n.Uint64 = uint64(rune)
		n.IsUint = true
		n.Float64 = float64(rune) // odd but those are the rules.
		n.IsFloat = true
		return n, nil
	case itemComplex:
		// fmt.Sscan can parse the pair, so let it do the work.
		if _, err := fmt.Sscan(text, &n.Complex128); err != nil {
			return nil, err
		}
		n.IsComplex = true
		simplifyComplex(n)
		return n, nil
	}
	// Imaginary constants can only be complex unless they are zero.
	if len(text) > 0 && text[len(text)-1] == 'i' {
		f, err := strconv.ParseFloat(text[:len(text)-1], 64)
		if err == nil {
			n.IsComplex = true
			n.Complex128 = complex(0, f)
			simplifyComplex(n)
			return n, nil
		}
	}
	// Do integer test first so we get 0x123 etc.
	u, err := strconv.ParseUint(text, 0, 64) // will fail for -0; fixed below.
	if err == nil {
		n.IsUint = true
		n.Uint64 = u
	}
	i, err := strconv.ParseInt(text, 0, 64)
	if err == nil {
		n.IsInt = true
		n.Int64 = i
		if i == 0 {
			n.IsUint = true // in case of -0.
			n.Uint64 = u
		}
	}
	// If an integer extraction succeeded, promote the float.
	if n.IsInt {
		n.IsFloat = true
		n.Float64 = float64(n.Int64)
	} else if n.IsUint {
		n.IsFloat = true
		n.Float64 = float64(n.Uint64)
	} else {
		f, err := strconv.ParseFloat(text, 64)
		if err == nil {
			// If we parsed it as a float but it looks like an integer,
			// it's a huge number too large to fit in an int. Reject it.
			if !strings.ContainsAny(text, ".eEpP") {
				return nil, fmt.Errorf("integer overflow: %q", text)
			}
			n.IsFloat = true
			n.Float64 = f
			// If a floating-point extraction succeeded, extract the int if needed.
			if !n.IsInt && float64(int64(f)) == f {
				n.IsInt = true
				n.Int64 = int64(f)
			}
			if !n.IsUint && float64(uint64(f)) == f {
				n.IsUint = true
				n.Uint64 = uint64(f)
			}
		}
	}
	if !n.IsInt && !n.IsUint && !n.IsFloat {
		return nil, fmt.Errorf("illegal number syntax: %q", text)
	}
	return n, nil
}

// simplifyComplex pulls out any other types that are represented by the complex number.
// These all require that the imaginary part be zero.
func simplifyComplex(n *parse.NumberNode) {
	n.IsFloat = imag(n.Complex128) == 0
	if n.IsFloat {
		n.Float64 = real(n.Complex128)
		n.IsInt = float64(int64(n.Float64)) == n.Float64
		if n.IsInt {
			n.Int64 = int64(n.Float64)
		}
		n.IsUint = float64(uint64(n.Float64)) == n.Float64
		if n.IsUint {
			n.Uint64 = uint64(n.Float64)
		}
	}
}
