package manifest_test

import (
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
)

// Expected documents are what Helm's separator expression gives for each text.
func TestSplitEdgeCases(t *testing.T) {
	tests := map[string]struct {
		text string
		want []string
	}{
		"Helm's test manifest: leading blank lines and separator": {
			text: "\n\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: finding-nemo,\n  annotations:\n    \"helm.sh/hook\": test\nspec:\n  containers:\n  - name: nemo-test\n    image: fake-image\n    cmd: fake-command\n",
			want: []string{"apiVersion: v1\nkind: Pod\nmetadata:\n  name: finding-nemo,\n  annotations:\n    \"helm.sh/hook\": test\nspec:\n  containers:\n  - name: nemo-test\n    image: fake-image\n    cmd: fake-command"},
		},
		"documents keep their order": {
			text: "a: 1\n---\nb: 2\n---\nc: 3",
			want: []string{"a: 1", "b: 2", "c: 3"},
		},
		"separators with trailing spaces and a comment": {
			text: "a: 1\n---   \nb: 2\n--- # next\nc: 3",
			want: []string{"a: 1", "b: 2", "# next\nc: 3"},
		},
		"blank lines with spaces before a separator": {
			text: "a: 1\n  \n\t\n---\nb: 2",
			want: []string{"a: 1", "b: 2"},
		},
		"CRLF line endings": {
			text: "a: 1\r\n---\r\nb: 2\r\n",
			want: []string{"a: 1", "b: 2"},
		},
		"separator glued to the next line": {
			text: "a: 1\n---b: 2",
			want: []string{"a: 1", "b: 2"},
		},
		"surrounding whitespace is trimmed from each document": {
			text: "\n\n  a: 1  \n\n---\n\n   b: 2\n\n",
			want: []string{"a: 1", "b: 2"},
		},
		"back-to-back separators leave one as content": {
			text: "a: 1\n---\n---\nb: 2",
			want: []string{"a: 1", "---\nb: 2"},
		},
		"separators with a blank line between": {
			text: "a: 1\n---\n\n---\nb: 2",
			want: []string{"a: 1", "---\nb: 2"},
		},
		"many empty documents": {
			text: "---\n---\na: 1\n---\n\n---\n   \n---\nb: 2\n---\n",
			want: []string{"---\na: 1", "---", "b: 2"},
		},
		"only separators": {
			text: "---\n---",
			want: []string{"---"},
		},
		"only whitespace": {
			text: " \n\t\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := manifest.Split(tc.text)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Split(%q) =\n%q\nwant\n%q", tc.text, got, tc.want)
			}
		})
	}
}
