package render_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
)

// TestTemplateTextMatchesHelm4 compares `template --compat helm4` output with
// testdata/golden-helm4: what Helm v4.3.1 prints for `helm template rel ./shop
// -n shop-ns --kube-version 1.29.0` and the case's flags (helm), written by
// that Helm with -update.
func TestTemplateTextMatchesHelm4(t *testing.T) {
	tests := map[string]struct {
		set         []string
		includeCRDs bool
		opts        render.TemplateOptions
		helm        []string
		golden      string
	}{
		"no flags":       {golden: "default"},
		"--include-crds": {includeCRDs: true, helm: []string{"--include-crds"}, golden: "include-crds"},
		"--skip-tests":   {opts: render.TemplateOptions{SkipTests: true}, helm: []string{"--skip-tests"}, golden: "skip-tests"},
		"--set disabling a subchart, the alias stays": {
			set:    []string{"cart.enabled=false", "basket.size=xl"},
			helm:   []string{"--set", "cart.enabled=false", "--set", "basket.size=xl"},
			golden: "cart-disabled",
		},
		"--show-only globs, in the order given": {
			opts:   render.TemplateOptions{ShowOnly: []string{"templates/tests/*", "templates/secret.yaml", "templates/deploy*"}},
			helm:   []string{"--show-only", "templates/tests/*", "--show-only", "templates/secret.yaml", "--show-only", "templates/deploy*"},
			golden: "show-only-globs",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("testdata", "golden-helm4", tc.golden+".txt")
			if *update {
				writeHelmGolden(t, "v4.3.1", file, tc.helm...)
			}
			req, warnings := shopRequest(t, tc.set...)
			req.IncludeCRDs = tc.includeCRDs
			req.Dialect = dialect.Helm4
			rendered, err := render.Chart(context.Background(), req)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			tc.opts.Dialect = dialect.Helm4
			got, err := render.TemplateText(rendered, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("output differs from Helm 4's (%s):\n--- got\n%s\n--- want\n%s", file, got, want)
			}
			if want := `info: skipping unknown hook: "sometime"`; strings.Join(*warnings, "\n") != want {
				t.Errorf("warnings = %q, want %q", *warnings, want)
			}
		})
	}
}

func TestRenderHelm4Rules(t *testing.T) {
	tests := map[string]struct {
		apiVersion, kubeVersion, constraint string
		d                                   dialect.Dialect
		wantErr                             string
	}{
		"helm4 refuses charts of API version v3": {
			apiVersion: "v3", d: dialect.Helm4, wantErr: "invalid chart apiVersion",
		},
		"helm3 renders them": {apiVersion: "v3", d: dialect.Helm3},
		"helm4 names the version as given": {
			apiVersion: "v2", kubeVersion: "1.28.3-gke.1", constraint: ">=1.29.0-0", d: dialect.Helm4,
			wantErr: "chart requires kubeVersion: >=1.29.0-0 which is incompatible with Kubernetes v1.28.3-gke.1",
		},
		"helm3 names the version it understood": {
			apiVersion: "v2", kubeVersion: "1.28.3-gke.1", constraint: ">=1.29.0-0", d: dialect.Helm3,
			wantErr: "chart requires kubeVersion: >=1.29.0-0 which is incompatible with Kubernetes v1.28.3",
		},
		"helm4 checks the version it understood": {
			apiVersion: "v2", kubeVersion: "1.29.3-gke.1", constraint: ">=1.29.0", d: dialect.Helm4,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ch := &chart.Chart{
				Metadata:  &chart.Metadata{APIVersion: tc.apiVersion, Name: "c", Version: "0.1.0", KubeVersion: tc.constraint},
				Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\nmetadata:\n  name: x\n")}},
			}
			c := caps(t, "1.29.0")
			if tc.kubeVersion != "" {
				kv := parseKubeVersion(t, tc.d, tc.kubeVersion)
				c.KubeVersion = *kv
			}
			_, err := render.Chart(context.Background(), render.Request{
				Chart: ch, ReleaseName: "rel", Namespace: "ns", Revision: 1, Capabilities: c, Dialect: tc.d,
			})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			var re *render.Error
			if tc.apiVersion == "v3" && errors.As(err, &re) {
				t.Errorf("the API version is refused before rendering, got a render.Error")
			}
		})
	}
}

func parseKubeVersion(t *testing.T, d dialect.Dialect, s string) *capabilities.KubeVersion {
	t.Helper()
	kv, err := capabilities.ParseKubeVersionFor(d, s)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// JSON Schema validation sees the values of the dialect: null chart defaults fail
// a schema in Helm 3 and are gone in Helm 4 (as Helm v3.22.0 and v4.3.1 do with
// this chart).
func TestSchemaSeesTheDialectsValues(t *testing.T) {
	for d, wantErr := range map[dialect.Dialect]string{
		dialect.Helm3: "values don't meet the specifications of the schema(s) in the following chart(s):\nsn:\n- at '/a': got null, want string\n- at '/b/c': got null, want integer\n",
		dialect.Helm4: "",
	} {
		ch := &chart.Chart{
			Metadata:  &chart.Metadata{APIVersion: "v2", Name: "sn", Version: "0.1.0"},
			Values:    map[string]any{"a": nil, "b": map[string]any{"c": nil}},
			Schema:    []byte(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"object","properties":{"c":{"type":"integer"}}}}}`),
			Templates: []*chart.File{{Name: "templates/a.yaml", Data: []byte("x: 1\n")}},
		}
		_, err := render.Chart(context.Background(), render.Request{
			Chart: ch, ReleaseName: "r", Namespace: "ns", Revision: 1, Capabilities: caps(t, "1.31.0"), Dialect: d,
		})
		if got := errString(err); got != wantErr {
			t.Errorf("%s: error %q, want %q", d, got, wantErr)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
