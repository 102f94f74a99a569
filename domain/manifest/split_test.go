package manifest

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// helmSeparator is the expression Helm splits manifests with; Split must agree.
var helmSeparator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

func splitWithRegexp(text string) []string {
	var docs []string
	for _, d := range helmSeparator.Split(strings.TrimSpace(text), -1) {
		if d == "" {
			continue
		}
		if d = strings.TrimSpace(d); d != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

func TestSplit(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []string
	}{
		"empty":                {in: "", want: nil},
		"one document":         {in: "a: 1\n", want: []string{"a: 1"}},
		"leading separator":    {in: "---\na: 1\n---\nb: 2", want: []string{"a: 1", "b: 2"}},
		"separator with text":  {in: "a: 1\n--- # comment\nb: 2", want: []string{"a: 1", "# comment\nb: 2"}},
		"four dashes":          {in: "a: 1\n----\nb: 2", want: []string{"a: 1", "-\nb: 2"}},
		"indented dashes stay": {in: "a: |\n  ---\n  x", want: []string{"a: |\n  ---\n  x"}},
		"empty documents":      {in: "---\n---\n\n---\na: 1\n---\n", want: []string{"---", "a: 1"}},
		"dashes mid line":      {in: "a: b---c", want: []string{"a: b---c"}},
		"whitespace before":    {in: "a: 1   \n  \n---\nb: 2", want: []string{"a: 1", "b: 2"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Split(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if re := splitWithRegexp(tc.in); !reflect.DeepEqual(got, re) {
				t.Errorf("Split(%q) = %q, Helm's expression gives %q", tc.in, got, re)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "---", "a\n---\nb", "---\n---\nx", "a \n\t\n---  \n\n---x", "----", "\n---\n", "x\r\n---\r\ny", "a\f\n---"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Split(s), splitWithRegexp(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Split(%q) = %q, Helm's expression gives %q", s, got, want)
		}
	})
}
