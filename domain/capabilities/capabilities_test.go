package capabilities_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"text/template"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// show executes text with .Capabilities as the dialect's templates see it.
func show(t *testing.T, c *capabilities.Capabilities, d dialect.Dialect, text string) string {
	t.Helper()
	tpl := template.Must(template.New("t").Funcs(template.FuncMap{
		"toJson": func(v any) string { b, _ := json.Marshal(v); return string(b) },
	}).Parse(text))
	var b strings.Builder
	if err := tpl.Execute(&b, map[string]any{"Capabilities": c.ForTemplates(d)}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Expected texts are what Helm v3.22.0 and v4.3.1 print for the same template and
// --kube-version (go1.26.8 builds).
func TestCapabilitiesByDialect(t *testing.T) {
	const text = `{{ .Capabilities.KubeVersion }} {{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.KubeVersion.GitVersion }} ` +
		`{{ .Capabilities.KubeVersion.Major }} {{ .Capabilities.KubeVersion.Minor }}|{{ toJson .Capabilities.KubeVersion }}|` +
		`{{ .Capabilities.HelmVersion }}|{{ toJson .Capabilities.HelmVersion }}|{{ .Capabilities.APIVersions.Has "apps/v1" }}`
	tests := map[string]struct {
		d           dialect.Dialect
		kubeVersion string
		want        string
	}{
		"helm3 default": {
			d:    dialect.Helm3,
			want: `v1.37.0 v1.37.0 v1.37.0 1 37|{"Version":"v1.37.0","Major":"1","Minor":"37"}|{v3.22.0  clean go1.26.8}|{"version":"v3.22.0","git_tree_state":"clean","go_version":"go1.26.8"}|true`,
		},
		"helm4 default": {
			d:    dialect.Helm4,
			want: `v1.37.0 v1.37.0 v1.37.0 1 37|{"Version":"v1.37.0","Major":"1","Minor":"37"}|{v4.3.1  clean go1.26.8 v1.37}|{"version":"v4.3.1","git_tree_state":"clean","go_version":"go1.26.8","kube_client_version":"v1.37"}|true`,
		},
		"helm3 keeps the version it understood": {
			d: dialect.Helm3, kubeVersion: "v1.31.2-gke.100",
			want: `v1.31.2 v1.31.2 v1.31.2 1 31|{"Version":"v1.31.2","Major":"1","Minor":"31"}|{v3.22.0  clean go1.26.8}|{"version":"v3.22.0","git_tree_state":"clean","go_version":"go1.26.8"}|true`,
		},
		"helm4 keeps the version given and prints the one understood": {
			d: dialect.Helm4, kubeVersion: "v1.31.2-gke.100",
			want: `v1.31.2 v1.31.2-gke.100 v1.31.2-gke.100 1 31|{"Version":"v1.31.2-gke.100","Major":"1","Minor":"31"}|{v4.3.1  clean go1.26.8 v1.37}|{"version":"v4.3.1","git_tree_state":"clean","go_version":"go1.26.8","kube_client_version":"v1.37"}|true`,
		},
		"helm4 adds the v": {
			d: dialect.Helm4, kubeVersion: "1.31.0+abc",
			want: `v1.31.0 v1.31.0+abc v1.31.0+abc 1 31|{"Version":"v1.31.0+abc","Major":"1","Minor":"31"}|{v4.3.1  clean go1.26.8 v1.37}|{"version":"v4.3.1","git_tree_state":"clean","go_version":"go1.26.8","kube_client_version":"v1.37"}|true`,
		},
		"two numbers stay two": {
			d: dialect.Helm4, kubeVersion: "1.31",
			want: `v1.31 v1.31 v1.31 1 31|{"Version":"v1.31","Major":"1","Minor":"31"}|{v4.3.1  clean go1.26.8 v1.37}|{"version":"v4.3.1","git_tree_state":"clean","go_version":"go1.26.8","kube_client_version":"v1.37"}|true`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := capabilities.Default("go1.26.8")
			if tc.kubeVersion != "" {
				kv, err := capabilities.ParseKubeVersionFor(tc.d, tc.kubeVersion)
				if err != nil {
					t.Fatal(err)
				}
				c.KubeVersion = *kv
			}
			if got := show(t, c, tc.d, text); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// Printing the whole object shows each Helm's struct layout.
func TestCapabilitiesPrintedWhole(t *testing.T) {
	c := capabilities.Default("go1.26.8")
	c.APIVersions = capabilities.VersionSet{"v1"}
	kv, err := capabilities.ParseKubeVersionFor(dialect.Helm4, "1.31.2-eks")
	if err != nil {
		t.Fatal(err)
	}
	c.KubeVersion = *kv
	for d, want := range map[dialect.Dialect]string{
		dialect.Helm3: "&{{v1.31.2-eks 1 31} [v1] {v3.22.0  clean go1.26.8}}",
		dialect.Helm4: "&{{v1.31.2-eks v1.31.2 1 31} [v1] {v4.3.1  clean go1.26.8 v1.37}}",
	} {
		if got := fmt.Sprintf("%v", c.ForTemplates(d)); got != want {
			t.Errorf("%s: %s, want %s", d, got, want)
		}
	}
}

func TestKubeVersionNormalized(t *testing.T) {
	tests := map[string]struct {
		d                       dialect.Dialect
		in, version, normalized string
	}{
		"helm3":              {d: dialect.Helm3, in: "1.30.1-gke.5", version: "v1.30.1", normalized: "v1.30.1"},
		"helm4":              {d: dialect.Helm4, in: "1.30.1-gke.5", version: "v1.30.1-gke.5", normalized: "v1.30.1"},
		"helm4 with its v":   {d: dialect.Helm4, in: "v1.30.1", version: "v1.30.1", normalized: "v1.30.1"},
		"helm4, two numbers": {d: dialect.Helm4, in: "1.30", version: "v1.30", normalized: "v1.30"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			kv, err := capabilities.ParseKubeVersionFor(tc.d, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if kv.Version != tc.version || kv.Normalized() != tc.normalized || kv.Major != "1" || kv.Minor != "30" {
				t.Errorf("%+v, Normalized %q", kv, kv.Normalized())
			}
		})
	}
	if _, err := capabilities.ParseKubeVersionFor(dialect.Helm4, "one.two"); err == nil {
		t.Error("a version without numbers parses")
	}
}

// The default API versions come in Helm's order (both releases': client-go's
// scheme in registration order, apiextensions last), which templates see when
// they range over the list; checked with `toJson .Capabilities.APIVersions`.
func TestDefaultAPIVersionsInHelmsOrder(t *testing.T) {
	vs := capabilities.Default("").APIVersions
	first := []string{"v1", "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1", "admissionregistration.k8s.io/v1beta1", "internal.apiserver.k8s.io/v1alpha1", "apps/v1"}
	last := []string{"storagemigration.k8s.io/v1beta1", "apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io/v1"}
	if len(vs) != 57 || strings.Join(vs[:len(first)], " ") != strings.Join(first, " ") || strings.Join(vs[len(vs)-len(last):], " ") != strings.Join(last, " ") {
		t.Errorf("default API versions (%d): %v", len(vs), vs)
	}
}
