package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// SequenceRunner runs release-command sequences through Helm and through
// kubectl-chart installed as helm, on one cluster: each program in
// namespaces, a directory and Helm homes of its own, step by step side by
// side, and after every step reads what each left in the cluster.
type SequenceRunner struct {
	// Helm is the Helm binary of the dialect; Ours kubectl-chart's, run
	// through a link named helm.
	Helm, Ours string
	Dialect    generator.Dialect
	// Kubeconfig is the cluster's, for both programs; Client reads it.
	Kubeconfig string
	Client     dynamic.Interface
	// Prefix starts every namespace name (with the sequence's number and the
	// side), so that runs on a shared cluster keep apart.
	Prefix string
	// Timeout bounds one command; a command past it is a hang.
	Timeout time.Duration
}

// StepResult is what both programs did on one step, masked.
type StepResult struct {
	Args       []string
	Helm, Ours Outcome
	// HelmState and OursState are the release records and objects after the step.
	HelmState, OursState State
}

// State is what a side has in the cluster: its release records (decoded)
// and its objects, as masked text.
type State struct {
	Records, Objects string
}

// SequenceResult is a sequence's steps and the first difference among them.
type SequenceResult struct {
	Steps []StepResult
	// Step is the index of the first step that differs (-1 when none), and
	// Aspects what differs there: stdout, stderr, exit, crash, hang, records,
	// objects.
	Step    int
	Aspects []string
}

// Differs reports whether a step differs.
func (r SequenceResult) Differs() bool { return r.Step >= 0 }

// side is one program's run of a sequence.
type side struct {
	bin          string
	root, work   string
	ns, ns2      string
	env          []string
	replacements *strings.Replacer
}

// Run runs the sequence numbered id: both programs step by step, each step
// of both at once, and stops after the first step that differs.
func (r SequenceRunner) Run(ctx context.Context, s generator.Sequence, id int) (SequenceResult, error) {
	res := SequenceResult{Step: -1}
	sides := make([]*side, 2)
	for i, name := range []string{"h", "o"} {
		target := r.Ours
		if name == "h" {
			target = r.Helm
		}
		sd, err := r.newSide(ctx, s, id, name, target)
		if sd != nil {
			defer r.cleanup(sd)
		}
		if err != nil {
			return res, err
		}
		sides[i] = sd
	}
	for i, st := range s.Steps {
		var outs [2]Outcome
		var states [2]State
		var errs [2]error
		var wg sync.WaitGroup
		for k, sd := range sides {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[k], errs[k] = r.step(ctx, sd, st)
				if errs[k] == nil {
					states[k], errs[k] = r.state(ctx, sd)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return res, err
			}
		}
		sr := StepResult{Args: st.Argv(), Helm: outs[0], Ours: outs[1], HelmState: states[0], OursState: states[1]}
		res.Steps = append(res.Steps, sr)
		if aspects := sr.differs(); len(aspects) > 0 {
			res.Step, res.Aspects = i, aspects
			return res, nil
		}
	}
	return res, nil
}

// newSide lays out one program's directory (root names of one length on both
// sides keep paths, and so padded tables, alike) and creates its namespace.
func (r SequenceRunner) newSide(ctx context.Context, s generator.Sequence, id int, name, target string) (*side, error) {
	ns := fmt.Sprintf("%s-%d-%s", r.Prefix, id, name)
	sd := &side{bin: filepath.Join(os.TempDir(), "difftest-"+ns, "bin", "helm"), root: filepath.Join(os.TempDir(), "difftest-"+ns), ns: ns, ns2: ns + "x"}
	sd.work = filepath.Join(sd.root, "work")
	if err := os.RemoveAll(sd.root); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(sd.bin), 0o755); err != nil {
		return nil, err
	}
	if err := os.Symlink(target, sd.bin); err != nil {
		return nil, err
	}
	if err := s.Write(sd.work); err != nil {
		return sd, err
	}
	home := filepath.Join(sd.root, "home")
	sd.env = append(Env(home, r.Dialect),
		"KUBECONFIG="+r.Kubeconfig,
		"HELM_NAMESPACE="+ns,
		"HELM_CONFIG_HOME="+filepath.Join(home, "helm-config"),
		"HELM_CACHE_HOME="+filepath.Join(home, "helm-cache"),
		"HELM_DATA_HOME="+filepath.Join(home, "helm-data"),
		"NO_COLOR=1",
	)
	// Longest first: the second namespace's name starts with the first's.
	sd.replacements = strings.NewReplacer(sd.root, "<root>", sd.ns2, "<ns2>", sd.ns, "<ns>")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns, "labels": map[string]any{"kubectl-chart.dev/difftest": "true"}},
	}}
	if _, err := r.Client.Resource(namespaces).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return sd, fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return sd, nil
}

var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// cleanup deletes the side's namespaces and directory, without waiting for
// the namespaces to go.
func (r SequenceRunner) cleanup(sd *side) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, ns := range []string{sd.ns, sd.ns2} {
		err := r.Client.Resource(namespaces).Delete(ctx, ns, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			fmt.Fprintf(os.Stderr, "difftest: delete namespace %s: %v\n", ns, err)
		}
	}
	_ = os.RemoveAll(sd.root)
}

