package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
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
	writeFiles(t, dir, files)
	return dir
}

// Install renders new releases as Helm 4 unless told otherwise, and so does
// upgrade --install of a release that does not exist.
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
		"upgrade --install: helm4":        {args: []string{"upgrade", "--install", "web", "{chart}", "--dry-run"}},
		"upgrade --compat helm3":          {args: []string{"upgrade", "--install", "web", "{chart}", "--dry-run", "--compat", "helm3"}, wantErr: notDefined},
		"upgrade with the variable":       {args: []string{"upgrade", "--install", "web", "{chart}", "--dry-run"}, env: "helm3", wantErr: notDefined},
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

// An upgrade renders in the dialect of the release's latest revision, read from
// its apply method as Helm 4 writes it, unless --compat says otherwise; the
// revision it writes carries the dialect on, and a rollback keeps the dialect
// of the revision it rolls back to.
func TestUpgradeFollowsTheReleasesDialect(t *testing.T) {
	t.Setenv(dialect.EnvVar, "")
	dir := filepath.Join(t.TempDir(), "v")
	writeFiles(t, dir, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: v\nversion: 0.1.0\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v\ndata:\n" +
			"  helm: {{ .Capabilities.HelmVersion.Version }}\n  n: {{ .Release.Revision | quote }}\n",
	})
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	steps := []struct {
		args        []string
		helm        string
		applyMethod release.ApplyMethod
	}{
		{[]string{"install", "web", dir, "--compat", "helm3"}, "v3.22.0", ""},
		{[]string{"upgrade", "web", dir}, "v3.22.0", ""},
		{[]string{"upgrade", "web", dir, "--compat", "helm4"}, "v4.3.1", release.ApplyClientSide},
		{[]string{"upgrade", "web", dir}, "v4.3.1", release.ApplyClientSide},
		{[]string{"upgrade", "web", dir, "--server-side=true"}, "v4.3.1", release.ApplyServerSide},
		{[]string{"rollback", "web", "2"}, "v3.22.0", ""},
		{[]string{"upgrade", "web", dir}, "v3.22.0", ""},
		{[]string{"rollback", "web", "5"}, "v4.3.1", release.ApplyServerSide},
		{[]string{"upgrade", "web", dir}, "v4.3.1", release.ApplyServerSide},
	}
	for i, step := range steps {
		if _, errOut, err := runLifecycle(t, f, append(step.args, "-n", "default")...); err != nil {
			t.Fatalf("%v: %v\n%s", step.args, err, errOut)
		}
		rel, err := f.store.Get(context.Background(), "default", "web", i+1)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rel.Manifest, "helm: "+step.helm+"\n") || rel.ApplyMethod != step.applyMethod {
			t.Errorf("revision %d (%v): apply method %q, manifest\n%s\nwant Helm %s, apply method %q",
				i+1, step.args, rel.ApplyMethod, rel.Manifest, step.helm, step.applyMethod)
		}
	}
}
