package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var updateStacks = flag.Bool("update-stacks", false, "rewrite testdata/stacks goldens from helmfile v1.8.0 template with Helm v4.3.1 and v3.22.0 (hack/tool-peer.sh, hack/helm-peer.sh)")

// stackDialects are the Helm each golden of testdata/stacks comes from.
var stackDialects = []struct{ compat, helm string }{
	{"helm4", "v4.3.1"},
	{"helm3", "v3.22.0"},
}

// TestStackTemplateAsHelmfile renders each stack of testdata/stacks (a
// directory with an args file: the flags after `template`) and compares
// stdout and stderr with what `helmfile template` printed, with each Helm.
func TestStackTemplateAsHelmfile(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "stacks", "*", "args"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no stack cases: %v", err)
	}
	var helmfile string
	if *updateStacks {
		helmfile = prereq.BuildTool(t, "helmfile")
	}
	for _, d := range stackDialects {
		var helm string
		if *updateStacks {
			helm = prereq.BuildHelmPeer(t, d.helm)
		}
		for _, argsFile := range cases {
			dir, err := filepath.Abs(filepath.Dir(argsFile))
			if err != nil {
				t.Fatal(err)
			}
			t.Run(d.compat+"/"+filepath.Base(dir), func(t *testing.T) {
				raw, err := os.ReadFile(argsFile)
				if err != nil {
					t.Fatal(err)
				}
				args := strings.Fields(string(raw))
				isolateStackEnv(t)
				golden := filepath.Join(dir, "golden", d.compat)
				if *updateStacks {
					writeHelmfileGolden(t, dir, golden, helmfile, helm, args)
				}
				wantOut, err := os.ReadFile(golden + ".stdout")
				if err != nil {
					t.Fatalf("%v (go test -run TestStackTemplateAsHelmfile -update-stacks writes it)", err)
				}
				wantErr, err := os.ReadFile(golden + ".stderr")
				if err != nil {
					t.Fatal(err)
				}
				t.Chdir(dir)
				out, errOut, err := runRoot(t, append([]string{"stack", "template", "--compat", d.compat}, args...)...)
				if err != nil {
					t.Fatalf("stack template: %v\nstderr:\n%s", err, errOut)
				}
				if out != string(wantOut) {
					t.Errorf("stdout differs from helmfile's:\n%s", firstDifference(string(wantOut), out))
				}
				if errOut != string(wantErr) {
					t.Errorf("stderr differs from helmfile's:\n%s", firstDifference(string(wantErr), errOut))
				}
			})
		}
	}
}

// isolateStackEnv gives helmfile, Helm and us an empty home, no kubeconfig
// and the environment the fixtures read.
func isolateStackEnv(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	for _, v := range []string{"HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME", "HELM_PLUGINS", "HELM_DRIVER", "HELM_NAMESPACE", "KUBECTL_CHART_COMPAT", "HELMFILE_ENVIRONMENT"} {
		t.Setenv(v, "")
		_ = os.Unsetenv(v)
	}
	t.Setenv("KUBECONFIG", filepath.Join(home, "no-kubeconfig"))
	t.Setenv("STACK_GREETING", "howdy")
}

// writeHelmfileGolden runs `helmfile template` (one release at a time, so its
// lines come in order) with helm and keeps what it printed.
func writeHelmfileGolden(t *testing.T, dir, golden, helmfile, helm string, args []string) {
	t.Helper()
	cmd := exec.Command(helmfile, append([]string{"--helm-binary", helm, "template", "--concurrency", "1"}, args...)...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		t.Fatalf("helmfile template failed (%v): the stack cases are ones it renders:\n%s", err, errOut.String())
	}
	if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden+".stdout", out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden+".stderr", errOut.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDifference shows the first line where got departs from want.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, wl, gl)
		}
	}
	return "(same lines, different bytes)"
}

// A file's repositories are added as helmfile adds them (`helm repo add
// --force-update`), saying so, before its charts are prepared.
func TestStackTemplateAddsRepositories(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/index.yaml" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, "apiVersion: v1\nentries: {}\n")
	}))
	defer srv.Close()
	tests := map[string]struct{ release, want string }{
		"before its charts": {
			release: "- name: db\n  namespace: data\n  chart: ./db\n",
			want:    "Building dependency release=db, chart=db\nTemplating release=db, chart=db\n",
		},
		"with nothing to render": {release: "- name: db\n  namespace: data\n  chart: ./db\n  installed: false\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			isolateStackEnv(t)
			dir := t.TempDir()
			state := "repositories:\n- name: stable\n  url: " + srv.URL + "\nreleases:\n" + tc.release
			files := map[string]string{"helmfile.yaml": state, "db/Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n"}
			for name, content := range files {
				if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			for range 2 {
				_, errOut, err := runRoot(t, "stack", "template")
				if err != nil {
					t.Fatalf("stack template: %v\n%s", err, errOut)
				}
				if want := "Adding repo stable " + srv.URL + "\n\"stable\" has been added to your repositories\n" + tc.want; errOut != want {
					t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
				}
			}
		})
	}
}
