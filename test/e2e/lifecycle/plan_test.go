//go:build e2e

package lifecycle

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// planChartFiles is a small chart: ConfigMap x with a value from values,
// ConfigMap legacy that values can drop, and Secret s.
var planChartFiles = map[string]string{
	"Chart.yaml":  "apiVersion: v2\nname: planned\nversion: 0.1.0\n",
	"values.yaml": "key: old\nlegacy: true\npassword: s3cret\n",
	"templates/x.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  key: {{ .Values.key | quote }}
  fixed: "1"
`,
	"templates/legacy.yaml": `{{- if .Values.legacy }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: legacy
data:
  static: "yes"
{{- end }}
`,
	"templates/s.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: s
type: Opaque
data:
  password: {{ .Values.password | b64enc | quote }}
  user: {{ "admin" | b64enc | quote }}
`,
}

// planChart writes the chart, with extra files added, into a new directory.
func planChart(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, files := range []map[string]string{planChartFiles, extra} {
		for name, body := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// liveKey is data.key of ConfigMap x.
func liveKey(t *testing.T, ns string) string {
	t.Helper()
	cm := get(t, configMaps, ns, "x")
	if cm == nil {
		return "<no ConfigMap x>"
	}
	v, _, _ := unstructured.NestedString(cm.Object, "data", "key")
	return v
}

// livePassword is data.password of Secret s, base64-decoded.
func livePassword(t *testing.T, ns string) string {
	t.Helper()
	s := get(t, secrets, ns, "s")
	if s == nil {
		return "<no Secret s>"
	}
	v, _, _ := unstructured.NestedString(s.Object, "data", "password")
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		t.Fatalf("Secret s data.password %q: %v", v, err)
	}
	return string(b)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// expectDiff runs a diff command with --detailed-exitcode and checks its exit
// status and that stdout has every line of want and none of unwanted.
func expectDiff(t *testing.T, code int, want, unwanted []string, args ...string) result {
	t.Helper()
	r := run(t, nil, append(args, "--detailed-exitcode")...)
	if r.code != code {
		t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, code, r.out, r.err)
		return r
	}
	lines := strings.Split(r.out, "\n")
	for _, w := range want {
		found := false
		for _, l := range lines {
			if l == w {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: stdout lacks the line %q:\n%s", strings.Join(args, " "), w, r.out)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(r.out, u) {
			t.Errorf("%s: stdout has %q:\n%s", strings.Join(args, " "), u, r.out)
		}
	}
	return r
}

// headers lists the "Kind ns/name (action)" lines of a diff.
func headers(out string) []string {
	var hs []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, ")") && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "@@") {
			hs = append(hs, l)
		}
	}
	return hs
}

