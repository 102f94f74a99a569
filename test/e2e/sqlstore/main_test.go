//go:build e2e

// Package sqlstore tests the SQL release store end to end, on a real control
// plane and a real PostgreSQL: interoperability with Helm v4.3.1 and v3.22.0
// (HELM_DRIVER=sql) on one database, whichever created the tables, and
// upgrades from many processes serialised by the lock in the database.
package sqlstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/postgres"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/pgserver"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// env, db and bin are set once by TestMain and only read by tests.
var (
	env *cluster.Env
	db  *pgserver.Shared
	bin string
)

func TestMain(m *testing.M) {
	b, remove, err := prereq.BuildBinary("sqlstore")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := pgserver.Main(&clusterMain{m}, &db)
	remove()
	os.Exit(code)
}

// clusterMain runs the tests on a control plane, inside pgserver.Main.
type clusterMain struct{ m *testing.M }

func (c *clusterMain) Run() int { return cluster.Main(c.m, func(e *cluster.Env) { env = e }) }

func chartDir() string {
	return filepath.Join(prereq.ModuleRoot(), "test", "e2e", "sqlstore", "testdata", "chart")
}

// helmPeer builds (once, cached) and returns the Helm binary of version.
func helmPeer(t *testing.T, version string) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, version)
}

// runner runs kubectl-chart and Helm with HELM_DRIVER=sql on one database,
// against the test cluster, with isolated homes.
type runner struct {
	t    *testing.T
	helm string
	url  string
	env  []string
}

func newRunner(t *testing.T, helm, url string) *runner {
	d := t.TempDir()
	return &runner{t: t, helm: helm, url: url, env: []string{
		"HOME=" + d,
		"XDG_CONFIG_HOME=" + filepath.Join(d, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(d, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(d, "data"),
		"HELM_CONFIG_HOME=" + filepath.Join(d, "helm-config"),
		"HELM_CACHE_HOME=" + filepath.Join(d, "helm-cache"),
		"HELM_DATA_HOME=" + filepath.Join(d, "helm-data"),
		"KUBECONFIG=" + env.Kubeconfig(),
		"PATH=" + os.Getenv("PATH"),
		"TZ=UTC",
		"HELM_DRIVER=sql",
		"HELM_DRIVER_SQL_CONNECTION_STRING=" + url,
	}}
}

// command is program with the runner's environment.
func (r *runner) command(program string, args ...string) *exec.Cmd {
	cmd := exec.Command(program, args...)
	cmd.Env = r.env
	return cmd
}

func (r *runner) run(program string, args ...string) string {
	r.t.Helper()
	cmd := r.command(program, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("%s %s: %v\n%s%s", filepath.Base(program), strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String()
}

func (r *runner) kc(args ...string) string      { r.t.Helper(); return r.run(bin, args...) }
func (r *runner) helmRun(args ...string) string { r.t.Helper(); return r.run(r.helm, args...) }

// history reads a release's history straight from the database.
func history(t *testing.T, url, ns, name string) release.History {
	t.Helper()
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h, err := s.History(context.Background(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
