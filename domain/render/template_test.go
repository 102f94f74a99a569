package render_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var update = flag.Bool("update", false, "rewrite testdata/golden and testdata/golden-helm4 with what Helm v3.22.0 and v4.3.1 print (hack/helm-peer.sh builds them)")

// writeHelmGolden writes what the Helm of version prints for `helm template
// rel ./shop -n shop-ns --kube-version 1.29.0` and flags to file.
func writeHelmGolden(t *testing.T, version, file string, flags ...string) {
	t.Helper()
	helm := prereq.BuildHelmPeer(t, version)
	cmd := exec.Command(helm, append([]string{"template", "rel", "./shop", "-n", "shop-ns", "--kube-version", "1.29.0"}, flags...)...)
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s %v: %v\n%s", version, cmd.Args[1:], err, stderr.String())
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// shopRequest is testdata/shop rendered as `helm template rel ./shop -n shop-ns
// --kube-version 1.29.0` does, with the given --set flags.
func shopRequest(t *testing.T, set ...string) (render.Request, *[]string) {
	t.Helper()
	ch, err := loader.LoadDir(os.DirFS("testdata/shop"), loader.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	vals, err := values.Options{Values: set}.Merge(func(name string) ([]byte, error) {
		return nil, fmt.Errorf("unexpected read of %s", name)
	})
	if err != nil {
		t.Fatal(err)
	}
	warnings := &[]string{}
	return render.Request{
		Dialect:      dialect.Helm3,
		Chart:        ch,
		Values:       vals,
		ReleaseName:  "rel",
		Namespace:    "shop-ns",
		Revision:     1,
		Capabilities: caps(t, "1.29.0"),
		Warn:         func(format string, args ...any) { *warnings = append(*warnings, fmt.Sprintf(format, args...)) },
	}, warnings
}

func caps(t *testing.T, kube string) *capabilities.Capabilities {
	t.Helper()
	c := capabilities.Default("")
	kv, err := capabilities.ParseKubeVersion(kube)
	if err != nil {
		t.Fatal(err)
	}
	c.KubeVersion = *kv
	return c
}

func golden(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTemplateTextMatchesHelm compares `template` output with what Helm v3.22.0
// prints for the same chart and flags (helm; testdata/golden, one file per
// case, written by that Helm with -update).
func TestTemplateTextMatchesHelm(t *testing.T) {
	tests := map[string]struct {
		set         []string
		includeCRDs bool
		opts        render.TemplateOptions
		helm        []string
		golden      string
		wantErr     string
	}{
		"no flags":       {golden: "default"},
		"--include-crds": {includeCRDs: true, helm: []string{"--include-crds"}, golden: "include-crds"},
		"--skip-tests":   {opts: render.TemplateOptions{SkipTests: true}, helm: []string{"--skip-tests"}, golden: "skip-tests"},
		"--no-hooks":     {opts: render.TemplateOptions{DisableHooks: true}, helm: []string{"--no-hooks"}, golden: "no-hooks"},
		"--set disabling a subchart, the alias stays": {
			set:    []string{"cart.enabled=false", "basket.size=xl"},
			helm:   []string{"--set", "cart.enabled=false", "--set", "basket.size=xl"},
			golden: "cart-disabled",
		},
		"--include-crds --no-hooks, alias disabled": {
			set: []string{"basket.enabled=false"}, includeCRDs: true,
			opts:   render.TemplateOptions{DisableHooks: true},
			helm:   []string{"--set", "basket.enabled=false", "--include-crds", "--no-hooks"},
			golden: "crds-no-hooks",
		},
		"--show-only one template": {
			opts:   render.TemplateOptions{ShowOnly: []string{"templates/configmap.yaml"}},
			helm:   []string{"--show-only", "templates/configmap.yaml"},
			golden: "show-only",
		},
		"--show-only globs, in the order given": {
			opts:   render.TemplateOptions{ShowOnly: []string{"templates/tests/*", "templates/secret.yaml", "templates/deploy*"}},
			helm:   []string{"--show-only", "templates/tests/*", "--show-only", "templates/secret.yaml", "--show-only", "templates/deploy*"},
			golden: "show-only-globs",
		},
		"--show-only a subchart template": {
			opts:   render.TemplateOptions{ShowOnly: []string{"charts/basket/templates/service.yaml"}},
			helm:   []string{"--show-only", "charts/basket/templates/service.yaml"},
			golden: "show-only-subchart",
		},
		"--show-only a template that is not rendered": {
			opts:    render.TemplateOptions{ShowOnly: []string{"templates/missing.yaml"}},
			wantErr: "could not find template templates/missing.yaml in chart",
		},
		"--show-only tests with --skip-tests": {
			opts:    render.TemplateOptions{ShowOnly: []string{"templates/tests/*"}, SkipTests: true},
			wantErr: "could not find template templates/tests/* in chart",
		},
		"--show-only a partial": {
			opts:    render.TemplateOptions{ShowOnly: []string{"templates/_helpers.tpl"}},
			wantErr: "could not find template templates/_helpers.tpl in chart",
		},
		"--show-only with an empty template": {
			opts:    render.TemplateOptions{ShowOnly: []string{"templates/empty.yaml"}},
			wantErr: "could not find template templates/empty.yaml in chart",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req, warnings := shopRequest(t, tc.set...)
			req.IncludeCRDs = tc.includeCRDs
			rendered, err := render.Chart(context.Background(), req)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			got, err := render.TemplateText(rendered, tc.opts)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("TemplateText error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				writeHelmGolden(t, "v3.22.0", filepath.Join("testdata", "golden", tc.golden+".txt"), tc.helm...)
			}
			if want := golden(t, tc.golden); got != want {
				t.Errorf("output differs from Helm's (testdata/golden/%s.txt):\n--- got\n%s\n--- want\n%s", tc.golden, got, want)
			}
			if want := []string{`info: skipping unknown hook: "sometime"`}; strings.Join(*warnings, "\n") != want[0] {
				t.Errorf("warnings = %q, want %q", *warnings, want)
			}
		})
	}
}

func TestOutputHooks(t *testing.T) {
	req, _ := shopRequest(t)
	rendered, err := render.Chart(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		opts render.TemplateOptions
		want []string
	}{
		"all hooks":                   {want: []string{"rel-post", "rel-test-connection", "rel-test-legacy", "rel-migrate"}},
		"no tests":                    {opts: render.TemplateOptions{SkipTests: true}, want: []string{"rel-post", "rel-migrate"}},
		"no hooks":                    {opts: render.TemplateOptions{DisableHooks: true}},
		"no hooks wins":               {opts: render.TemplateOptions{DisableHooks: true, SkipTests: true}},
		"show-only only filters text": {opts: render.TemplateOptions{ShowOnly: []string{"templates/secret.yaml"}}, want: []string{"rel-post", "rel-test-connection", "rel-test-legacy", "rel-migrate"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, h := range render.OutputHooks(rendered, tc.opts) {
				got = append(got, h.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("hooks = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTemplateTextShowOnlyWithoutSources(t *testing.T) {
	// Documents without a "# Source:" line cannot be selected.
	r := &render.Rendered{Manifest: "---\nkind: ConfigMap\n"}
	if _, err := render.TemplateText(r, render.TemplateOptions{ShowOnly: []string{"*"}}); err == nil || err.Error() != "could not find template * in chart" {
		t.Errorf("error = %v", err)
	}
	text, err := render.TemplateText(r, render.TemplateOptions{})
	if err != nil || text != "---\nkind: ConfigMap\n" {
		t.Errorf("TemplateText = %q, %v", text, err)
	}
	empty, err := render.TemplateText(&render.Rendered{}, render.TemplateOptions{})
	if err != nil || empty != "\n" {
		t.Errorf("empty release: TemplateText = %q, %v; want a single newline as Helm prints", empty, err)
	}
}
