package strvals

import (
	"encoding/json"
	"io"
	"strings"
)

// value reads the text after '='. It returns io.EOF, with "" to store, when
// the input ends right after '=' in set mode: Helm then stores the empty
// string and stops, which matters to enclosing keys.
func (p *parser) value() (any, error) {
	switch p.mode {
	case modeLiteral:
		v, _, _ := p.sc.until("", false)
		return v, nil
	case modeJSON:
		return p.jsonValue()
	default:
		return p.setValue()
	}
}

func (p *parser) setValue() (any, error) {
	r, ok := p.sc.next()
	if !ok {
		return "", io.EOF
	}
	if r == '{' {
		return p.braceList()
	}
	p.sc.back()
	raw, _, _ := p.sc.until(",", true)
	return p.convert(raw)
}

// braceList reads "a,b}" after '{'. Every element goes through the converter,
// the empty one too, so "{}" is [""].
func (p *parser) braceList() (any, error) {
	list := []any{}
	for {
		raw, stop, err := p.sc.until(",}", true)
		if err != nil {
			return nil, errUnterminatedList()
		}
		if stop == '}' {
			// A comma after '}' ends this value; anything else already
			// belongs to the next key ("a={b}c=1" sets c too, as in Helm).
			if r, ok := p.sc.next(); ok && r != ',' {
				p.sc.back()
			}
		}
		v, err := p.convert(raw)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		if stop == '}' {
			return list, nil
		}
	}
}

// jsonValue decodes one JSON document from the rest of the input and consumes
// exactly its bytes plus following blanks and one comma. A blank value is
// null. Numbers are float64, since Helm decodes into interface{} as well.
func (p *parser) jsonValue() (any, error) {
	if p.sc.blankToComma() {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(p.sc.rest()))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	p.sc.skip(int(dec.InputOffset()))
	p.sc.blankToComma()
	return v, nil
}
