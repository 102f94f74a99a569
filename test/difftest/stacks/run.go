package stacks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
)

// hangAfter is how long a program may render one case: past it the run is a hang.
const hangAfter = 2 * time.Minute

// Runner renders a case with `helmfile template` (one release at a time,
// the order we print in) using a Helm peer, and with `kubectl chart stack
// template` in a dialect.
type Runner struct {
	Helmfile, Helm, Ours string
	Compat               string // helm4 or helm3
	// RepoURL is the generated chart repository's (DIFFTEST_REPO_URL in
	// the state files the generator writes).
	RepoURL string
}

// Run writes c to a directory of its own, runs both programs there with an
// empty home and no cluster, and removes the directory. The directory's
// path reads CASE in what they print, so that runs of one case compare.
func (r Runner) Run(ctx context.Context, c Case) (Result, error) {
	tmp, err := os.MkdirTemp("", "difftest-stack-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	dir, home := filepath.Join(tmp, "case"), filepath.Join(tmp, "home")
	if err := c.Write(dir); err != nil {
		return Result{}, err
	}
	env := append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+home+"/cache", "XDG_CONFIG_HOME="+home+"/config",
		"XDG_DATA_HOME="+home+"/data", "KUBECONFIG="+home+"/none", "HELM_NAMESPACE=", "KUBECTL_CHART_COMPAT=",
		"DIFFTEST_REPO_URL="+r.RepoURL)
	run := func(bin string, args ...string) (runner.Outcome, error) {
		out, err := runner.Exec(ctx, bin, append(args, c.Args...), dir, env, hangAfter)
		if err != nil {
			return out, fmt.Errorf("%s: %w", bin, err)
		}
		out.Stdout, out.Stderr = strings.ReplaceAll(out.Stdout, dir, "CASE"), strings.ReplaceAll(out.Stderr, dir, "CASE")
		return out, ctx.Err()
	}
	var res Result
	if res.Helmfile, err = run(r.Helmfile, "--helm-binary", r.Helm, "template", "--concurrency", "1"); err != nil {
		return res, err
	}
	res.Ours, err = run(r.Ours, "stack", "template", "--compat", r.Compat)
	return res, err
}
