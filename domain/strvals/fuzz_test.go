package strvals

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// seedAll feeds every table input to a fuzz target, whatever its mode: the
// inputs of one flag are interesting edge cases for the others too.
func seedAll(f *testing.F) {
	for _, cases := range []map[string]parseCase{setCases(), stringCases(), jsonCases(), literalCases()} {
		for _, tc := range cases {
			f.Add(tc.in)
		}
	}
}

// checkStable asserts what must hold for any input: parsing is deterministic,
// a success yields only the plain value types templates expect (see
// checkLeaves), and parsing the same line again
// into its own result changes nothing when it succeeds (a second pass may
// legitimately fail, as in "a.b=1,a=2" where a is no longer a map).
func checkStable(t *testing.T, s string, parse func(string, map[string]any, ...Option) error, leafOK func(any) bool) obj {
	t.Helper()
	first, second := obj{}, obj{}
	err1, err2 := parse(s, first), parse(s, second)
	if fmt.Sprint(err1) != fmt.Sprint(err2) || (err1 == nil && !reflect.DeepEqual(first, second)) {
		t.Fatalf("%q: not deterministic: %v / %v, %#v / %#v", s, err1, err2, first, second)
	}
	if err1 != nil {
		return nil
	}
	checkLeaves(t, s, first, leafOK)
	if err := parse(s, first); err == nil && !reflect.DeepEqual(first, second) {
		t.Fatalf("%q: re-parse changed the result:\n%#v\nto\n%#v", s, second, first)
	}
	return second
}

// splitPlain splits s at its first '=' and reports whether the key is a
// single plain segment, for which the expected result is easy to state.
func splitPlain(s, specials string) (key, val string, ok bool) {
	key, val, found := strings.Cut(s, "=")
	ok = found && key != "" && utf8.ValidString(s) && !strings.ContainsAny(key, specials)
	return key, val, ok
}

// escape backslash-escapes every rune --set treats specially, so any key and
// value survive the trip.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\,=.[]{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func FuzzParseInto(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkStable(t, s, ParseInto, isSetLeaf)
		checkStable(t, s, ParseIntoString, isStringLeaf)

		key, val, _ := strings.Cut(s, "=")
		if key != "" && utf8.ValidString(s) {
			line := escape(key) + "=" + escape(val)
			got, err := ParseString(line)
			checkResult(t, line, got, err, obj{key: val}, "")
		}
		if key, val, ok := splitPlain(s, `[.,\`); ok && !strings.ContainsAny(val, `,\`) && !strings.HasPrefix(val, "{") {
			want, _ := inferValue(val)
			got, err := Parse(s)
			checkResult(t, s, got, err, obj{key: want}, "")
		}
	})
}

// checkLeaves walks v and fails on any leaf leafOK rejects; containers must
// be map[string]any or []any, the only kinds chart templates handle.
func checkLeaves(t *testing.T, s string, v any, leafOK func(any) bool) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			checkLeaves(t, s, e, leafOK)
		}
	case []any:
		for _, e := range v {
			checkLeaves(t, s, e, leafOK)
		}
	default:
		if !leafOK(v) {
			t.Fatalf("%q: unexpected leaf %T (%#v)", s, v, v)
		}
	}
}

// isStringLeaf is --set-string and --set-literal: text, or nil list padding.
func isStringLeaf(v any) bool {
	switch v.(type) {
	case string, nil:
		return true
	}
	return false
}

func isSetLeaf(v any) bool {
	switch v.(type) {
	case string, bool, int64, nil:
		return true
	}
	return false
}

func isJSONLeaf(v any) bool {
	switch v.(type) {
	case string, bool, float64, nil:
		return true
	}
	return false
}

func FuzzParseLiteral(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkStable(t, s, ParseLiteral, isStringLeaf)
		if key, val, ok := splitPlain(s, "[."); ok {
			got := obj{}
			err := ParseLiteral(s, got)
			checkResult(t, s, got, err, obj{key: val}, "")
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkStable(t, s, ParseJSON, isJSONLeaf)
		if key, doc, ok := splitPlain(s, `[.,\`); ok && json.Valid([]byte(doc)) {
			var want any
			if err := json.Unmarshal([]byte(doc), &want); err != nil {
				// Valid JSON that Go cannot hold (1E700 overflows float64): refused, as in Helm.
				if ParseJSON(s, obj{}) == nil {
					t.Fatalf("ParseJSON(%q) accepted a value JSON decoding refuses: %v", s, err)
				}
				return
			}
			got := obj{}
			err := ParseJSON(s, got)
			checkResult(t, s, got, err, obj{key: want}, "")
		}
	})
}
