package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

var updateReleaseGoldens = flag.Bool("update-releases", false, "rewrite testdata/releases goldens from this program's output")

// seedBbolt writes a small release history to a bbolt file, in UTC.
func seedBbolt(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "releases.db")
	s := bbolt.New(path, 0)
	add := func(ns, name string, rev int, st release.Status, desc string) {
		r := porttest.Release(ns, name, rev, st)
		r.Info.Description = desc
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	add("default", "web", 1, release.StatusSuperseded, "Install complete")
	add("default", "web", 2, release.StatusDeployed, "Upgrade complete")
	add("default", "api", 1, release.StatusFailed, "Install failed: timed out")
	add("prod", "db", 1, release.StatusPendingInstall, "Initial install underway")
	return path
}

func runReleaseCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCmdFor(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, BuildInfo{Version: "test"}, args)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestReleaseReadCommands(t *testing.T) {
	path := seedBbolt(t)
	t.Setenv(StorageEnv, "bbolt")
	t.Setenv(BboltPathEnv, path)
	tests := map[string][]string{
		"list":                 {"list"},
		"list-helm3":           {"list", "-A", "--compat", "helm3"},
		"list-all-namespaces":  {"list", "-A", "--all", "--compat", "helm3"},
		"list-json":            {"list", "-A", "-o", "json"},
		"list-yaml-short":      {"list", "-A", "-q", "-o", "yaml"},
		"list-date-reverse":    {"list", "-A", "-a", "-d", "-r", "--no-headers", "--compat", "helm3"},
		"list-pending":         {"list", "-A", "--pending", "--time-format", "2006-01-02"},
		"list-selector":        {"list", "-l", "team=payments,status=failed"},
		"history":              {"history", "web"},
		"history-json":         {"history", "web", "-o", "json", "--max", "1"},
		"status":               {"status", "web", "--show-desc", "--compat", "helm3"},
		"status-revision-yaml": {"status", "web", "--revision", "1", "-o", "yaml", "--compat", "helm3"},
		"get-values":           {"get", "values", "web"},
		"get-values-all-json":  {"get", "values", "web", "--all", "-o", "json"},
		"get-manifest":         {"get", "manifest", "web", "--revision", "1"},
		"get-notes":            {"get", "notes", "web"},
		"get-hooks":            {"get", "hooks", "web"},
		"get-metadata":         {"get", "metadata", "web"},
		"get-metadata-json":    {"get", "metadata", "web", "-o", "json"},
		"get-metadata-helm3":   {"get", "metadata", "web", "--compat", "helm3"},
		"get-all":              {"get", "all", "web"},
		"get-all-helm3":        {"get", "all", "web", "--compat", "helm3"},
		"get-all-template":     {"get", "all", "web", "--template", "{{.Release.Name}} {{.Release.Version}}"},
		"storage-flag":         {"list", "-n", "prod", "--pending", "--storage", "bbolt", "--bbolt-path", path},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := runReleaseCmd(t, args...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, errOut)
			}
			golden := filepath.Join("testdata", "releases", name+".txt")
			if *updateReleaseGoldens {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-releases)", err)
			}
			if out != string(want) {
				t.Errorf("%v output differs from %s:\n got:\n%s\nwant:\n%s", args, golden, out, want)
			}
		})
	}
}

func TestReleaseReadCommandErrors(t *testing.T) {
	path := seedBbolt(t)
	t.Setenv(StorageEnv, "bbolt")
	t.Setenv(BboltPathEnv, path)
	tests := map[string]struct {
		args []string
		want string
	}{
		"missing release":   {[]string{"history", "nope"}, "release: not found"},
		"missing revision":  {[]string{"get", "values", "web", "--revision", "9"}, "release: not found"},
		"bad output":        {[]string{"list", "-o", "wide"}, `invalid argument "wide"`},
		"bad storage":       {[]string{"list", "--storage", "etcd"}, `invalid --storage "etcd"`},
		"bad filter":        {[]string{"list", "--filter", "("}, "--filter"},
		"bad selector":      {[]string{"list", "-l", "a in (b"}, "selector"},
		"invalid name":      {[]string{"status", "Not_Valid"}, "releaseContent: Release name is invalid: Not_Valid"},
		"status needs name": {[]string{"status"}, `"kubectl chart status" requires 1 argument`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := runReleaseCmd(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v: error %v, want %q", tc.args, err, tc.want)
			}
		})
	}
}
