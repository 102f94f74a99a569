package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// TestDiffHelmDiffFlags runs diff with helm-diff's flags and environment
// against in-memory adapters: each flag's effect and the exit codes.
func TestDiffHelmDiffFlags(t *testing.T) {
	chart := writeDemoChart(t)
	tpl := filepath.Join(t.TempDir(), "changes.tpl")
	if err := os.WriteFile(tpl, []byte(`{{ range $i, $e := . }}{{ $e.Kind }}/{{ $e.Name }}={{ $e.Change }}{{ if not (last $i $) }};{{ end }}{{ end }}`), 0o600); err != nil {
		t.Fatal(err)
	}
	install := []string{"install", "web", "{chart}"}
	tests := map[string]struct {
		setup [][]string
		env   map[string]string
		args  []string
		code  int
		// want are what stdout must hold, in order; unwanted what it must not.
		want     []string
		unwanted []string
		err      string
	}{
		"allow-unreleased diffs a missing release as an install": {
			args: []string{"diff", "upgrade", "--allow-unreleased", "web", "{chart}", "--detailed-exitcode"},
			code: 2,
			want: []string{"ConfigMap default/web-config (create)", "+kind: ConfigMap"},
		},
		"a missing release without allow-unreleased": {
			args: []string{"diff", "upgrade", "web", "{chart}", "--detailed-exitcode"},
			err:  `"web" has no deployed releases`,
		},
		"helmfile's flags, nothing changes": {
			setup: [][]string{install},
			args: []string{"diff", "upgrade", "--allow-unreleased", "web", "{chart}", "--kube-version", "1.37.0",
				"--namespace", "default", "--reset-values", "--detailed-exitcode", "--no-color", "--context", "3"},
		},
		"flags without meaning here change nothing": {
			setup: [][]string{install},
			args: []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "--three-way-merge", "--normalize-manifests",
				"--strip-trailing-cr", "-D", "0.5", "--include-tests", "--include-crds", "--disable-validation",
				"--disable-openapi-validation", "-a", "example.com/v1", "--api-versions", "other.io/v2", "--take-ownership",
				"--server-side", "auto", "--reuse-values", "--dry-run=server", "--install", "--detailed-exitcode"},
			code: 2,
			want: []string{"ConfigMap default/web-config (update)", "-  greeting: hello", "+  greeting: hi"},
		},
		"output simple": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi,keep=true", "--output", "simple"},
			// In the order the upgrade applies them.
			want: []string{"default, web-kept, Secret (v1) to be added.", "default, web-config, ConfigMap (v1) to be changed.",
				"Plan: 1 to add, 1 to change, 0 to destroy, 0 to change ownership."},
			unwanted: []string{"greeting"},
		},
		"HELM_DIFF_OUTPUT chooses the output": {
			setup: [][]string{install},
			env:   map[string]string{"HELM_DIFF_OUTPUT": "simple"},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi"},
			want:  []string{"default, web-config, ConfigMap (v1) to be changed."},
		},
		"output template without HELM_DIFF_TPL is a JSON list": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "-o", "template"},
			want:  []string{`"api": "v1"`, `"kind": "ConfigMap"`, `"namespace": "default"`, `"name": "web-config"`, `"change": "MODIFY"`},
		},
		"output template executes HELM_DIFF_TPL": {
			setup: [][]string{install},
			env:   map[string]string{"HELM_DIFF_TPL": tpl},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi,keep=true", "-o", "template"},
			want:  []string{"Secret/web-kept=ADD;ConfigMap/web-config=MODIFY\n"},
		},
		"output structured names the fields that change": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "-o", "structured"},
			want: []string{`"changeType": "MODIFY"`, `"oldExists": true`, `"path": "/data"`, `"field": "greeting"`,
				`"change": "replace"`, `"oldValue": "hello"`, `"newValue": "hi"`},
		},
		"output dyff is the diff": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "-o", "dyff"},
			want:  []string{"ConfigMap default/web-config (update)", "+  greeting: hi"},
		},
		"output json is still the plan": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "-o", "json"},
			want:  []string{`"operation": "upgrade"`},
		},
		"suppress hides a kind's changes, not that it changes": {
			setup:    [][]string{install},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "--suppress", "ConfigMap", "--detailed-exitcode"},
			code:     2,
			want:     []string{"ConfigMap default/web-config (update)", "(changes of ConfigMap objects are suppressed)"},
			unwanted: []string{"greeting"},
		},
		"suppress-secrets": {
			setup:    [][]string{install},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "keep=true", "-q", "--show-secrets"},
			want:     []string{"Secret default/web-kept (create)", "(changes of Secret objects are suppressed)"},
			unwanted: []string{"token", "abc"},
		},
		"secrets are masked by default": {
			setup:    [][]string{install},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "keep=true", "-o", "simple"},
			want:     []string{"default, web-kept, Secret (v1) to be added."},
			unwanted: []string{"abc"},
		},
		"show-secrets-decoded": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "keep=true", "--show-secrets-decoded"},
			want:  []string{"Secret default/web-kept (create)", "+stringData:", "+  token: abc"},
		},
		"suppress-output-line-regex empties a change but it still counts": {
			setup:    [][]string{install},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "--suppress-output-line-regex", "greeting", "--detailed-exitcode", "-o", "simple"},
			code:     2,
			want:     []string{"default, web-config, ConfigMap (v1) has changed, but diff is empty after suppression.", "Plan: 0 to add, 0 to change"},
			unwanted: []string{"to be changed"},
		},
		"suppress-output-line-regex drops lines": {
			setup:    [][]string{install},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi,keep=true", "--suppress-output-line-regex", "^kind:"},
			want:     []string{"Secret default/web-kept (create)", "+apiVersion: v1", "ConfigMap default/web-config (update)", "+  greeting: hi"},
			unwanted: []string{"kind: Secret"},
		},
		"a bad regex": {
			args: []string{"diff", "upgrade", "web", "{chart}", "--suppress-output-line-regex", "("},
			err:  "--suppress-output-line-regex \"(\": error parsing regexp: missing closing ): `(`",
		},
		"a bad kube version": {
			args: []string{"diff", "upgrade", "web", "{chart}", "--kube-version", "banana"},
			err:  `invalid kube version 'banana'`,
		},
		"color forces colour": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "--color"},
			want:  []string{"\x1b[32m+  greeting: hi\x1b[0m"},
		},
		"HELM_DIFF_COLOR=true colours": {
			setup: [][]string{install},
			env:   map[string]string{"HELM_DIFF_COLOR": "true"},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi"},
			want:  []string{"\x1b[32m+  greeting: hi\x1b[0m"},
		},
		"no-color wins over color": {
			setup:    [][]string{install},
			env:      map[string]string{"HELM_DIFF_COLOR": "true"},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "--color", "--no-color"},
			want:     []string{"+  greeting: hi"},
			unwanted: []string{"\x1b["},
		},
		"context -1 shows whole objects": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "-C", "-1"},
			want:  []string{" apiVersion: v1", "-  greeting: hello", " kind: ConfigMap"},
		},
		"context 0 shows the changed lines only": {
			setup:    [][]string{install},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "-C", "0"},
			want:     []string{"-  greeting: hello"},
			unwanted: []string{" kind: ConfigMap", " data:"},
		},
		"HELM_DIFF_OUTPUT_CONTEXT sets the context": {
			setup:    [][]string{install},
			env:      map[string]string{"HELM_DIFF_OUTPUT_CONTEXT": "0"},
			args:     []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi"},
			unwanted: []string{" data:"},
			want:     []string{"-  greeting: hello"},
		},
		"dry-run=client diffs as an install, the cluster unread": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--dry-run=client", "--detailed-exitcode", "-o", "simple"},
			code:  2,
			want:  []string{"default, web-config, ConfigMap (v1) to be added."},
		},
		"dry-run alone is client": {
			args: []string{"diff", "install", "web", "{chart}", "--dry-run", "--detailed-exitcode"},
			code: 2,
			want: []string{"ConfigMap default/web-config (create)"},
		},
		"HELM_DIFF_IGNORE_UNKNOWN_FLAGS ignores unknown flags": {
			setup: [][]string{install},
			env:   map[string]string{"HELM_DIFF_IGNORE_UNKNOWN_FLAGS": "true"},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--no-such-flag", "--detailed-exitcode"},
		},
		"unknown flags are refused": {
			args: []string{"diff", "upgrade", "web", "{chart}", "--no-such-flag"},
			err:  "unknown flag: --no-such-flag",
		},
		"rollback with helm-diff's output": {
			setup: [][]string{install, {"upgrade", "web", "{chart}", "--set", "greeting=hi"}},
			args:  []string{"diff", "rollback", "web", "1", "-o", "simple", "--detailed-exitcode"},
			code:  2,
			want:  []string{"default, web-config, ConfigMap (v1) to be changed."},
		},
		"uninstall with helm-diff's output": {
			setup: [][]string{install},
			args:  []string{"diff", "uninstall", "web", "-o", "simple"},
			want:  []string{"default, web-config, ConfigMap (v1) to be removed.", "Plan: 0 to add, 0 to change, 1 to destroy"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			for _, s := range tc.setup {
				if _, errOut, err := runLifecycle(t, f, replaceChart(s, chart)...); err != nil {
					t.Fatalf("%v: %v\n%s", s, err, errOut)
				}
			}
			before := history(t, f, "default", "web")
			out, _, err := runLifecycle(t, f, replaceChart(tc.args, chart)...)
			checkDiffRun(t, diffRun{out: out, err: err}, diffRun{out: tc.err, code: tc.code}, tc.want, tc.unwanted)
			if after := history(t, f, "default", "web"); len(after) != len(before) {
				t.Errorf("diff changed the history: %v -> %v", before, after)
			}
		})
	}
}

