package main

import (
	"os"
	"path/filepath"
	"testing"
)

// .Capabilities.APIVersions is ranged over in Helm's order, per dialect: its
// default list, then --api-versions in the order given (duplicates kept).
// The goldens are this program's output (go test -run TestTemplateAPIVersionsOrder
// -update), checked byte for byte against Helm v4.3.1 and v3.22.0 running
// `helm template x CHART -a z/v1,apps/v1 -a a/v1/Foo -a v1`.
func TestTemplateAPIVersionsOrder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Chart.yaml":       "apiVersion: v2\nname: av\nversion: 0.1.0\n",
		"templates/a.yaml": "{{- range .Capabilities.APIVersions }}\n# {{ . }}\n{{- end }}\n",
	})
	for _, compat := range []string{"helm4", "helm3"} {
		t.Run(compat, func(t *testing.T) {
			out, _, err := runRoot(t, "template", "x", dir, "--compat", compat, "-a", "z/v1,apps/v1", "-a", "a/v1/Foo", "-a", "v1")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "apiversions", compat+".golden")
			if *updateLifecycleGoldens {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, out)
			}
		})
	}
}