// step runs one command line on a side, with its namespace words put in.
func (r SequenceRunner) step(ctx context.Context, sd *side, st generator.Step) (Outcome, error) {
	args := st.Argv()
	for i, a := range args {
		args[i] = strings.NewReplacer(generator.NS2, sd.ns2, generator.NS, sd.ns).Replace(a)
	}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 3 * time.Minute
	}
	out, err := Exec(ctx, sd.bin, args, sd.work, sd.env, timeout)
	if err != nil {
		return out, fmt.Errorf("run %s: %w", sd.bin, err)
	}
	out.Stdout = maskVolatile(sd.replacements.Replace(out.Stdout))
	if r.Dialect == generator.Helm3 {
		out.Stdout = dropManagedFields(out.Stdout)
	}
	out.Stderr = maskVolatile(sd.replacements.Replace(out.Stderr))
	out.ErrLine = maskVolatile(sd.replacements.Replace(out.ErrLine))
	return out, nil
}

// differs lists what differs in a step.
func (sr StepResult) differs() []string {
	h, o := sr.Helm, sr.Ours
	var aspects []string
	add := func(differ bool, aspect string) {
		if differ {
			aspects = append(aspects, aspect)
		}
	}
	add(o.Crash != "", "crash")
	add(o.Hung && !h.Hung, "hang")
	add(h.Stdout != o.Stdout, "stdout")
	add(h.Stderr != o.Stderr, "stderr")
	add(h.Exit != o.Exit, "exit")
	add(sr.HelmState.Records != sr.OursState.Records, "records")
	add(sr.HelmState.Objects != sr.OursState.Objects, "objects")
	return aspects
}

// Signature identifies a sequence's difference for a shrinker to keep: the
// command and aspects of the first step that differs and, for each aspect,
// the first pair of lines where the two programs part. Step numbers are left
// out: dropping a step before it keeps the difference.
func (r SequenceResult) Signature() string {
	if !r.Differs() {
		return ""
	}
	sr := r.Steps[r.Step]
	return fmt.Sprintf("%s|%q", sr.Args[0], r.Aspects) + PartingSignature(r.Aspects, sr.texts)
}

// texts are both programs' text of an aspect.
func (sr StepResult) texts(aspect string) (string, string) {
	switch aspect {
	case "stdout":
		return sr.Helm.Stdout, sr.Ours.Stdout
	case "stderr":
		return sr.Helm.Stderr, sr.Ours.Stderr
	case "exit":
		return fmt.Sprint(sr.Helm.Exit), fmt.Sprint(sr.Ours.Exit)
	case "records":
		return sr.HelmState.Records, sr.OursState.Records
	case "objects":
		return sr.HelmState.Objects, sr.OursState.Objects
	default:
		return sr.Helm.Crash, sr.Ours.Crash
	}
}

// Describe is a readable account of a sequence's difference.
func (r SequenceResult) Describe() string {
	if !r.Differs() {
		return "no difference\n"
	}
	sr := r.Steps[r.Step]
	var b strings.Builder
	fmt.Fprintf(&b, "step %d (helm %s) differs in: %s\n", r.Step+1, strings.Join(quoteWords(sr.Args), " "), strings.Join(r.Aspects, ", "))
	fmt.Fprintf(&b, "helm: exit %d\nours: exit %d\n", sr.Helm.Exit, sr.Ours.Exit)
	for _, a := range r.Aspects {
		if a == "exit" {
			continue
		}
		h, o := sr.texts(a)
		fmt.Fprintf(&b, "%s (- helm, + ours):\n%s", a, textDiff(h, o, 40))
	}
	return b.String()
}

func quoteWords(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		if w == "" || strings.ContainsAny(w, " '\"") {
			w = fmt.Sprintf("%q", w)
		}
		out[i] = w
	}
	return out
}

// textDiff lists the lines only one side has (- helm, + ours), in order, at
// most limit of them: a longest-common-subsequence diff of two texts.
func textDiff(helm, ours string, limit int) string {
	h, o := strings.Split(helm, "\n"), strings.Split(ours, "\n")
	if len(h)*len(o) > 16<<20 {
		return lineDiff(helm, ours)
	}
	// lcs[i][j] is the longest common subsequence of h[i:] and o[j:].
	lcs := make([][]int, len(h)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(o)+1)
	}
	for i := len(h) - 1; i >= 0; i-- {
		for j := len(o) - 1; j >= 0; j-- {
			if h[i] == o[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	n := 0
	emit := func(sign, line string) {
		if n < limit {
			fmt.Fprintf(&b, "  %s %s\n", sign, line)
		}
		n++
	}
	i, j := 0, 0
	for i < len(h) || j < len(o) {
		switch {
		case i < len(h) && j < len(o) && h[i] == o[j]:
			i, j = i+1, j+1
		case j < len(o) && (i == len(h) || lcs[i][j+1] >= lcs[i+1][j]):
			emit("+", o[j])
			j++
		default:
			emit("-", h[i])
			i++
		}
	}
	if n > limit {
		fmt.Fprintf(&b, "  ... %d more lines differ\n", n-limit)
	}
	return b.String()
}
