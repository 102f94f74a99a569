//go:build e2e

package dropin

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestChartTesting runs chart-testing v3.7.1's lint and install of a changed
// chart (a Deployment, a ConfigMap and a test hook) in a git repository whose
// target branch holds the chart's previous version, with Helm and with us as
// `helm`. Maintainers are not checked (ct asks GitHub) nor Chart.yaml against
// ct's schema (ct runs yamale, which no package here provides); yamllint runs.
func TestChartTesting(t *testing.T) {
	for _, d := range dialects() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			ct := toolPeer(t, "ct")
			kubectl := toolPeer(t, "kubectl")
			realHelm := helmPeer(t, d.version)
			p := newPair(t, d, realHelm, map[string]string{"kubectl": kubectl}, map[string]string{"ct": ct},
				[]string{"NS_CT"}, "ct", []string{"CT_CONFIG_DIR=" + filepath.Join(filepath.Dir(ct), "etc")})
			for _, s := range p.sides() {
				gitRepo(t, s)
				s.recordHelm(t)
			}
			p.run(t, []step{
				{name: "lint", program: "ct", dir: "repo", mode: same, offline: true, args: []string{
					"lint", "--remote", "origin", "--target-branch", "main",
					"--validate-maintainers=false", "--validate-chart-schema=false",
				}},
				{name: "install", program: "ct", dir: "repo", mode: same, mask: maskKubectl, args: []string{
					"install", "--remote", "origin", "--target-branch", "main",
					"--namespace", "$NS_CT", "--release-label", "app.kubernetes.io/instance",
				}},
			})
		})
	}
}

// gitRepo turns the side's copy of testdata/ct into a clone of a repository
// ("origin", beside it) whose main branch has the chart at version 0.1.0,
// checked out on a branch that bumps it to testdata's. Fixed authors and
// dates give both sides the same commits.
func gitRepo(t *testing.T, s *side) {
	t.Helper()
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(append([]string{}, s.env...), "PATH="+os.Getenv("PATH"),
			"GIT_AUTHOR_NAME=dropin", "GIT_AUTHOR_EMAIL=dropin@example.invalid", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
			"GIT_COMMITTER_NAME=dropin", "GIT_COMMITTER_EMAIL=dropin@example.invalid", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
			"GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
		}
	}
	repo := filepath.Join(s.dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(s.dir, "charts"), filepath.Join(repo, "charts")); err != nil {
		t.Fatal(err)
	}
	chartYAML := filepath.Join(repo, "charts", "probe", "Chart.yaml")
	bumped, err := os.ReadFile(chartYAML)
	if err != nil {
		t.Fatal(err)
	}
	previous := strings.Replace(string(bumped), "\nversion: 0.2.0\n", "\nversion: 0.1.0\n", 1)
	if previous == string(bumped) {
		t.Fatalf("%s: no 'version: 0.2.0' to take back", chartYAML)
	}
	if err := os.WriteFile(chartYAML, []byte(previous), 0o644); err != nil {
		t.Fatal(err)
	}
	git(s.dir, "init", "-q", "--bare", "-b", "main", "origin.git")
	git(repo, "init", "-q", "-b", "main")
	git(repo, "add", ".")
	git(repo, "commit", "-q", "-m", "probe 0.1.0")
	git(repo, "remote", "add", "origin", filepath.Join(s.dir, "origin.git"))
	git(repo, "push", "-q", "origin", "main")
	git(repo, "fetch", "-q", "origin")
	git(repo, "checkout", "-q", "-b", "bump")
	if err := os.WriteFile(chartYAML, bumped, 0o644); err != nil {
		t.Fatal(err)
	}
	git(repo, "commit", "-q", "-am", "probe 0.2.0")
}

// kubectlReport is what ct prints of kubectl after an install, between two
// lines of "=": the namespace's events, each pod described, its logs. They
// are the fake node's timings, addresses and names, not Helm's, and vary from
// run to run.
var kubectlReport = regexp.MustCompile(`(?s)\n={120}\n.*?\n={120}(\n|$)`)

func maskKubectl(text string) string {
	return kubectlReport.ReplaceAllString(text, "\n(kubectl's report of the namespace, not compared)\n")
}