// diff upgrade, uninstall and rollback show per object what would change, and
// change nothing.
func TestDiffShowsChanges(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := planChart(t, nil)
	mustRun(t, "install", "r", chart, "-n", ns)
	cmX, cmLegacy, sec := "ConfigMap "+ns+"/x", "ConfigMap "+ns+"/legacy", "Secret "+ns+"/s"

	// Nothing changes: nothing printed, exit 0.
	if r := expectDiff(t, 0, nil, nil, "diff", "upgrade", "r", chart, "-n", ns); r.out != "" {
		t.Errorf("diff of an unchanged release printed:\n%s", r.out)
	}
	// A value of x.
	r := expectDiff(t, 2, []string{cmX + " (update)", "--- live/v1.ConfigMap." + ns + ".x", "+++ planned/v1.ConfigMap." + ns + ".x", "-  key: old", "+  key: new"},
		[]string{cmLegacy, sec}, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=new")
	if hs := headers(r.out); len(hs) != 1 {
		t.Errorf("diff of one changed value shows %d objects: %q", len(hs), hs)
	}
	// A template added.
	added := planChart(t, map[string]string{"templates/z.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\ndata:\n  added: \"true\"\n"})
	expectDiff(t, 2, []string{"ConfigMap " + ns + "/z (create)", "+  added: \"true\""}, []string{cmX, cmLegacy, sec}, "diff", "upgrade", "r", added, "-n", ns)
	// A template dropped by values.
	expectDiff(t, 2, []string{cmLegacy + " (delete)", "-  static: \"yes\""}, []string{cmX, sec}, "diff", "upgrade", "r", chart, "-n", ns, "--set", "legacy=false")
	// A Secret value: masked, unless --show-secrets.
	hidden := []string{"s3cret", "t0psecret", b64("s3cret"), b64("t0psecret")}
	expectDiff(t, 2, []string{sec + " (update)", "-  password: '*** (before)'", "+  password: '*** (after)'", "   user: '***'"},
		append(hidden, b64("admin")), "diff", "upgrade", "r", chart, "-n", ns, "--set", "password=t0psecret")
	expectDiff(t, 2, []string{sec + " (update)", "-  password: " + b64("s3cret"), "+  password: " + b64("t0psecret")},
		nil, "diff", "upgrade", "r", chart, "-n", ns, "--set", "password=t0psecret", "--show-secrets")
	// -o json is the plan itself, Secret values masked.
	r = mustRun(t, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=new,password=t0psecret", "-o", "json")
	var p struct {
		Operation string `json:"operation"`
		Release   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			Base      int    `json:"base"`
		} `json:"release"`
	}
	if err := json.Unmarshal([]byte(r.out), &p); err != nil {
		t.Errorf("diff -o json: %v\n%s", err, r.out)
	}
	if p.Operation != "upgrade" || p.Release.Name != "r" || p.Release.Namespace != ns || p.Release.Base != 1 {
		t.Errorf("diff -o json: operation %q, release %+v", p.Operation, p.Release)
	}
	for _, h := range hidden {
		if strings.Contains(r.out, h) {
			t.Errorf("diff -o json shows the secret value %q", h)
		}
	}

	// diff uninstall: every object deleted.
	r = expectDiff(t, 2, []string{cmX + " (delete)", cmLegacy + " (delete)", sec + " (delete)"}, hidden, "diff", "uninstall", "r", "-n", ns)
	if hs := headers(r.out); len(hs) != 3 {
		t.Errorf("diff uninstall shows %d objects, want 3: %q", len(hs), hs)
	}

	// None of it changed anything.
	if got := statuses(t, ns, "r"); got != "1:deployed" {
		t.Errorf("history after the diffs = %s", got)
	}
	if k, pw := liveKey(t, ns), livePassword(t, ns); k != "old" || pw != "s3cret" {
		t.Errorf("live values after the diffs: key %q, password %q", k, pw)
	}
	if exists(t, configMaps, ns, "z") || !exists(t, configMaps, ns, "legacy") {
		t.Error("a diff created or deleted an object")
	}

	// diff rollback after an upgrade shows the change back.
	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "key=new")
	expectDiff(t, 0, nil, nil, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=new")
	r = expectDiff(t, 2, []string{cmX + " (update)", "-  key: new", "+  key: old"}, []string{cmLegacy, sec}, "diff", "rollback", "r", "-n", ns)
	if hs := headers(r.out); len(hs) != 1 {
		t.Errorf("diff rollback shows %d objects: %q", len(hs), hs)
	}
	expectDiff(t, 2, []string{cmX + " (update)", "-  key: new", "+  key: old"}, nil, "diff", "rollback", "r", "1", "-n", ns)
	if got := statuses(t, ns, "r"); got != "1:superseded 2:deployed" {
		t.Errorf("history after diff rollback = %s", got)
	}
	if k := liveKey(t, ns); k != "new" {
		t.Errorf("diff rollback changed x: key %q", k)
	}
}

// helmPeerVersion returns the Helm binary of that version that
// hack/helm-peer.sh builds (once, cached), as helmPeer does for v3.22.0.
func helmPeerVersion(t *testing.T, version string) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, version)
}

