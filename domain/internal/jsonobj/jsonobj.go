// Package jsonobj keeps what a JSON object holds beyond the fields of the
// struct it is decoded into, so that a record written by another program (a
// newer Helm) and rewritten here keeps every member as it was read.
//
// A type keeps its rest by decoding itself as usual and then calling Read on
// the same bytes, and by encoding itself as usual and passing the result
// through Rest.Write:
//
//	func (x *T) UnmarshalJSON(b []byte) error {
//		type plain T
//		if err := json.Unmarshal(b, (*plain)(x)); err != nil {
//			return err
//		}
//		x.rest = jsonobj.Read(b, tFields)
//		return nil
//	}
//
// A value that was never decoded has a zero Rest and encodes exactly as the
// plain struct does.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// Member is one member of a JSON object, its value as read.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Rest is what a decoded JSON object held beyond its struct's fields (in the
// order read), and which of the struct's fields it did not have.
type Rest struct {
	unknown []Member
	absent  []string
}

// IsZero reports whether the rest changes nothing: the value was not decoded,
// or its object had every field and nothing else.
func (r Rest) IsZero() bool { return len(r.unknown) == 0 && len(r.absent) == 0 }

// Unknown returns the members the struct does not model, in the order read.
func (r Rest) Unknown() []Member { return r.unknown }

// Fields are the JSON names of a struct type's fields.
type Fields struct {
	names []string
}

// FieldsOf lists the JSON names of the fields of v's type (a struct or a
// pointer to one), as encoding/json names them.
func FieldsOf(v any) Fields {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var f Fields
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = sf.Name
		}
		f.names = append(f.names, name)
	}
	return f
}

// Has reports whether key names a field, with encoding/json's rule: an exact
// match, else a case-insensitive one.
func (f Fields) Has(key string) bool {
	for _, n := range f.names {
		if n == key {
			return true
		}
	}
	for _, n := range f.names {
		if strings.EqualFold(n, key) {
			return true
		}
	}
	return false
}

// Read returns the rest of data, a JSON object already decoded into a struct
// with fields f. Anything but an object (null) has no rest.
func Read(data []byte, f Fields) Rest {
	var r Rest
	seen := map[string]bool{}
	ok := eachMember(data, func(key string, value []byte) {
		if f.Has(key) {
			seen[strings.ToLower(key)] = true
			return
		}
		for i, m := range r.unknown {
			if m.Key == key {
				// As encoding/json: the last of duplicate members counts.
				r.unknown = append(r.unknown[:i], r.unknown[i+1:]...)
				break
			}
		}
		r.unknown = append(r.unknown, Member{Key: key, Value: bytes.Clone(value)})
	})
	if !ok {
		return Rest{}
	}
	for _, n := range f.names {
		if !seen[strings.ToLower(n)] {
			r.absent = append(r.absent, n)
		}
	}
	return r
}

// Write returns enc, the encoding of the struct as a JSON object, with the
// rest put back: the unknown members after the struct's, and the fields the
// object read did not have left out again while their value is zero ("",
// null, 0, false, {} or []). enc is returned as it is when the rest is zero.
func (r Rest) Write(enc []byte) []byte {
	if r.IsZero() {
		return enc
	}
	var out bytes.Buffer
	out.Grow(len(enc) + r.unknownSize())
	out.WriteByte('{')
	n := 0
	member := func(key, value []byte) {
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(key)
		out.WriteByte(':')
		out.Write(value)
		n++
	}
	ok := eachMemberRaw(enc, func(rawKey []byte, key string, value []byte) {
		if r.isAbsent(key) && isZero(value) {
			return
		}
		member(rawKey, value)
	})
	if !ok {
		return enc
	}
	for _, m := range r.unknown {
		k, _ := json.Marshal(m.Key)
		member(k, m.Value)
	}
	out.WriteByte('}')
	return out.Bytes()
}

func (r Rest) unknownSize() int {
	n := 0
	for _, m := range r.unknown {
		n += len(m.Key) + len(m.Value) + 4
	}
	return n
}

func (r Rest) isAbsent(key string) bool {
	for _, a := range r.absent {
		if a == key {
			return true
		}
	}
	return false
}

// Get returns the value of member key of the JSON object data, nil when it
// has none.
func Get(data []byte, key string) []byte {
	var v []byte
	eachMember(data, func(k string, value []byte) {
		if k == key {
			v = value
		}
	})
	return v
}

// Set returns the JSON object enc with the value of member key replaced by
// value; enc is returned as it is when it has no such member.
func Set(enc []byte, key string, value []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(enc) + len(value))
	out.WriteByte('{')
	n := 0
	found := false
	ok := eachMemberRaw(enc, func(rawKey []byte, k string, v []byte) {
		if n > 0 {
			out.WriteByte(',')
		}
		n++
		out.Write(rawKey)
		out.WriteByte(':')
		if k == key {
			found = true
			v = value
		}
		out.Write(v)
	})
	if !ok || !found {
		return enc
	}
	out.WriteByte('}')
	return out.Bytes()
}

// Elements calls fn with the index and value of each element of the JSON
// array data (valid JSON); it does nothing when data is not an array.
func Elements(data []byte, fn func(i int, value []byte)) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return
	}
	i++
	for n := 0; ; {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] == ']' {
			return
		}
		if data[i] == ',' {
			i++
			continue
		}
		end := skipValue(data, i)
		if end <= i {
			return
		}
		fn(n, data[i:end])
		n++
		i = end
	}
}

// Array joins encoded values into a JSON array.
func Array(values [][]byte) []byte {
	n := 2
	for _, v := range values {
		n += len(v) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, v := range values {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']')
}

func isZero(v []byte) bool {
	switch string(bytes.TrimSpace(v)) {
	case `""`, "null", "0", "false", "{}", "[]":
		return true
	}
	return false
}

func eachMember(data []byte, fn func(key string, value []byte)) bool {
	return eachMemberRaw(data, func(_ []byte, key string, value []byte) { fn(key, value) })
}

// eachMemberRaw calls fn with each member of the JSON object data: its key as
// written (quoted) and decoded, and its value. data must be valid JSON; it
// returns false when data is not an object.
func eachMemberRaw(data []byte, fn func(rawKey []byte, key string, value []byte)) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		end := skipString(data, i)
		rawKey := data[i:end]
		key, ok := unquote(rawKey)
		if !ok {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend := skipValue(data, i)
		if vend <= i {
			return false
		}
		fn(rawKey, key, data[i:vend])
		i = vend
	}
}

func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string starting at data[i] ('"').
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index after the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(data)
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// Absent is a rest in which the fields names are left out while zero: how a
// program whose type omits them when zero (Helm 4's omitzero times) writes
// its object.
func Absent(names ...string) Rest { return Rest{absent: names} }

// Merged returns the rest with more's absent fields added: the fields the
// object leaves out while zero, when it was not decoded.
func (r Rest) Merged(more Rest) Rest {
	for _, a := range more.absent {
		if !r.isAbsent(a) {
			r.absent = append(append([]string(nil), r.absent...), a)
		}
	}
	return r
}
