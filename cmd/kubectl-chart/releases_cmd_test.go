package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

var updateReleaseGoldens = flag.Bool("update-releases", false, "rewrite testdata/releases goldens by running each command with Helm v4.3.1 or v3.22.0 (hack/helm-peer.sh) on the same releases stored in the cluster of $"+cluster.KubeconfigEnv)

// seedNamespace is where the seeded releases' commands run (HELM_NAMESPACE),
// and seedNamespace-prod another namespace: as long as a run's namespaces in
// the cluster, so that Helm's list pads them alike (helmCluster.newRun).
const seedNamespace = "goldens-seeds"

// seedReleases is a small release history, in UTC. Each release is labelled
// fixture=releases: listing all namespaces selects them by it, so that Helm
// lists the seeded releases alone in a cluster others use.
func seedReleases() []*release.Release {
	rel := func(ns, name string, rev int, st release.Status, desc string) *release.Release {
		r := porttest.Release(ns, name, rev, st)
		r.Info.Description = desc
		r.Labels["fixture"] = "releases"
		return r
	}
	// Helm orders releases deployed in the same second at random (listing by
	// date): db's is its own.
	db := rel(seedNamespace+"-prod", "db", 1, release.StatusPendingInstall, "Initial install underway")
	db.Info.LastDeployed.Time = db.Info.LastDeployed.Add(30 * time.Second)
	return []*release.Release{
		rel(seedNamespace, "web", 1, release.StatusSuperseded, "Install complete"),
		rel(seedNamespace, "web", 2, release.StatusDeployed, "Upgrade complete"),
		rel(seedNamespace, "api", 1, release.StatusFailed, "Install failed: timed out"),
		db,
	}
}

// seedBbolt writes seedReleases to a bbolt file for our commands to read,
// which run in seedNamespace.
func seedBbolt(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "releases.db")
	s := bbolt.New(path, 0)
	for _, r := range seedReleases() {
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(StorageEnv, "bbolt")
	t.Setenv(BboltPathEnv, path)
	t.Setenv("HELM_NAMESPACE", seedNamespace)
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

// TestReleaseReadCommands runs the commands that read releases on
// seedReleases and compares their stdout and stderr with
// testdata/releases/NAME.txt (and NAME.stderr.txt): what Helm printed for the
// same command line on the same releases, stored as Helm stores them in a
// cluster (-update-releases). The records' times are fixed: only the
// createdAt label is masked.
func TestReleaseReadCommands(t *testing.T) {
	path := seedBbolt(t)
	all := []string{"-A", "-l", "fixture=releases"}
	tests := map[string][]string{
		"list":                 {"list"},
		"list-helm3":           append([]string{"list", "--compat", "helm3"}, all...),
		"list-all-namespaces":  append([]string{"list", "--all", "--compat", "helm3"}, all...),
		"list-json":            append([]string{"list", "-o", "json"}, all...),
		"list-yaml-short":      append([]string{"list", "-q", "-o", "yaml"}, all...),
		"list-date-reverse":    append([]string{"list", "-a", "-d", "-r", "--no-headers", "--compat", "helm3"}, all...),
		"list-pending":         append([]string{"list", "--pending", "--time-format", "2006-01-02"}, all...),
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
		"storage-flag":         {"list", "-n", seedNamespace + "-prod", "--pending", "--storage", "bbolt", "--bbolt-path", path},
	}
	if *updateReleaseGoldens {
		writeReleaseGoldens(t, tests)
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("testdata", "releases", name+".txt")
			out, errOut, err := runReleaseCmd(t, args...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, errOut)
			}
			want, wantErr := readHelmOutput(t, golden, "-update-releases")
			if got := maskCreatedAt(out); got != want {
				t.Errorf("%v output differs from Helm's %s:\n got:\n%s\nwant:\n%s", args, golden, got, want)
			}
			if errOut != wantErr {
				t.Errorf("%v stderr differs from Helm's:\n got:\n%s\nwant:\n%s", args, errOut, wantErr)
			}
		})
	}
}

// writeReleaseGoldens seeds the releases in the cluster for one Helm at a
// time (listing all namespaces then finds one seeding) and writes what it
// prints for each case of its dialect.
func writeReleaseGoldens(t *testing.T, tests map[string][]string) {
	t.Helper()
	h := newHelmCluster(t, "-update-releases")
	for d := range helmPeerVersions {
		t.Run("helm-"+string(d), func(t *testing.T) {
			r := h.newRun(t, d, seedNamespace)
			r.seed(t, seedReleases())
			for name, args := range tests {
				if cd, _ := helmArgs(args); cd != d {
					continue
				}
				out, errOut := r.run(t, r.args(t, args)...)
				writeHelmOutput(t, filepath.Join("testdata", "releases", name+".txt"), maskCreatedAt(r.caseNames(out)), r.caseNames(errOut))
			}
		})
	}
}

// createdAt is the label of a release's Secret that says when it was
// written, which Helm 4's get metadata shows: the seeds' in the cluster are
// the run's time, and bbolt, which our commands read them from here, keeps
// no such label. Masking drops it from both outputs.
var createdAt = regexp.MustCompile(`createdAt=\d+,|"createdAt":"\d+",`)

func maskCreatedAt(text string) string { return createdAt.ReplaceAllString(text, "") }

func TestReleaseReadCommandErrors(t *testing.T) {
	seedBbolt(t)
	tests := map[string]struct {
		args []string
		want string
	}{
		"missing release":   {[]string{"history", "nope"}, "release: not found"},
		"missing revision":  {[]string{"get", "values", "web", "--revision", "9"}, "release: not found"},
		"bad output":        {[]string{"list", "-o", "wide"}, `invalid argument "wide"`},
		"bad storage":       {[]string{"list", "--storage", "etcd"}, `invalid --storage "etcd"`},
		"bad filter":        {[]string{"list", "--filter", "("}, "error parsing regexp: missing closing ): `(`"},
		"bad selector":      {[]string{"list", "-l", "a in (b"}, "unable to parse requirement: found '', expected: ',' or ')'"},
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