// diff upgrade of a release Helm installed: nothing when nothing changes (the
// objects Helm wrote are what our apply would leave), the change otherwise.
func TestDiffHelmInstalled(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"v3.22.0", "v4.3.1"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			helm := helmPeerVersion(t, version)
			ns := env.Namespace(t)
			chart := planChart(t, nil)
			runHelm(t, helm, "install", "r", chart, "-n", ns)

			if r := expectDiff(t, 0, nil, nil, "diff", "upgrade", "r", chart, "-n", ns); r.out != "" {
				t.Errorf("diff of a release Helm %s installed, unchanged, printed:\n%s", version, r.out)
			}
			r := expectDiff(t, 2, []string{"ConfigMap " + ns + "/x (update)", "-  key: old", "+  key: new"},
				[]string{"ConfigMap " + ns + "/legacy", "Secret " + ns + "/s"}, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=new")
			if hs := headers(r.out); len(hs) != 1 {
				t.Errorf("diff of one changed value shows %d objects: %q", len(hs), hs)
			}
			expectDiff(t, 2, []string{"ConfigMap " + ns + "/x (delete)", "ConfigMap " + ns + "/legacy (delete)", "Secret " + ns + "/s (delete)"},
				nil, "diff", "uninstall", "r", "-n", ns)
			if got := statuses(t, ns, "r"); got != "1:deployed" {
				t.Errorf("history after the diffs = %s", got)
			}
			if k := liveKey(t, ns); k != "old" {
				t.Errorf("a diff changed x: key %q", k)
			}
		})
	}
}

