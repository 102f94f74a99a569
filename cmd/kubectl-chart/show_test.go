package main

import (
	"testing"
)

// The outputs are Helm v3.22's for the same chart and expressions.
func TestShowValuesJSONPath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"values.yaml": "replicaCount: 2\nimage:\n  repository: nginx\n  tag: \"1.27\"\n",
	})
	tests := map[string]struct {
		path, want, wantErr string
	}{
		"a table":          {path: "{.image}", want: `{"repository":"nginx","tag":"1.27"}`},
		"a value":          {path: "{.image.repository}", want: "nginx"},
		"a number":         {path: "{.replicaCount}", want: "2"},
		"nothing selected": {path: "{.nope}", want: ""},
		"malformed":        {path: "{.[", wantErr: "error parsing jsonpath {.[: unterminated array"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runRoot(t, "show", "values", dir, "--jsonpath", tc.path)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || out != tc.want {
				t.Errorf("output = %q, %v; want %q", out, err, tc.want)
			}
		})
	}
}
