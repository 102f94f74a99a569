package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// repo list as Helm v4.3.1 (helm4) and v3.22.0 (helm3) print it.
func TestRepoListByDialect(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"two.yaml":   "apiVersion: \"\"\nrepositories:\n- name: r\n  url: http://127.0.0.1:1/charts\n- name: p\n  url: http://127.0.0.1:1/p\n",
		"empty.yaml": "apiVersion: \"\"\nrepositories: []\n",
	})
	two, empty := filepath.Join(dir, "two.yaml"), filepath.Join(dir, "empty.yaml")
	tests := map[string]struct {
		args        []string
		out, errOut string
		wantErr     string
	}{
		"helm4: table":        {args: []string{"--repository-config", two, "--compat", "helm4"}, out: "NAME\tURL                      \nr   \thttp://127.0.0.1:1/charts\np   \thttp://127.0.0.1:1/p     \n"},
		"helm4: no headers":   {args: []string{"--repository-config", two, "--compat", "helm4", "--no-headers"}, out: "r\thttp://127.0.0.1:1/charts\np\thttp://127.0.0.1:1/p     \n"},
		"helm4: none":         {args: []string{"--repository-config", empty, "--compat", "helm4"}, errOut: "no repositories to show\n"},
		"helm3: none":         {args: []string{"--repository-config", empty, "--compat", "helm3"}, wantErr: "no repositories to show"},
		"helm3: no such flag": {args: []string{"--repository-config", two, "--compat", "helm3", "--no-headers"}, wantErr: "unknown flag: --no-headers"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := runRoot(t, append([]string{"repo", "list"}, tc.args...)...)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			if out != tc.out || errOut != tc.errOut {
				t.Errorf("stdout %q, stderr %q; want %q, %q", out, errOut, tc.out, tc.errOut)
			}
		})
	}
}

// create --chart-api-version as Helm v4.3.1 has it: v2; v3 only with
// $HELM_EXPERIMENTAL_CHART_V3 set; unknown in the Helm 3 dialect.
func TestCreateChartAPIVersion(t *testing.T) {
	tests := map[string]struct {
		args       []string
		gate       bool
		wantErr    string
		apiVersion string
	}{
		"v2":                 {args: []string{"--chart-api-version", "v2"}, apiVersion: "v2"},
		"v3 behind the gate": {args: []string{"--chart-api-version", "v3"}, wantErr: "this feature has been marked as experimental and is not enabled by default. Please set HELM_EXPERIMENTAL_CHART_V3=1 in your environment to use this feature"},
		"v3 with the gate":   {args: []string{"--chart-api-version", "v3"}, gate: true, apiVersion: "v3"},
		"v4":                 {args: []string{"--chart-api-version", "v4"}, gate: true, wantErr: "unsupported chart API version: v4 (supported: v2, v3)"},
		"helm3":              {args: []string{"--chart-api-version", "v2", "--compat", "helm3"}, wantErr: "unknown flag: --chart-api-version"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "mychart")
			var out bytes.Buffer
			cmd := NewCmdCreate(nil, tc.gate, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
			cmd.SetArgs(append([]string{dir}, tc.args...))
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if _, err := os.Stat(dir); err == nil {
					t.Error("refused, yet the chart was written")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "apiVersion: "+tc.apiVersion+"\nname: mychart\n") {
				t.Errorf("Chart.yaml:\n%s", b)
			}
		})
	}
}
