package helmrecord

import "bytes"

// maxJSONDepth is encoding/json's nesting limit; deeper input is left to it.
const maxJSONDepth = 10000

// summaryJSON returns, of a record's JSON, the object json.Unmarshal into a
// summaryRecord reads: the top-level keys name, info, chart (of which only
// metadata), version and namespace, the last of each as encoding/json takes
// them (keys matched without case). It checks the whole input as
// encoding/json does, but in one pass and without decoding what a summary
// does not show (the manifest, templates and values that make up most of a
// record). ok is false for anything else (not an object, a malformed value,
// an escaped key): the caller then unmarshals raw as it is, with
// encoding/json's own result and error.
func summaryJSON(raw []byte) (out []byte, ok bool) {
	w := jsonWalk{b: raw}
	keys := [...]string{"name", "info", "chart", "version", "namespace"}
	var spans [len(keys)][]byte
	if !w.object(0, func(key []byte, start, end int) {
		for i, k := range keys {
			if bytes.EqualFold(key, []byte(k)) {
				spans[i] = raw[start:end]
			}
		}
	}) {
		return nil, false
	}
	if w.ws(); w.i != len(raw) {
		return nil, false
	}
	if c := spans[2]; len(c) > 0 && c[0] == '{' {
		cw := jsonWalk{b: c}
		var meta []byte
		cw.object(0, func(key []byte, start, end int) {
			if bytes.EqualFold(key, []byte("metadata")) {
				meta = c[start:end]
			}
		})
		spans[2] = []byte("{}")
		if meta != nil {
			spans[2] = append(append([]byte(`{"metadata":`), meta...), '}')
		}
	}
	out = make([]byte, 0, 256)
	out = append(out, '{')
	for i, k := range keys {
		if spans[i] == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(append(out, '"'), k...), `":`...), spans[i]...)
	}
	return append(out, '}'), true
}

// jsonWalk checks JSON text as encoding/json's scanner does, without decoding it.
type jsonWalk struct {
	b []byte
	i int
}

func (w *jsonWalk) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *jsonWalk) peek() byte {
	if w.i < len(w.b) {
		return w.b[w.i]
	}
	return 0
}

// object walks an object at w.i, calling member with each key (unescaped
// keys only) and its value's span.
func (w *jsonWalk) object(depth int, member func(key []byte, start, end int)) bool {
	if w.ws(); w.peek() != '{' || depth >= maxJSONDepth {
		return false
	}
	w.i++
	if w.ws(); w.peek() == '}' {
		w.i++
		return true
	}
	for {
		w.ws()
		ks := w.i
		if !w.str() || bytes.IndexByte(w.b[ks:w.i], '\\') >= 0 {
			return false
		}
		key := w.b[ks+1 : w.i-1]
		if w.ws(); w.peek() != ':' {
			return false
		}
		w.i++
		w.ws()
		vs := w.i
		if !w.value(depth + 1) {
			return false
		}
		if member != nil {
			member(key, vs, w.i)
		}
		w.ws()
		switch w.peek() {
		case ',':
			w.i++
		case '}':
			w.i++
			return true
		default:
			return false
		}
	}
}

func (w *jsonWalk) value(depth int) bool {
	w.ws()
	switch c := w.peek(); {
	case c == '{':
		return w.object(depth, nil)
	case c == '[':
		if depth >= maxJSONDepth {
			return false
		}
		w.i++
		if w.ws(); w.peek() == ']' {
			w.i++
			return true
		}
		for {
			if !w.value(depth + 1) {
				return false
			}
			w.ws()
			switch w.peek() {
			case ',':
				w.i++
			case ']':
				w.i++
				return true
			default:
				return false
			}
		}
	case c == '"':
		return w.str()
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return w.number()
	}
	return false
}

func (w *jsonWalk) literal(s string) bool {
	if !bytes.HasPrefix(w.b[w.i:], []byte(s)) {
		return false
	}
	w.i += len(s)
	return true
}

// str walks a string: escapes as JSON has them, no control characters.
func (w *jsonWalk) str() bool {
	if w.peek() != '"' {
		return false
	}
	w.i++
	for w.i < len(w.b) {
		c := w.b[w.i]
		switch {
		case c == '"':
			w.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			w.i++
			switch w.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				w.i++
			case 'u':
				w.i++
				for range 4 {
					if !isHex(w.peek()) {
						return false
					}
					w.i++
				}
			default:
				return false
			}
		default:
			w.i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (w *jsonWalk) digits() bool {
	s := w.i
	for w.i < len(w.b) && w.b[w.i] >= '0' && w.b[w.i] <= '9' {
		w.i++
	}
	return w.i > s
}

// number walks -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (w *jsonWalk) number() bool {
	if w.peek() == '-' {
		w.i++
	}
	switch c := w.peek(); {
	case c == '0':
		w.i++
	case c >= '1' && c <= '9':
		w.digits()
	default:
		return false
	}
	if w.peek() == '.' {
		w.i++
		if !w.digits() {
			return false
		}
	}
	if c := w.peek(); c == 'e' || c == 'E' {
		w.i++
		if c := w.peek(); c == '+' || c == '-' {
			w.i++
		}
		if !w.digits() {
			return false
		}
	}
	return true
}
