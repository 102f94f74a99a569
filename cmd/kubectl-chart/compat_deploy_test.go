package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// writeHelm4Chart writes a chart whose template calls mustToYaml, a function only
// Helm 4 has.
func writeHelm4Chart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "h4")
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: h4\nversion: 0.1.0\n",
		"values.yaml": "data:\n  greeting: hello\n",
		"templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n" +
			"{{ mustToYaml .Values.data | indent 2 }}\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Install renders new releases as Helm 4 unless told otherwise; upgrade renders
// as Helm 3, the dialect of every release recorded so far.
func TestDeployDialect(t *testing.T) {
	const notDefined = `parse error at (h4/templates/configmap.yaml:6): function "mustToYaml" not defined`
	tests := map[string]struct {
		args    []string
		env     string
		wantErr string
	}{
		"install: helm4":                  {args: []string{"install", "web", "{chart}", "--dry-run"}},
		"install --compat helm3":          {args: []string{"install", "web", "{chart}", "--dry-run", "--compat", "helm3"}, wantErr: notDefined},
		"install with the variable":       {args: []string{"install", "web", "{chart}", "--dry-run"}, env: "helm3", wantErr: notDefined},
		"install: the flag wins":          {args: []string{"install", "web", "{chart}", "--dry-run", "--compat=helm4"}, env: "helm3"},
		"upgrade: helm3":                  {args: []string{"upgrade", "--install", "web", "{chart}", "--dry-run"}, wantErr: notDefined},
		"upgrade --compat helm4":          {args: []string{"upgrade", "--install", "web", "{chart}", "--dry-run", "--compat", "helm4"}},
		"upgrade with the variable":       {args: []string{"upgrade", "--install", "web", "{chart}", "--dry-run"}, env: "helm4"},
		"diff install takes the flag too": {args: []string{"diff", "install", "web", "{chart}", "--compat", "helm3"}, wantErr: notDefined},
		"a bad value":                     {args: []string{"install", "web", "{chart}", "--dry-run", "--compat", "helm5"}, wantErr: `--compat: invalid compat value "helm5": must be "helm4" or "helm3"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv(dialect.EnvVar, tc.env)
			chart := writeHelm4Chart(t)
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "{chart}", chart)
			}
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			out, errOut, err := runLifecycle(t, f, args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			if !strings.Contains(out, "data:\n  greeting: hello\n\n") {
				t.Errorf("the manifest is not Helm 4's:\n%s", out)
			}
		})
	}
}
