//go:build e2e

package lifecycle

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// TestHelmfileDiffArgv runs, against our binary installed as `helm`, the
// command lines helmfile v1.8.0 builds for `helmfile diff` and `helmfile
// apply` (pkg/state's flagsForDiff, appendValuesControlModeFlag and
// commonDiffFlags, pkg/helmexec's DiffRelease; no helm-diff plugin), for a
// release that does not exist yet and for one whose values changed: the exit
// status helmfile reads (apply's --detailed-exitcode: 2 when something
// changes) and the change shown on stdout.
func TestHelmfileDiffArgv(t *testing.T) {
	ns := env.Namespace(t)
	helm := filepath.Join(t.TempDir(), "helm")
	if err := os.Symlink(bin(t), helm); err != nil {
		t.Fatal(err)
	}
	chart := writeChart(t, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: hf\nversion: 0.1.0\n",
		"values.yaml": "greeting: hello\n",
		"templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  greeting: {{ .Values.greeting | quote }}
`,
	})
	// helmfile writes each release's values into a file of its own.
	values := filepath.Join(t.TempDir(), ns+"-r-values-5b8d7f6c4")
	setValues := func(greeting string) {
		if err := os.WriteFile(values, []byte("greeting: "+greeting+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// helmfile passes the server's version, without its "v" (pkg/cluster).
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	sv, err := client.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	kubeVersion := strings.TrimPrefix(sv.GitVersion, "v")
	// `helmfile diff`: helm diff upgrade --allow-unreleased NAME CHART, then
	// --kube-version (detected), --namespace, --values, --reset-values (helmfile's
	// default values mode); `helmfile --kubeconfig FILE apply` puts
	// --kubeconfig FILE first and adds --detailed-exitcode.
	diff := []string{"diff", "upgrade", "--allow-unreleased", "r", chart, "--kube-version", kubeVersion,
		"--namespace", ns, "--values", values, "--reset-values"}
	apply := append(append([]string{"--kubeconfig", env.Kubeconfig()}, diff...), "--detailed-exitcode")
	// The Helm 4 dialect: helmfile turns --no-color into $HELM_DIFF_COLOR.
	noColour := []string{"HELM_DIFF_COLOR=false"}

	created := []string{"ConfigMap " + ns + "/r-config (create)", "+  greeting: hello"}
	setValues("hello")
	checkHelm(t, "diff of a new release", runAs(t, helm, noColour, diff...), 0, created, nil)
	checkHelm(t, "apply of a new release", runAs(t, helm, noColour, apply...), 2, created, nil)
	if got := statuses(t, ns, "r"); !strings.Contains(got, "not found") {
		t.Fatalf("the diffs recorded a release: %s", got)
	}
	// helmfile sync's upgrade --install, then nothing left to change.
	if r := runAs(t, helm, nil, "upgrade", "--install", "r", chart, "--namespace", ns, "--values", values, "--reset-values"); r.code != 0 {
		t.Fatalf("upgrade --install: exit %d\n%s%s", r.code, r.out, r.err)
	}
	checkHelm(t, "apply with nothing to change", runAs(t, helm, noColour, apply...), 0, nil, nil)
	setValues("hi")
	upgraded := []string{"ConfigMap " + ns + "/r-config (update)", "-  greeting: hello", "+  greeting: hi"}
	checkHelm(t, "diff of an upgrade", runAs(t, helm, noColour, diff...), 0, upgraded, []string{"\x1b["})
	start := time.Now()
	checkHelm(t, "apply of an upgrade", runAs(t, helm, noColour, apply...), 2, upgraded, []string{"\x1b["})
	t.Logf("helm diff upgrade (helmfile apply's argv), one process: %v", time.Since(start).Round(time.Millisecond))
	checkHelm(t, "apply of an upgrade, coloured", runAs(t, helm, []string{"HELM_DIFF_COLOR=true"}, apply...), 2, []string{"\x1b[32m+  greeting: hi"}, nil)
	if got := statuses(t, ns, "r"); got != "1:deployed" {
		t.Errorf("the diffs changed the release: %s", got)
	}
}

// runAs runs the binary at path (our binary, named helm) against the test cluster.
func runAs(t *testing.T, path string, extraEnv []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+env.Kubeconfig()), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{out: stdout.String(), err: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return r
}

// checkHelm checks a step's exit status, that stderr is empty (as
// helm-diff's, but for its errors) and that stdout holds want and none of
// unwanted (nothing at all when want is empty).
func checkHelm(t *testing.T, step string, r result, code int, want, unwanted []string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", step, r.code, code, r.out, r.err)
	}
	if r.err != "" {
		t.Errorf("%s: stderr = %q, want nothing", step, r.err)
	}
	if len(want) == 0 && r.out != "" {
		t.Errorf("%s: stdout = %q, want nothing", step, r.out)
	}
	for _, w := range want {
		if !strings.Contains(r.out, w) {
			t.Errorf("%s: stdout lacks %q:\n%s", step, w, r.out)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(r.out, u) {
			t.Errorf("%s: stdout holds %q:\n%s", step, u, r.out)
		}
	}
}
