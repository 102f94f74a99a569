package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/cmdtree"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// runCmdtree is the command-availability axis of dialect d: o.cmdtree probes
// (all when negative) over both Helms' and our command trees, ours run under
// the name helm. It reports whether any differ.
func runCmdtree(ctx context.Context, o options, d generator.Dialect, w io.Writer) (bool, error) {
	helm, err := o.helmFor(d)
	if err != nil {
		return false, err
	}
	otherDialect := generator.Helm4
	if d == generator.Helm4 {
		otherDialect = generator.Helm3
	}
	other, err := o.helmFor(otherDialect)
	if err != nil {
		return false, err
	}
	dir, err := os.MkdirTemp("", "difftest-helm-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	asHelm := filepath.Join(dir, "helm")
	if err := os.Symlink(o.ours, asHelm); err != nil {
		return false, err
	}
	sum, err := cmdtree.Execute(ctx, cmdtree.Config{Dialect: d, Helm: helm, Other: other, Ours: asHelm, Probes: o.cmdtree, Seed: o.seed, Jobs: o.jobs, Only: o.cmdtreeOnly})
	if err != nil {
		return false, err
	}
	sum.Report(w, 3)
	fmt.Fprintf(w, "difftest %s: %d command-line probes, %d differences\n", d, sum.Probes, len(sum.Differences))
	return len(sum.Differences) > 0, nil
}
