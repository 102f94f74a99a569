//go:build e2e

package dropin

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var helmBothSides = flag.Bool("helm-both-sides", false,
	"run the real Helm on our side too: the harness's own check, which must report no difference (diff and apply then fail on both sides alike)")

// mode is whose `helm` a step runs and what it expects of the two sides.
type mode int

const (
	// same: each side runs its own `helm`; everything must be alike.
	same mode = iota
	// helmFails: each side runs its own `helm`; Helm, which has no helm-diff
	// plugin, must fail and we must succeed (helmfile's diff and apply).
	helmFails
	// backToHelm: both sides run the real Helm, one after Helm, the other
	// after us; everything must be alike.
	backToHelm
	// backToHelmSucceeds: both sides run the real Helm after their states
	// parted (after apply): both must succeed.
	backToHelmSucceeds
)

// step is one command of a scenario, run on both sides.
type step struct {
	name    string
	program string // a key of the pair's programs
	dir     string // in the work tree
	args    []string
	env     []string
	mode    mode
	// offline steps do not touch the cluster: its objects and records are not read after them.
	offline bool
	// mask, when set, hides more of the tool's output: what it prints of
	// other programs whose output varies from run to run.
	mask func(string) string
	// check, when set, looks further at our side's objects.
	check func(t *testing.T, objects string)
}

// snapshot is a side's answer to a step and its state afterwards, masked.
type snapshot struct {
	result result
	// helm is what helm printed, when the side records it.
	helm                    string
	objects, records, files string
}

// pair is the two sides of a scenario and the programs its steps run.
type pair struct {
	helm, ours *side
	programs   map[string]string
}

// newPair lays out both sides under root: the tree testdata/tree copied as
// each side's work tree, a namespace of its own for each placeholder
// (exported to the tools under that name), and extra environment.
func newPair(t *testing.T, d dialect, realHelm string, tools, programs map[string]string, placeholders []string, tree string, extra []string) *pair {
	t.Helper()
	root := t.TempDir()
	mk := func(name, helm string) *side {
		// Tools sort by namespace (helmfile's list and its groups): each side's
		// placeholders get their names in one order, so both sort alike.
		names := make([]string, len(placeholders))
		for i := range names {
			names[i] = env.Namespace(t)
		}
		sort.Strings(names)
		sorted := append([]string(nil), placeholders...)
		sort.Strings(sorted)
		namespaces := map[string]string{}
		for i, p := range sorted {
			namespaces[p] = names[i]
		}
		s := newSide(t, name, d, filepath.Join(root, name), helm, realHelm, tools, namespaces)
		s.env = append(s.env, extra...)
		if err := os.CopyFS(s.dir, os.DirFS(filepath.Join(prereq.ModuleRoot(), "test", "e2e", "dropin", "testdata", tree))); err != nil {
			t.Fatalf("copy testdata/%s: %v", tree, err)
		}
		return s
	}
	ours := bin
	if *helmBothSides {
		ours = realHelm
	}
	// "helm" and "ours": names of one length keep both sides' paths alike.
	return &pair{helm: mk("helm", realHelm), ours: mk("ours", ours), programs: programs}
}

func (p *pair) sides() []*side { return []*side{p.helm, p.ours} }

// run runs the steps in order, each as a subtest reporting its own differences.
func (p *pair) run(t *testing.T, steps []step) {
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) { p.step(t, st) })
	}
}

func (p *pair) step(t *testing.T, st step) {
	program, ok := p.programs[st.program]
	if !ok {
		t.Fatalf("step %s: no program %q", st.name, st.program)
	}
	real := st.mode == backToHelm || st.mode == backToHelmSucceeds
	var snaps [2]snapshot
	var wg sync.WaitGroup
	for i, s := range p.sides() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := make([]string, len(st.args))
			for j, a := range st.args {
				args[j] = os.Expand(a, func(k string) string { return s.namespaces[k] })
			}
			r := s.run(t.Context(), real, st.dir, st.env, program, args...)
			r.stdout, r.stderr = s.mask(r.stdout), s.mask(r.stderr)
			var printed string
			if s.helmLog != "" {
				printed = s.mask(s.takeHelmLog(t))
				r.stdout, r.stderr = withoutLines(r.stdout, printed), withoutLines(r.stderr, printed)
			}
			if st.mask != nil {
				r.stdout, r.stderr, printed = st.mask(r.stdout), st.mask(r.stderr), st.mask(printed)
			}
			snaps[i] = snapshot{
				result: r,
				helm:   printed,
				files:  s.files(t),
			}
			if !st.offline {
				snaps[i].objects, snaps[i].records = s.objects(t.Context(), t), s.records(t.Context(), t)
			}
		}()
	}
	wg.Wait()
	h, o := snaps[0], snaps[1]
	cmdline := st.program + " " + strings.Join(st.args, " ")
	expect := st.mode
	if expect == helmFails && *helmBothSides {
		expect, st.check = same, nil
	}
	switch expect {
	case same, backToHelm:
		if h.result.code != o.result.code {
			t.Errorf("%s: exit status: helm %d, ours %d", cmdline, h.result.code, o.result.code)
		}
		sameText(t, "stdout", h.result.stdout, o.result.stdout)
		sameText(t, "stderr", h.result.stderr, o.result.stderr)
		sameText(t, "helm's output (the recorder's copy)", h.helm, o.helm)
		sameText(t, "objects", h.objects, o.objects)
		sameText(t, "records read back by Helm", h.records, o.records)
		sameText(t, "work tree", h.files, o.files)
	case helmFails:
		if h.result.code == 0 {
			t.Errorf("%s: Helm without helm-diff succeeded, want a failure:\n%s%s", cmdline, h.result.stdout, h.result.stderr)
		}
		if o.result.code != 0 {
			t.Errorf("%s: exit status %d with us, want 0:\n%s%s", cmdline, o.result.code, o.result.stdout, o.result.stderr)
		}
	case backToHelmSucceeds:
		for i, s := range p.sides() {
			if r := snaps[i].result; r.code != 0 {
				t.Errorf("%s by Helm after %s: exit status %d:\n%s%s", cmdline, s.name, r.code, r.stdout, r.stderr)
			}
		}
	}
	if st.check != nil {
		st.check(t, o.objects)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("%s\nhelm: exit %d\n%s%s%s\nours: exit %d\n%s%s%s", cmdline, h.result.code, h.result.stdout, h.result.stderr, h.helm,
			o.result.code, o.result.stdout, o.result.stderr, o.helm)
	}
}

// sameText reports a difference as a unified diff, tabs shown.
func sameText(t *testing.T, aspect, helm, ours string) {
	t.Helper()
	if helm == ours {
		return
	}
	visible := func(s string) []string { return difflib.SplitLines(strings.ReplaceAll(s, "\t", "→")) }
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: visible(helm), B: visible(ours), FromFile: "helm", ToFile: "ours", Context: 2,
	})
	if err != nil {
		diff = fmt.Sprintf("(no diff: %v)", err)
	}
	t.Errorf("%s differs (tabs shown as →):\n%s", aspect, diff)
}
