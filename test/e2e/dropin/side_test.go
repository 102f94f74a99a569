//go:build e2e

package dropin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// side is one run of a scenario: a work tree and Helm homes of its own, its
// namespaces, and a PATH whose `helm` is either the real Helm or kubectl-chart.
type side struct {
	name     string // "helm" or "ours", as the reports name it
	dialect  dialect
	dir      string // the work tree the tools run in
	realHelm string // the Helm peer, which reads the records back
	// pathOwn puts the side's own `helm` first on PATH, pathHelm the real Helm's.
	pathOwn, pathHelm string
	env               []string
	namespaces        map[string]string // placeholder -> namespace name
	// helmLog, when set, is where the recorder keeps what helm printed.
	helmLog string
	masks   *strings.Replacer
}

// result is what a tool answered.
type result struct {
	code           int
	stdout, stderr string
}

// newSide lays out a side under root (root's base names of equal length on
// both sides keep paths, and so padded tables, alike): helm is what the side
// runs as `helm`, tools the other programs put beside it on PATH.
func newSide(t *testing.T, name string, d dialect, root, helm, realHelm string, tools map[string]string, namespaces map[string]string) *side {
	t.Helper()
	s := &side{
		name: name, dialect: d, dir: filepath.Join(root, "work"), realHelm: realHelm,
		pathOwn: filepath.Join(root, "bin"), pathHelm: filepath.Join(root, "bin-helm"),
		namespaces: namespaces,
	}
	for _, dir := range []string{s.dir, s.pathOwn, s.pathHelm} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(dir, as, target string) {
		if err := os.Symlink(target, filepath.Join(dir, as)); err != nil {
			t.Fatal(err)
		}
	}
	link(s.pathOwn, "helm", helm)
	link(s.pathHelm, "helm", realHelm)
	for as, target := range tools {
		link(s.pathOwn, as, target)
		link(s.pathHelm, as, target)
	}
	home := filepath.Join(root, "home")
	s.env = []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"HELM_CONFIG_HOME=" + filepath.Join(home, "helm-config"),
		"HELM_CACHE_HOME=" + filepath.Join(home, "helm-cache"),
		"HELM_DATA_HOME=" + filepath.Join(home, "helm-data"),
		"KUBECONFIG=" + env.Kubeconfig(),
		"KUBECTL_CHART_COMPAT=" + d.name,
		"TZ=UTC",
		"LANG=C.UTF-8",
	}
	for placeholder, ns := range namespaces {
		s.env = append(s.env, placeholder+"="+ns)
	}
	// Longest first: a replacer takes the first of its strings that matches.
	pairs := map[string]string{root: "<root>"}
	for placeholder, ns := range namespaces {
		pairs[ns] = "<" + strings.ToLower(strings.ReplaceAll(placeholder, "_", "-")) + ">"
	}
	olds := make([]string, 0, len(pairs))
	for old := range pairs {
		olds = append(olds, old)
	}
	sort.Slice(olds, func(i, j int) bool { return len(olds[i]) > len(olds[j]) })
	var args []string
	for _, old := range olds {
		args = append(args, old, pairs[old])
	}
	s.masks = strings.NewReplacer(args...)
	return s
}

// run runs program in dir (relative to the work tree) with extra environment,
// with the side's own `helm` first on PATH, or the real Helm's when realHelm.
func (s *side) run(ctx context.Context, realHelm bool, dir string, extra []string, program string, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	path := s.pathOwn
	if realHelm {
		path = s.pathHelm
	}
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = filepath.Join(s.dir, dir)
	cmd.Env = append(append(append([]string{}, s.env...), extra...), "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		code = -1
		errOut.WriteString("\n(could not run: " + err.Error() + ")")
	}
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// mask hides what differs between two runs of the same thing: the sides'
// directories and namespace names, then times, durations, uids and names
// generated at random.
func (s *side) mask(text string) string {
	return maskVolatile(s.masks.Replace(text))
}
