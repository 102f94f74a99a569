//go:build go1.26 && !go1.27

package tmplparse

import (
	"fmt"
	"strconv"
	"strings"
	"text/template/parse"
)

// The nodes are text/template/parse's, under the names lex.go and parse.go use:
// text/template executes the trees as it executes its own.
type (
	Node           = parse.Node
	NodeType       = parse.NodeType
	Pos            = parse.Pos
	ActionNode     = parse.ActionNode
	BoolNode       = parse.BoolNode
	ChainNode      = parse.ChainNode
	CommandNode    = parse.CommandNode
	CommentNode    = parse.CommentNode
	DotNode        = parse.DotNode
	FieldNode      = parse.FieldNode
	IdentifierNode = parse.IdentifierNode
	IfNode         = parse.IfNode
	ListNode       = parse.ListNode
	NilNode        = parse.NilNode
	NumberNode     = parse.NumberNode
	PipeNode       = parse.PipeNode
	RangeNode      = parse.RangeNode
	StringNode     = parse.StringNode
	TemplateNode   = parse.TemplateNode
	TextNode       = parse.TextNode
	VariableNode   = parse.VariableNode
	WithNode       = parse.WithNode
)

const (
	NodeBool     = parse.NodeBool
	NodeDot      = parse.NodeDot
	NodeField    = parse.NodeField
	NodeNil      = parse.NodeNil
	NodeNumber   = parse.NodeNumber
	NodeString   = parse.NodeString
	NodeVariable = parse.NodeVariable
)

// nodeElse and nodeEnd are the types of {{else}} and {{end}}, which end a list
// and are in no tree; their values are text/template/parse's (unexported).
const (
	nodeElse = parse.NodeDot + 1 + iota
	nodeEnd
)

// The constructors below are those of text/template/parse's node.go, but for
// the pointer from node to tree, an unexported field: text/template takes the
// executing template's tree instead, which holds the same text, for the line and
// column of an execution error.

func (t *Tree) newList(pos Pos) *ListNode {
	return &ListNode{NodeType: parse.NodeList, Pos: pos}
}

func (t *Tree) newText(pos Pos, text string) *TextNode {
	return &TextNode{NodeType: parse.NodeText, Pos: pos, Text: []byte(text)}
}

func (t *Tree) newComment(pos Pos, text string) *CommentNode {
	return &CommentNode{NodeType: parse.NodeComment, Pos: pos, Text: text}
}

func (t *Tree) newPipeline(pos Pos, line int, vars []*VariableNode) *PipeNode {
	return &PipeNode{NodeType: parse.NodePipe, Pos: pos, Line: line, Decl: vars}
}

func (t *Tree) newAction(pos Pos, line int, pipe *PipeNode) *ActionNode {
	return &ActionNode{NodeType: parse.NodeAction, Pos: pos, Line: line, Pipe: pipe}
}

func (t *Tree) newCommand(pos Pos) *CommandNode {
	return &CommandNode{NodeType: parse.NodeCommand, Pos: pos}
}

func newIdentifier(ident string) *IdentifierNode {
	return parse.NewIdentifier(ident)
}

func (t *Tree) newVariable(pos Pos, ident string) *VariableNode {
	return &VariableNode{NodeType: NodeVariable, Pos: pos, Ident: strings.Split(ident, ".")}
}

func (t *Tree) newDot(pos Pos) *DotNode {
	return &DotNode{NodeType: NodeDot, Pos: pos}
}

func (t *Tree) newNil(pos Pos) *NilNode {
	return &NilNode{NodeType: NodeNil, Pos: pos}
}

func (t *Tree) newField(pos Pos, ident string) *FieldNode {
	return &FieldNode{NodeType: NodeField, Pos: pos, Ident: strings.Split(ident[1:], ".")} // [1:] to drop leading period
}

func (t *Tree) newChain(pos Pos, node Node) *ChainNode {
	return &ChainNode{NodeType: parse.NodeChain, Pos: pos, Node: node}
}

// joinIdents is a field or variable's identifiers followed by a chain's fields.
func joinIdents(ident, fields []string) []string {
	out := make([]string, 0, len(ident)+len(fields))
	return append(append(out, ident...), fields...)
}

func (t *Tree) newBool(pos Pos, true bool) *BoolNode {
	return &BoolNode{NodeType: NodeBool, Pos: pos, True: true}
}

func (t *Tree) newNumber(pos Pos, text string, typ itemType) (*NumberNode, error) {
	n := &NumberNode{NodeType: NodeNumber, Pos: pos, Text: text}
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
func simplifyComplex(n *NumberNode) {
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

func (t *Tree) newString(pos Pos, orig, text string) *StringNode {
	return &StringNode{NodeType: NodeString, Pos: pos, Quoted: orig, Text: text}
}

// endNode and elseNode are {{end}} and {{else}}: they end a list and are in no
// tree. text/template/parse's Node has unexported methods, which only a nil Node
// embedded here can give; the parser asks these nodes for nothing but their
// type, position and text.
type endNode struct {
	Node
	pos Pos
}

func (t *Tree) newEnd(pos Pos) *endNode {
	return &endNode{pos: pos}
}

func (e *endNode) Type() NodeType { return nodeEnd }
func (e *endNode) Position() Pos  { return e.pos }
func (e *endNode) String() string { return "{{end}}" }

type elseNode struct {
	Node
	pos Pos
}

func (t *Tree) newElse(pos Pos, _ int) *elseNode {
	return &elseNode{pos: pos}
}

func (e *elseNode) Type() NodeType { return nodeElse }
func (e *elseNode) Position() Pos  { return e.pos }
func (e *elseNode) String() string { return "{{else}}" }

func (t *Tree) newIf(pos Pos, line int, pipe *PipeNode, list, elseList *ListNode) *IfNode {
	return &IfNode{BranchNode: parse.BranchNode{NodeType: parse.NodeIf, Pos: pos, Line: line, Pipe: pipe, List: list, ElseList: elseList}}
}

func (t *Tree) newBreak(pos Pos, line int) *parse.BreakNode {
	return &parse.BreakNode{NodeType: parse.NodeBreak, Pos: pos, Line: line}
}

func (t *Tree) newContinue(pos Pos, line int) *parse.ContinueNode {
	return &parse.ContinueNode{NodeType: parse.NodeContinue, Pos: pos, Line: line}
}

func (t *Tree) newRange(pos Pos, line int, pipe *PipeNode, list, elseList *ListNode) *RangeNode {
	return &RangeNode{BranchNode: parse.BranchNode{NodeType: parse.NodeRange, Pos: pos, Line: line, Pipe: pipe, List: list, ElseList: elseList}}
}

func (t *Tree) newWith(pos Pos, line int, pipe *PipeNode, list, elseList *ListNode) *WithNode {
	return &WithNode{BranchNode: parse.BranchNode{NodeType: parse.NodeWith, Pos: pos, Line: line, Pipe: pipe, List: list, ElseList: elseList}}
}

func (t *Tree) newTemplate(pos Pos, line int, name string, pipe *PipeNode) *TemplateNode {
	return &TemplateNode{NodeType: parse.NodeTemplate, Pos: pos, Line: line, Name: name, Pipe: pipe}
}
