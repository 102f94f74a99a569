package manifest

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// helm4Separator is the expression Helm 4 splits manifests with; SplitHelm4 must agree.
var helm4Separator = regexp.MustCompile(`(?m)^---[ \t]*`)

func splitHelm4WithRegexp(text string) []string {
	var docs []string
	for _, d := range helm4Separator.Split(strings.TrimLeftFunc(text, unicode.IsSpace), -1) {
		if strings.TrimSpace(d) == "" {
			continue
		}
		docs = append(docs, strings.TrimLeftFunc(d, unicode.IsSpace))
	}
	return docs
}

// Expected documents are what Helm v4.3.1's expression makes of each text; the
// separators with blanks or a comment, back-to-back separators, "|+" scalars and
// CRLF were also checked with the peer (`helm template` of a chart whose template
// is the text).
func TestSplitHelm4(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []string
	}{
		"empty":                          {in: "", want: nil},
		"one document keeps its break":   {in: "a: 1\n", want: []string{"a: 1\n"}},
		"leading separator":              {in: "---\na: 1\n---\nb: 2", want: []string{"a: 1\n", "b: 2"}},
		"separator with a comment":       {in: "a: 1\n--- # comment\nb: 2", want: []string{"a: 1\n", "# comment\nb: 2"}},
		"separator with trailing blanks": {in: "a: 1\n---  \t\nb: 2", want: []string{"a: 1\n", "b: 2"}},
		"four dashes leave one":          {in: "a: 1\n----\nb: 2", want: []string{"a: 1\n", "-\nb: 2"}},
		"six dashes leave three":         {in: "------\nb: 2", want: []string{"---\nb: 2"}},
		"indented dashes stay":           {in: "a: |\n  ---\n  x", want: []string{"a: |\n  ---\n  x"}},
		"back-to-back separators":        {in: "a: 1\n---\n---\nb: 2", want: []string{"a: 1\n", "b: 2"}},
		"empty documents are dropped":    {in: "---\n---\n\n---\na: 1\n---\n", want: []string{"a: 1\n"}},
		"dashes mid line":                {in: "a: b---c", want: []string{"a: b---c"}},
		"keep block scalar breaks":       {in: "k: |+\n  x\n\n\n---\nb: 2\n\n", want: []string{"k: |+\n  x\n\n\n", "b: 2\n\n"}},
		"trailing blanks stay":           {in: "a: 1   \n  \n---\nb: 2", want: []string{"a: 1   \n  \n", "b: 2"}},
		"CRLF keeps its carriage return": {in: "a: 1\r\n---\r\nb: 2\r\n", want: []string{"a: 1\r\n", "b: 2\r\n"}},
		"glued to the next line":         {in: "a: 1\n---b: 2", want: []string{"a: 1\n", "b: 2"}},
		"carriage return before dashes":  {in: "a: 1\r---\nb", want: []string{"a: 1\r---\nb"}},
		"unicode space is trimmed":       {in: "\u00a0\u0085a: 1\n---\n\u2003b", want: []string{"a: 1\n", "b"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := SplitHelm4(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SplitHelm4(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if re := splitHelm4WithRegexp(tc.in); !reflect.DeepEqual(got, re) {
				t.Errorf("SplitHelm4(%q) = %q, Helm 4's expression gives %q", tc.in, got, re)
			}
		})
	}
}

func FuzzSplitHelm4(f *testing.F) {
	for _, s := range []string{"", "---", "a\n---\nb", "---\n---\nx", "a \n\t\n---  \n\n---x", "----", "\n---\n", "x\r\n---\r\ny", "a\f\n---", "------\n---", "\u00a0---"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := SplitHelm4(s), splitHelm4WithRegexp(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("SplitHelm4(%q) = %q, Helm 4's expression gives %q", s, got, want)
		}
	})
}
