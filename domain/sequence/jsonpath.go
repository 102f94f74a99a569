package sequence

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The JSONPath of readiness expressions: the subset of Kubernetes' JSONPath
// (kubectl -o jsonpath) that reads fields of a status: .field, ['field'],
// [index], [*], and filters [?(@.field == value)] (also !=, <, <=, >, >=, and
// [?(@.field)] for presence).

// step is one segment of a path.
type step struct {
	field  string
	index  *int
	all    bool
	filter *filter
}

type filter struct {
	path  []step
	op    string // "" tests presence
	value any
}

// parsePath reads a path such as .conditions[?(@.type=="Ready")].status.
func parsePath(s string) ([]step, error) {
	p := &pathParser{s: s}
	steps, err := p.steps(false)
	if err != nil {
		return nil, fmt.Errorf("JSONPath %q: %w", s, err)
	}
	if p.i != len(p.s) {
		return nil, fmt.Errorf("JSONPath %q: unexpected %q", s, p.s[p.i:])
	}
	return steps, nil
}

type pathParser struct {
	s string
	i int
}

func (p *pathParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// steps reads segments until the end, or inside a filter until an operator
// or its closing parenthesis.
func (p *pathParser) steps(inFilter bool) ([]step, error) {
	var out []step
	for p.i < len(p.s) {
		switch c := p.peek(); {
		case c == '.':
			p.i++
			if p.peek() == '*' {
				p.i++
				out = append(out, step{all: true})
				continue
			}
			start := p.i
			for p.i < len(p.s) && isFieldByte(p.s[p.i]) {
				p.i++
			}
			if p.i == start {
				return nil, fmt.Errorf("a field name is missing at %d", start)
			}
			out = append(out, step{field: p.s[start:p.i]})
		case c == '[':
			st, err := p.bracket()
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		case inFilter:
			return out, nil
		default:
			return nil, fmt.Errorf("unexpected %q at %d", c, p.i)
		}
	}
	return out, nil
}

func isFieldByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// bracket reads [...] at p.i.
func (p *pathParser) bracket() (step, error) {
	p.i++ // [
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "*]"):
		p.i += 2
		return step{all: true}, nil
	case strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, `"`):
		q := rest[0]
		end := strings.IndexByte(rest[1:], q)
		if end < 0 || !strings.HasPrefix(rest[end+2:], "]") {
			return step{}, fmt.Errorf("unterminated [%c...%c]", q, q)
		}
		p.i += end + 3
		return step{field: rest[1 : end+1]}, nil
	case strings.HasPrefix(rest, "?("):
		p.i += 2
		return p.filter()
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return step{}, fmt.Errorf("unterminated [")
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest[:end]))
	if err != nil {
		return step{}, fmt.Errorf("[%s] is not an index", rest[:end])
	}
	p.i += end + 1
	return step{index: &n}, nil
}

// filter reads @.path [op value]) at p.i, then the closing bracket.
func (p *pathParser) filter() (step, error) {
	for p.peek() == ' ' {
		p.i++
	}
	if p.peek() != '@' {
		return step{}, fmt.Errorf("a filter starts with @")
	}
	p.i++
	path, err := p.steps(true)
	if err != nil {
		return step{}, err
	}
	f := &filter{path: path}
	rest := strings.TrimLeft(p.s[p.i:], " ")
	p.i = len(p.s) - len(rest)
	if !strings.HasPrefix(rest, ")") {
		op, err := operatorAt(rest)
		if err != nil {
			return step{}, err
		}
		p.i += len(op)
		end := strings.Index(p.s[p.i:], ")]")
		if end < 0 {
			return step{}, fmt.Errorf("unterminated filter")
		}
		f.op, f.value = op, parseValue(p.s[p.i:p.i+end])
		p.i += end
	}
	if !strings.HasPrefix(p.s[p.i:], ")]") {
		return step{}, fmt.Errorf("unterminated filter")
	}
	p.i += 2
	return step{filter: f}, nil
}

var operators = []string{"==", "!=", "<=", ">=", "<", ">"}

func operatorAt(s string) (string, error) {
	for _, op := range operators {
		if strings.HasPrefix(s, op) {
			return op, nil
		}
	}
	return "", fmt.Errorf("unsupported operator in %q (want one of %s)", s, strings.Join(operators, " "))
}

// parseValue reads a literal: a quoted string, true, false, null, a number,
// else the bare text as a string.
func parseValue(s string) any {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		if s[0] == '"' {
			var v string
			if json.Unmarshal([]byte(s), &v) == nil {
				return v
			}
		}
		return s[1 : len(s)-1]
	}
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// eval returns the values path selects in v.
func eval(path []step, v any) []any {
	cur := []any{v}
	for _, st := range path {
		var next []any
		for _, c := range cur {
			switch {
			case st.field != "":
				if m, ok := c.(map[string]any); ok {
					if x, ok := m[st.field]; ok {
						next = append(next, x)
					}
				}
			case st.index != nil:
				if l, ok := c.([]any); ok {
					i := *st.index
					if i < 0 {
						i += len(l)
					}
					if i >= 0 && i < len(l) {
						next = append(next, l[i])
					}
				}
			case st.all:
				switch x := c.(type) {
				case []any:
					next = append(next, x...)
				case map[string]any:
					for _, k := range sortedKeys(x) {
						next = append(next, x[k])
					}
				}
			case st.filter != nil:
				if l, ok := c.([]any); ok {
					for _, it := range l {
						if st.filter.matches(it) {
							next = append(next, it)
						}
					}
				}
			}
		}
		cur = next
	}
	return cur
}

func (f *filter) matches(item any) bool {
	got := eval(f.path, item)
	if f.op == "" {
		return len(got) > 0
	}
	for _, g := range got {
		if ok, _ := compare(g, f.op, f.value); ok {
			return true
		}
	}
	return false
}

// compare applies op to a value found and a literal: numbers by value,
// booleans and strings as such (a string literal against another scalar
// compares its text); ordering needs numbers.
func compare(got any, op string, want any) (bool, error) {
	gn, gNum := number(got)
	wn, wNum := number(want)
	if op != "==" && op != "!=" {
		if !gNum || !wNum {
			return false, fmt.Errorf("%s needs numbers, got %s", op, show(got))
		}
		switch op {
		case "<":
			return gn < wn, nil
		case "<=":
			return gn <= wn, nil
		case ">":
			return gn > wn, nil
		}
		return gn >= wn, nil
	}
	var eq bool
	switch {
	case gNum && wNum:
		eq = gn == wn
	case want == nil || got == nil:
		eq = want == nil && got == nil
	default:
		if ws, ok := want.(string); ok {
			eq = scalarText(got) == ws
		} else {
			eq = got == want
		}
	}
	return eq == (op == "=="), nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		return 0, false
	}
	return 0, false
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// show is a value as an expression's message names it.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
