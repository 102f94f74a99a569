package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// Runner runs cases through Helm and kubectl-chart.
type Runner struct {
	// Helm is the Helm binary of the dialect (v3.22.0 for helm3, v4.3.1 for helm4).
	Helm string
	// Ours is kubectl-chart's binary.
	Ours    string
	Dialect generator.Dialect
	// Timeout bounds one program run; a run that exceeds it is a hang.
	Timeout time.Duration
	// HelmMemory bounds Helm's address space (bytes; 0 is DefaultHelmMemory), on
	// Linux: a case that makes Helm allocate without end (until 2^63) ends in
	// Helm's out-of-memory error at once instead of in the OOM killer after the
	// machine's memory is gone.
	HelmMemory int64
}

// DefaultHelmMemory is Helm's address space unless Runner.HelmMemory says
// otherwise: a tenth of it renders any generated case.
const DefaultHelmMemory = 2 << 30

// Result is one case's outcomes, after the rules, and how they differ.
type Result struct {
	Helm, Ours Outcome
	// Aspects that differ: "stdout", "exit", "error", "crash", "hang". Empty when equal.
	Aspects []string
}

// Differs reports whether the outcomes differ.
func (r Result) Differs() bool { return len(r.Aspects) > 0 }

// Run runs the case through both programs, each in a fresh copy of its files at the same path.
func (r Runner) Run(ctx context.Context, c generator.Case) (Result, error) {
	helm, err := r.RunHelm(ctx, c)
	if err != nil {
		return Result{}, err
	}
	ours, err := r.RunOurs(ctx, c)
	if err != nil {
		return Result{}, err
	}
	res := Compare(helm, ours)
	for i := 0; i < helmReruns && res.Differs() && rerunHelm(res); i++ {
		again, err := r.RunHelm(ctx, c)
		if err != nil {
			return Result{}, err
		}
		if next := Compare(again, ours); !next.Differs() {
			return next, nil
		}
	}
	return res, nil
}

// RunHelm runs the case through Helm.
func (r Runner) RunHelm(ctx context.Context, c generator.Case) (Outcome, error) {
	limit := r.HelmMemory
	if limit == 0 {
		limit = DefaultHelmMemory
	}
	bin, args := WithMemoryLimit(limit, r.Helm, c.Argv())
	out, err := r.patiently(ctx, c, bin, args)
	if err != nil {
		return out, fmt.Errorf("run helm: %w", err)
	}
	return out, nil
}

// RunOurs runs the case through kubectl-chart.
func (r Runner) RunOurs(ctx context.Context, c generator.Case) (Outcome, error) {
	out, err := r.patiently(ctx, c, r.Ours, r.oursArgs(c))
	if err != nil {
		return out, fmt.Errorf("run kubectl-chart: %w", err)
	}
	return out, nil
}

// patiently runs again, with four times the time, a run that did not end in time: on a
// machine shared with other work a run can stall without hanging.
func (r Runner) patiently(ctx context.Context, c generator.Case, bin string, args []string) (Outcome, error) {
	out, err := r.inTemp(ctx, c, bin, args, r.timeout())
	if err != nil || !out.Hung || ctx.Err() != nil {
		return out, err
	}
	return r.inTemp(ctx, c, bin, args, 4*r.timeout())
}

// inTemp runs bin on the case in a directory of its own.
func (r Runner) inTemp(ctx context.Context, c generator.Case, bin string, args []string, timeout time.Duration) (Outcome, error) {
	tmp, err := os.MkdirTemp("", "difftest-")
	if err != nil {
		return Outcome{}, err
	}
	defer os.RemoveAll(tmp)
	return r.one(ctx, tmp, c, bin, args, timeout)
}

// Compare applies the rules and lists what differs.
func Compare(helm, ours Outcome) Result {
	for _, rule := range rules() {
		rule.Apply(&helm, &ours)
	}
	res := Result{Helm: helm, Ours: ours}
	if ours.Crash != "" {
		res.Aspects = append(res.Aspects, "crash")
	}
	if ours.Hung && !helm.Hung {
		res.Aspects = append(res.Aspects, "hang")
	}
	if helm.Stdout != ours.Stdout {
		res.Aspects = append(res.Aspects, "stdout")
	}
	if helm.Exit != ours.Exit {
		res.Aspects = append(res.Aspects, "exit")
	}
	if helm.ErrLine != ours.ErrLine {
		res.Aspects = append(res.Aspects, "error")
	}
	return res
}

// oursArgs is the case's command line in kubectl-chart's dialect: --compat where the command takes it.
func (r Runner) oursArgs(c generator.Case) []string {
	args := c.Argv()
	if len(args) > 0 && (args[0] == "template" || args[0] == "lint") && r.Dialect == generator.Helm3 {
		args = append(args, "--compat", "helm3")
	}
	return args
}

func (r Runner) one(ctx context.Context, tmp string, c generator.Case, bin string, args []string, timeout time.Duration) (Outcome, error) {
	work := filepath.Join(tmp, "work")
	if err := os.RemoveAll(work); err != nil {
		return Outcome{}, err
	}
	home := filepath.Join(tmp, "home")
	if err := os.RemoveAll(home); err != nil {
		return Outcome{}, err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return Outcome{}, err
	}
	if err := c.Write(work); err != nil {
		return Outcome{}, err
	}
	if args == nil {
		args = c.Argv()
	}
	env := Env(home, r.Dialect)
	if hasPlugins(c) {
		env = append(env, "HELM_PLUGINS="+filepath.Join(work, generator.PluginsDir))
	}
	out, err := Exec(ctx, bin, args, work, env, timeout)
	// Each run has a directory of its own; where an output names it, it reads $WORK.
	out.Stdout = strings.ReplaceAll(out.Stdout, work, "$WORK")
	out.ErrLine = strings.ReplaceAll(out.ErrLine, work, "$WORK")
	return out, err
}