// TestDiffHooks checks that install and upgrade diffs show the hooks'
// changes, as helm-diff does, so that a change of a hook alone is a change.
func TestDiffHooks(t *testing.T) {
	chart := writeDemoChart(t)
	hook := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
data:
  step: {{ .Values.step | default "one" | quote }}
`
	if err := os.WriteFile(filepath.Join(chart, "templates", "hook.yaml"), []byte(hook), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	if _, errOut, err := runLifecycle(t, f, "install", "web", chart); err != nil {
		t.Fatalf("install: %v\n%s", err, errOut)
	}
	tests := map[string]struct {
		args     []string
		code     int
		want     []string
		unwanted []string
	}{
		"a hook alone changes": {
			args: []string{"diff", "upgrade", "web", chart, "--set", "step=two", "--detailed-exitcode"},
			code: 2,
			want: []string{"ConfigMap default/web-migrate (update): hook pre-install,pre-upgrade", `-  step: one`, `+  step: two`},
		},
		"hooks unchanged": {
			args: []string{"diff", "upgrade", "web", chart, "--detailed-exitcode"},
		},
		"no-hooks leaves them out": {
			args: []string{"diff", "upgrade", "web", chart, "--set", "step=two", "--no-hooks", "--detailed-exitcode"},
		},
		"an install shows its hooks, not its tests": {
			args:     []string{"diff", "install", "other", chart, "-o", "simple"},
			want:     []string{"default, other-config, ConfigMap (v1) to be added.", "default, other-migrate, ConfigMap (v1) to be added.", "Plan: 2 to add"},
			unwanted: []string{"test-greeting"},
		},
		"include-tests shows the tests": {
			args: []string{"diff", "install", "other", chart, "-o", "simple", "--include-tests"},
			want: []string{"default, other-test-greeting, Pod (v1) to be added."},
		},
		"the plan printed holds no hooks": {
			args:     []string{"diff", "upgrade", "web", chart, "--set", "step=two", "-o", "json"},
			unwanted: []string{`hook pre-install`},
			want:     []string{`"operation": "upgrade"`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runLifecycle(t, f, tc.args...)
			checkDiffRun(t, diffRun{out: out, err: err}, diffRun{code: tc.code}, tc.want, tc.unwanted)
		})
	}
}

// TestDiffSecretValues checks that a Secret's values stay masked in every
// output unless asked for.
func TestDiffSecretValues(t *testing.T) {
	chart := writeDemoChart(t)
	secret := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-db\nstringData:\n  password: {{ .Values.password | default \"s3cret\" }}\n"
	if err := os.WriteFile(filepath.Join(chart, "templates", "secret.yaml"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	if _, errOut, err := runLifecycle(t, f, "install", "web", chart); err != nil {
		t.Fatalf("install: %v\n%s", err, errOut)
	}
	values := []string{"s3cret", "t0psecret", base64.StdEncoding.EncodeToString([]byte("s3cret")), base64.StdEncoding.EncodeToString([]byte("t0psecret"))}
	for _, output := range []string{"diff", "simple", "template", "structured", "json"} {
		out, _, err := runLifecycle(t, f, "diff", "upgrade", "web", chart, "--set", "password=t0psecret", "-o", output, "--detailed-exitcode")
		checkDiffRun(t, diffRun{out: out, err: err}, diffRun{code: 2}, []string{"web-db"}, values)
	}
	out, _, err := runLifecycle(t, f, "diff", "upgrade", "web", chart, "--set", "password=t0psecret", "-o", "structured", "--show-secrets-decoded")
	checkDiffRun(t, diffRun{out: out, err: err}, diffRun{}, []string{`"oldValue": "s3cret"`, `"newValue": "t0psecret"`}, nil)
}

// TestDiffRecords compares release records: diff revision and diff release.
func TestDiffRecords(t *testing.T) {
	chart := writeDemoChart(t)
	other := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(filepath.Join(other, "templates"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"Chart.yaml":               "apiVersion: v2\nname: other\nversion: 0.1.0\n",
		"templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
	} {
		if err := os.WriteFile(filepath.Join(other, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setup := [][]string{
		{"install", "web", "{chart}"},
		{"upgrade", "web", "{chart}", "--set", "greeting=hi"},
		{"upgrade", "web", "{chart}", "--set", "greeting=hey,keep=true"},
		{"install", "api", "{chart}", "-n", "prod", "--set", "greeting=hi"},
		{"install", "odd", other},
	}
	tests := map[string]struct {
		args     []string
		code     int
		want     []string
		unwanted []string
		err      string
	}{
		"a revision against the latest": {
			args: []string{"diff", "revision", "web", "1", "--detailed-exitcode"},
			code: 2,
			want: []string{"ConfigMap default/web-config (update)", "-  greeting: hello", "+  greeting: hey",
				"Secret default/web-kept (create)", "+  token: '***'"},
			unwanted: []string{"abc"},
		},
		"two revisions, either order": {
			args: []string{"diff", "revision", "web", "2", "1", "-o", "simple"},
			want: []string{"default, web-config, ConfigMap (v1) to be changed.", "Plan: 0 to add, 1 to change"},
		},
		"the same revision": {
			args: []string{"diff", "revision", "web", "3", "3", "--detailed-exitcode"},
		},
		"show-secrets": {
			args: []string{"diff", "revision", "web", "2", "3", "--show-secrets"},
			want: []string{"+  token: abc"},
		},
		"json is the list of changes": {
			args: []string{"diff", "revision", "web", "2", "3", "-o", "json"},
			want: []string{`"change": "MODIFY"`, `"change": "ADD"`},
		},
		"not a revision": {
			args: []string{"diff", "revision", "web", "two"},
			err:  `revision "two" is not a revision number`,
		},
		"a missing revision": {
			args: []string{"diff", "revision", "web", "9"},
			err:  "not found",
		},
		"two releases matched by template": {
			// web-kept, only in web, is kept by its resource policy: not shown as removed.
			args:     []string{"diff", "release", "web", "prod/api", "--detailed-exitcode"},
			code:     2,
			want:     []string{"ConfigMap prod/api-config (update)", "-  greeting: hey", "+  greeting: hi", "-  name: web-config", "+  name: api-config"},
			unwanted: []string{"(create)", "web-kept"},
		},
		"a release against itself": {
			args: []string{"diff", "release", "web", "default/web", "--detailed-exitcode"},
		},
		"releases of different charts": {
			args: []string{"diff", "release", "web", "odd"},
			err:  `releases "web" and "odd" are of different charts ("demo" and "other"): they cannot be compared`,
		},
		"a bad output": {
			args: []string{"diff", "release", "web", "odd", "-o", "yaml"},
			err:  `invalid output format "yaml"`,
		},
	}
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	for _, s := range setup {
		if _, errOut, err := runLifecycle(t, f, replaceChart(s, chart)...); err != nil {
			t.Fatalf("%v: %v\n%s", s, err, errOut)
		}
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runLifecycle(t, f, tc.args...)
			checkDiffRun(t, diffRun{out: out, err: err}, diffRun{out: tc.err, code: tc.code}, tc.want, tc.unwanted)
		})
	}
}

// TestDiffTemplateJSON checks that --output template without $HELM_DIFF_TPL
// is a JSON list that parses, empty when nothing changes.
func TestDiffTemplateJSON(t *testing.T) {
	chart := writeDemoChart(t)
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	if _, errOut, err := runLifecycle(t, f, "install", "web", chart); err != nil {
		t.Fatalf("install: %v\n%s", err, errOut)
	}
	for set, want := range map[string][]templateEntry{
		"greeting=hello": {},
		"greeting=hi":    {{API: "v1", Kind: "ConfigMap", Namespace: "default", Name: "web-config", Change: "MODIFY"}},
	} {
		out, _, err := runLifecycle(t, f, "diff", "upgrade", "web", chart, "--set", set, "-o", "template")
		if err != nil {
			t.Fatal(err)
		}
		var got []templateEntry
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("--set %s: %v\n%s", set, err, out)
		}
		if len(got) != len(want) || (len(got) > 0 && got[0] != want[0]) {
			t.Errorf("--set %s: %+v, want %+v", set, got, want)
		}
	}
}

func replaceChart(args []string, chart string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "{chart}", chart)
	}
	return out
}

// diffRun is what a run gave: stdout and its error; as expected, out is the
// error's text (none when empty) and code the exit status.
type diffRun struct {
	out  string
	err  error
	code int
}

// checkDiffRun checks a run: the error expected, else the exit status and
// stdout, which holds want in order and none of unwanted (nothing if want is empty).
func checkDiffRun(t *testing.T, got, expected diffRun, want, unwanted []string) {
	t.Helper()
	if expected.out != "" {
		if got.err == nil || !strings.Contains(got.err.Error(), expected.out) {
			t.Fatalf("error = %v, want %q", got.err, expected.out)
		}
		return
	}
	if code := exitCode(got.err); code != expected.code {
		t.Fatalf("exit %d (%v), want %d\n%s", code, got.err, expected.code, got.out)
	}
	if len(want) == 0 && got.out != "" {
		t.Errorf("stdout = %q, want nothing", got.out)
	}
	assertInOrder(t, got.out, want)
	for _, u := range unwanted {
		if strings.Contains(got.out, u) {
			t.Errorf("stdout holds %q:\n%s", u, got.out)
		}
	}
}

// assertInOrder checks that out holds each of want, in that order.
func assertInOrder(t *testing.T, out string, want []string) {
	t.Helper()
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("stdout lacks %q (after what came before):\n%s", w, out)
			return
		}
		rest = rest[i+len(w):]
	}
}
