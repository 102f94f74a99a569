package manifest_test

import (
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
)

func TestSplitStream(t *testing.T) {
	tests := map[string]struct {
		text    string
		want    []string
		wantErr string
	}{
		"empty":                  {text: "", want: nil},
		"one document":           {text: "a: 1\n", want: []string{"a: 1\n"}},
		"leading separator":      {text: "---\na: 1\n---\nb: 2\n", want: []string{"a: 1\n", "b: 2\n"}},
		"trailing breaks kept":   {text: "---\ns: |+\n  x\n\n---\nb: 2", want: []string{"s: |+\n  x\n\n", "b: 2"}},
		"comment after dashes":   {text: "a: 1\n--- # next\nb: 2\n", want: []string{"a: 1\n", "b: 2\n"}},
		"spaces after dashes":    {text: "a: 1\n---   \nb: 2\n", want: []string{"a: 1\n", "b: 2\n"}},
		"indented dashes are in": {text: "a: |\n  ---\n  x\n", want: []string{"a: |\n  ---\n  x\n"}},
		"empty documents":        {text: "---\n---\na: 1\n---\n", want: []string{"a: 1\n"}},
		"no final line break":    {text: "---\na: 1", want: []string{"a: 1"}},
		"four dashes":            {text: "a: 1\n----\nb: 2\n", wantErr: "invalid Yaml document separator: ----"},
		"dashes and text":        {text: "---x\n", wantErr: "invalid Yaml document separator: ---x"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := manifest.SplitStream(tc.text)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SplitStream(%q) = %q, %v; want %q", tc.text, got, err, tc.want)
			}
		})
	}
}