// A saved plan is executed exactly, and refused, changing nothing, when what
// it was made from changed, when it is damaged, or when it does not fit.
func TestSavedPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t)
	chart := planChart(t, nil)
	dir := t.TempDir()
	mustRun(t, "install", "r", chart, "-n", ns)
	cmX := "ConfigMap " + ns + "/x"

	// Saved, then applied exactly.
	first := filepath.Join(dir, "first.plan")
	r := mustRun(t, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=new", "--save-plan", first)
	if !strings.Contains(r.out, "+  key: new") || !strings.Contains(r.err, "plan saved to "+first) {
		t.Errorf("diff --save-plan:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
	if got := statuses(t, ns, "r"); got != "1:deployed" {
		t.Errorf("history after --save-plan = %s", got)
	}
	r = mustRun(t, "upgrade", "r", "--use-plan", first, "-n", ns)
	if !strings.Contains(r.out, `Release "r" has been upgraded`) {
		t.Errorf("upgrade --use-plan output:\n%s", r.out)
	}
	if got := statuses(t, ns, "r"); got != "1:superseded 2:deployed" {
		t.Errorf("history after --use-plan = %s", got)
	}
	if k, pw := liveKey(t, ns), livePassword(t, ns); k != "new" || pw != "s3cret" || !exists(t, configMaps, ns, "legacy") {
		t.Errorf("after --use-plan: key %q, password %q, legacy exists %v", k, pw, exists(t, configMaps, ns, "legacy"))
	}
	// The recorded revision is what was planned.
	if got := mustRun(t, "get", "values", "r", "-n", ns, "-o", "json").out; strings.TrimSpace(got) != `{"key":"new"}` {
		t.Errorf("values of revision 2 = %s", got)
	}
	// A plan is used once: its base revision is gone.
	r = run(t, nil, "upgrade", "r", "--use-plan", first, "-n", ns)
	if r.code == 0 || !strings.Contains(r.err, "the plan is out of date, nothing was changed") {
		t.Errorf("second --use-plan of one plan: exit %d\n%s", r.code, r.err)
	}

	// Someone labels a planned object after the plan was made.
	labelled := filepath.Join(dir, "labelled.plan")
	mustRun(t, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=newer", "--save-plan", labelled)
	if _, err := env.Dynamic().Resource(configMaps).Namespace(ns).Patch(ctx, "x", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"touched":"by-hand"}}}`), metav1.PatchOptions{FieldManager: "kubectl-label"}); err != nil {
		t.Fatal(err)
	}
	r = run(t, nil, "upgrade", "r", "--use-plan", labelled, "-n", ns)
	if r.code == 0 || !strings.Contains(r.err, "the plan is out of date, nothing was changed") || !strings.Contains(r.err, cmX+" changed since the plan was made") {
		t.Errorf("--use-plan after a label: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	if strings.Contains(r.err, "ConfigMap "+ns+"/legacy") || strings.Contains(r.err, "Secret "+ns+"/s") {
		t.Errorf("the refusal names objects nobody changed:\n%s", r.err)
	}
	if got := statuses(t, ns, "r"); got != "1:superseded 2:deployed" {
		t.Errorf("history after the refused plan = %s", got)
	}
	if k := liveKey(t, ns); k != "new" || get(t, configMaps, ns, "x").GetLabels()["touched"] != "by-hand" {
		t.Errorf("the refused plan changed x: key %q, labels %v", k, get(t, configMaps, ns, "x").GetLabels())
	}

	// The release is upgraded by another command after the plan was made.
	overtaken := filepath.Join(dir, "overtaken.plan")
	mustRun(t, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=planned", "--save-plan", overtaken)
	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "key=other")
	r = run(t, nil, "upgrade", "r", "--use-plan", overtaken, "-n", ns)
	if r.code == 0 || !strings.Contains(r.err, "the plan is out of date, nothing was changed") ||
		!strings.Contains(r.err, "release r: the latest revision is now 3, the plan was made at revision 2") {
		t.Errorf("--use-plan after another upgrade: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	if got := statuses(t, ns, "r"); got != "1:superseded 2:superseded 3:deployed" {
		t.Errorf("history after the refused plan = %s", got)
	}
	if k := liveKey(t, ns); k != "other" {
		t.Errorf("the refused plan changed x: key %q", k)
	}

	// Damaged files, a plan used for what it was not made for, and flags that
	// would plan again.
	good := filepath.Join(dir, "good.plan")
	mustRun(t, "diff", "upgrade", "r", chart, "-n", ns, "--set", "key=good", "--save-plan", good)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated, edited := filepath.Join(dir, "truncated.plan"), filepath.Join(dir, "edited.plan")
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "good") {
		t.Fatalf("the plan file does not hold the planned value:\n%.2000s", data)
	}
	if err := os.WriteFile(edited, []byte(strings.ReplaceAll(string(data), "good", "evil")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"truncated", []string{"upgrade", "r", "--use-plan", truncated}, []string{"plan file " + truncated + ": "}},
		{"edited", []string{"upgrade", "r", "--use-plan", edited}, []string{"plan file " + edited + ": ", "digest mismatch"}},
		{"missing", []string{"upgrade", "r", "--use-plan", filepath.Join(dir, "missing.plan")}, []string{"missing.plan"}},
		{"with --set", []string{"upgrade", "r", "--use-plan", good, "--set", "key=x"}, []string{"--set cannot be used with --use-plan"}},
		{"with a chart", []string{"upgrade", "r", chart, "--use-plan", good}, []string{"takes the release name only"}},
		{"another release", []string{"upgrade", "q", "--use-plan", good}, []string{"the plan does not fit", "release r in namespace " + ns}},
		{"another command", []string{"rollback", "r", "--use-plan", good}, []string{"the plan does not fit", `made by "upgrade"`}},
	} {
		r := run(t, nil, append(c.args, "-n", ns)...)
		if r.code == 0 {
			t.Errorf("%s: --use-plan succeeded\n%s", c.name, r.out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.err, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, r.err)
			}
		}
	}
	if got := statuses(t, ns, "r"); got != "1:superseded 2:superseded 3:deployed" {
		t.Errorf("history after the refused plans = %s", got)
	}
	if k := liveKey(t, ns); k != "other" {
		t.Errorf("a refused plan changed x: key %q", k)
	}
	// The undamaged plan still applies.
	mustRun(t, "upgrade", "r", "--use-plan", good, "-n", ns)
	if got, k := statuses(t, ns, "r"), liveKey(t, ns); got != "1:superseded 2:superseded 3:superseded 4:deployed" || k != "good" {
		t.Errorf("after the good plan: history %s, key %q", got, k)
	}
}

// install and upgrade --dry-run=server print Helm's stdout and the plan's
// summary on stderr, and change nothing.
func TestDryRunServerPlan(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := planChart(t, nil)
	r := mustRun(t, "install", "r", chart, "-n", ns, "--dry-run=server")
	if want := "PLAN: install " + ns + "/r: 3 to create, 0 to update, 0 to replace, 0 to adopt, 0 to delete, 0 unchanged"; !strings.Contains(r.err, want) {
		t.Errorf("install --dry-run=server stderr lacks %q:\n%s", want, r.err)
	}
	if strings.Contains(r.out, "PLAN:") || !strings.Contains(r.out, "NAME: r") || !strings.Contains(r.out, "STATUS: pending-install") {
		t.Errorf("install --dry-run=server stdout:\n%s", r.out)
	}
	if got := statuses(t, ns, "r"); !strings.Contains(got, "not found") {
		t.Errorf("install --dry-run=server left history: %s", got)
	}
	for _, o := range []ref{{configMaps, "x"}, {configMaps, "legacy"}, {secrets, "s"}} {
		if exists(t, o.gvr, ns, o.name) {
			t.Errorf("install --dry-run=server created %s %s", o.gvr.Resource, o.name)
		}
	}

	mustRun(t, "install", "r", chart, "-n", ns)
	r = mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "key=new,legacy=false", "--dry-run=server")
	if want := "PLAN: upgrade " + ns + "/r: 0 to create, 1 to update, 0 to replace, 0 to adopt, 1 to delete, 1 unchanged"; !strings.Contains(r.err, want) {
		t.Errorf("upgrade --dry-run=server stderr lacks %q:\n%s", want, r.err)
	}
	if !strings.Contains(r.err, "  delete: ConfigMap "+ns+"/legacy") {
		t.Errorf("upgrade --dry-run=server stderr does not name the deleted object:\n%s", r.err)
	}
	if strings.Contains(r.out, "PLAN:") || !strings.Contains(r.out, `Release "r" has been upgraded`) {
		t.Errorf("upgrade --dry-run=server stdout:\n%s", r.out)
	}
	if got := statuses(t, ns, "r"); got != "1:deployed" {
		t.Errorf("history after upgrade --dry-run=server = %s", got)
	}
	if k := liveKey(t, ns); k != "old" || !exists(t, configMaps, ns, "legacy") {
		t.Errorf("upgrade --dry-run=server changed the release: key %q, legacy exists %v", k, exists(t, configMaps, ns, "legacy"))
	}
}

// Plans saved by diff install, rollback and uninstall are executed by the
// operation's --use-plan.
func TestSavedPlanOtherOperations(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := planChart(t, nil)
	dir := t.TempDir()

	install := filepath.Join(dir, "install.plan")
	r := mustRun(t, "diff", "install", "r", chart, "-n", ns, "--set", "key=first", "--save-plan", install)
	if !strings.Contains(r.out, "ConfigMap "+ns+"/x (create)") || exists(t, configMaps, ns, "x") {
		t.Errorf("diff install --save-plan:\n%s", r.out)
	}
	mustRun(t, "install", "r", "--use-plan", install, "-n", ns)
	if got, k := statuses(t, ns, "r"), liveKey(t, ns); got != "1:deployed" || k != "first" {
		t.Errorf("after install --use-plan: history %s, key %q", got, k)
	}
	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "key=second")

	rollback := filepath.Join(dir, "rollback.plan")
	mustRun(t, "diff", "rollback", "r", "1", "-n", ns, "--save-plan", rollback)
	if r := run(t, nil, "upgrade", "r", "--use-plan", rollback, "-n", ns); r.code == 0 || !strings.Contains(r.err, "the plan does not fit") {
		t.Errorf("a rollback plan used by upgrade: exit %d\n%s", r.code, r.err)
	}
	mustRun(t, "rollback", "r", "--use-plan", rollback, "-n", ns)
	if got, k := statuses(t, ns, "r"), liveKey(t, ns); got != "1:superseded 2:superseded 3:deployed" || k != "first" {
		t.Errorf("after rollback --use-plan: history %s, key %q", got, k)
	}

	uninstall := filepath.Join(dir, "uninstall.plan")
	mustRun(t, "diff", "uninstall", "r", "-n", ns, "--save-plan", uninstall)
	if !exists(t, configMaps, ns, "x") {
		t.Fatal("diff uninstall --save-plan deleted x")
	}
	r = mustRun(t, "uninstall", "r", "--use-plan", uninstall, "-n", ns)
	if !strings.Contains(r.out, `release "r" uninstalled`) {
		t.Errorf("uninstall --use-plan output:\n%s", r.out)
	}
	for _, o := range []ref{{configMaps, "x"}, {configMaps, "legacy"}, {secrets, "s"}} {
		if exists(t, o.gvr, ns, o.name) {
			t.Errorf("uninstall --use-plan left %s %s", o.gvr.Resource, o.name)
		}
	}
	if got := statuses(t, ns, "r"); !strings.Contains(got, "not found") {
		t.Errorf("history after uninstall --use-plan = %s", got)
	}
}