// hasPlugins reports whether the case brings plugins of its own (a Helm 4
// post-renderer).
func hasPlugins(c generator.Case) bool {
	for _, f := range c.Files {
		if strings.HasPrefix(f.Path, generator.PluginsDir+"/") {
			return true
		}
	}
	return false
}

func (r Runner) timeout() time.Duration {
	if r.Timeout == 0 {
		return 20 * time.Second
	}
	return r.Timeout
}

// Env is the environment both programs run in: a home of their own, no cluster, UTC.
func Env(home string, dialect generator.Dialect) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"KUBECONFIG=" + filepath.Join(home, "no-kubeconfig"),
		"TZ=UTC",
		"LANG=C.UTF-8",
		"KUBECTL_CHART_COMPAT=" + string(dialect),
	}
}

// Exec runs bin with args in dir and reports its outcome; a run past timeout is a hang.
func Exec(ctx context.Context, bin string, args []string, dir string, env []string, timeout time.Duration) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := Outcome{Stdout: stdout.String(), Stderr: stderr.String(), ErrLine: firstErrorLine(stderr.Bytes()), Crash: crashOf(stderr.Bytes()), OutOfMemory: outOfMemory(stderr.Bytes())}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		out.Hung = true
		out.Exit = -1
	case errors.As(err, &exitErr):
		out.Exit = exitErr.ExitCode()
	case err != nil:
		return Outcome{}, err
	}
	return out, nil
}

// position is a template position in an error line (file:LINE:COL), which
// moves as a shrinker drops lines above it.
var position = regexp.MustCompile(`:[0-9]+(:[0-9]+)?\b`)

// Signature identifies a difference for a shrinker to keep: the aspects
// that differ, each program's whole first error line, and for stdout the
// first pair of lines where the outputs part, with template positions
// blanked. A candidate with another signature shows another difference.
func (r Result) Signature() string {
	norm := func(s string) string { return position.ReplaceAllString(s, ":N") }
	sig := fmt.Sprintf("%q|%q|%q", r.Aspects, norm(r.Helm.ErrLine), norm(r.Ours.ErrLine))
	if r.Helm.Stdout != r.Ours.Stdout {
		h, o := PartingLines(r.Helm.Stdout, r.Ours.Stdout)
		sig += fmt.Sprintf("|%q|%q", norm(h), norm(o))
	}
	return sig
}

// PartingSignature is, for each aspect, the pair of first lines where the
// two programs' texts of it part.
func PartingSignature(aspects []string, texts func(aspect string) (string, string)) string {
	sig := ""
	for _, a := range aspects {
		hl, ol := PartingLines(texts(a))
		sig += fmt.Sprintf("|%q|%q", hl, ol)
	}
	return sig
}

// PartingLines are the first lines where two outputs differ ("" past an end).
func PartingLines(helm, ours string) (string, string) {
	h, o := strings.Split(helm, "\n"), strings.Split(ours, "\n")
	i := 0
	for i < len(h) && i < len(o) && h[i] == o[i] {
		i++
	}
	at := func(l []string) string {
		if i < len(l) {
			return l[i]
		}
		return ""
	}
	return at(h), at(o)
}

// WithMemoryLimit is the command line that runs bin with args under an
// address-space limit of limit bytes (RLIMIT_AS, through the shell's ulimit,
// which exec keeps): on Linux only, elsewhere bin and args as they are.
func WithMemoryLimit(limit int64, bin string, args []string) (string, []string) {
	if runtime.GOOS != "linux" || limit <= 0 {
		return bin, args
	}
	script := fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, limit/1024)
	return "/bin/sh", append([]string{"-c", script, bin}, args...)
}

// Describe is a readable account of a difference.
func (r Result) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "differs in: %s\n", strings.Join(r.Aspects, ", "))
	fmt.Fprintf(&b, "helm: exit %d, error %q\n", r.Helm.Exit, r.Helm.ErrLine)
	fmt.Fprintf(&b, "ours: exit %d, error %q\n", r.Ours.Exit, r.Ours.ErrLine)
	if r.Ours.Crash != "" {
		fmt.Fprintf(&b, "ours crashed:\n%s\n", r.Ours.Crash)
	}
	if r.Helm.Stdout != r.Ours.Stdout {
		b.WriteString(lineDiff(r.Helm.Stdout, r.Ours.Stdout))
	}
	return b.String()
}

// lineDiff shows the first lines where the two outputs part.
func lineDiff(helm, ours string) string {
	h, o := strings.Split(helm, "\n"), strings.Split(ours, "\n")
	i := 0
	for i < len(h) && i < len(o) && h[i] == o[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "stdout parts at line %d:\n", i+1)
	for j := i; j < i+4 && j < len(h); j++ {
		fmt.Fprintf(&b, "  helm: %q\n", h[j])
	}
	for j := i; j < i+4 && j < len(o); j++ {
		fmt.Fprintf(&b, "  ours: %q\n", o[j])
	}
	return b.String()
}
