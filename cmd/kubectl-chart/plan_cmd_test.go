package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// exitCode is the status the program would exit with for err.
func exitCode(err error) int {
	var exit *exitCodeError
	switch {
	case errors.As(err, &exit):
		return exit.code
	case err != nil:
		return 1
	}
	return 0
}

// TestDiffCommands runs diff's subcommands, and saved plans through the
// operations, against in-memory adapters.
func TestDiffCommands(t *testing.T) {
	chart := writeDemoChart(t)
	withChart := func(args []string) []string {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = strings.ReplaceAll(a, "{chart}", chart)
		}
		return out
	}
	install := []string{"install", "web", "{chart}"}
	tests := map[string]struct {
		setup [][]string
		args  []string
		code  int
		// want are lines stdout must hold; none for an empty stdout.
		want []string
		err  string
	}{
		"no change": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--detailed-exitcode"},
		},
		"changed value": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "--detailed-exitcode"},
			code:  2,
			want:  []string{"ConfigMap default/web-config (update)", `-  greeting: hello`, `+  greeting: hi`},
		},
		"changed value without detailed exit code": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi"},
			want:  []string{"ConfigMap default/web-config (update)"},
		},
		"added and kept secret": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "--set", "keep=true"},
			want:  []string{"Secret default/web-kept (create)", "+  token: '***'"},
		},
		"install": {
			args: []string{"diff", "install", "web", "{chart}", "--detailed-exitcode"},
			code: 2,
			want: []string{"ConfigMap default/web-config (create)", "+kind: ConfigMap"},
		},
		"uninstall": {
			setup: [][]string{install},
			args:  []string{"diff", "uninstall", "web"},
			want:  []string{"ConfigMap default/web-config (delete)", "-kind: ConfigMap"},
		},
		"rollback": {
			setup: [][]string{install, {"upgrade", "web", "{chart}", "--set", "greeting=hi"}},
			args:  []string{"diff", "rollback", "web", "1"},
			want:  []string{"ConfigMap default/web-config (update)", `-  greeting: hi`, `+  greeting: hello`},
		},
		"plan as json": {
			setup: [][]string{install},
			args:  []string{"diff", "upgrade", "web", "{chart}", "-o", "json"},
			want:  []string{`"operation": "upgrade"`, `"base": 1`},
		},
		"bad output": {
			args: []string{"diff", "upgrade", "web", "{chart}", "-o", "wide"},
			err:  `invalid output format "wide": want json or yaml`,
		},
		"no release": {
			args: []string{"diff", "upgrade", "web", "{chart}"},
			err:  `"web" has no deployed releases`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			for _, s := range tc.setup {
				if _, errOut, err := runLifecycle(t, f, withChart(s)...); err != nil {
					t.Fatalf("%v: %v\n%s", s, err, errOut)
				}
			}
			before := history(t, f, "default", "web")
			out, _, err := runLifecycle(t, f, withChart(tc.args)...)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if got := exitCode(err); got != tc.code {
				t.Fatalf("exit %d (%v), want %d\n%s", got, err, tc.code, out)
			}
			if len(tc.want) == 0 && out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if after := history(t, f, "default", "web"); len(after) != len(before) {
				t.Errorf("diff changed the history: %v -> %v", before, after)
			}
		})
	}
}

func TestSavedPlanCommands(t *testing.T) {
	chart := writeDemoChart(t)
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	run := func(args ...string) (string, error) {
		t.Helper()
		out, _, err := runLifecycle(t, f, args...)
		return out, err
	}
	if _, err := run("install", "web", chart); err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(t.TempDir(), "web.plan")
	if _, err := run("diff", "upgrade", "web", chart, "--set", "greeting=hi", "--save-plan", planFile); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(planFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("plan file: %v %v", info, err)
	}
	for name, tc := range map[string]struct {
		args []string
		err  string
	}{
		"with a chart":    {args: []string{"upgrade", "web", chart, "--use-plan", planFile}, err: "takes the release name only"},
		"with values":     {args: []string{"upgrade", "web", "--use-plan", planFile, "--set", "a=b"}, err: "--set cannot be used with --use-plan"},
		"other command":   {args: []string{"rollback", "web", "--use-plan", planFile}, err: `the plan does not fit: it was made by "upgrade", not "rollback"`},
		"other release":   {args: []string{"upgrade", "api", "--use-plan", planFile}, err: "the plan does not fit: it is for release web"},
		"missing file":    {args: []string{"upgrade", "web", "--use-plan", planFile + ".nope"}, err: "read plan: open " + planFile + ".nope"},
		"other namespace": {args: []string{"upgrade", "web", "-n", "prod", "--use-plan", planFile}, err: "not web in prod"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := run(tc.args...); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error = %v, want %q", err, tc.err)
			}
		})
	}
	out, err := run("upgrade", "web", "--use-plan", planFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `Release "web" has been upgraded. Happy Helming!`) {
		t.Errorf("stdout:\n%s", out)
	}
	wantHistory("default", "web", release.StatusSuperseded, release.StatusDeployed)(t, f)
	cm, err := f.cluster.Get(context.Background(), ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "web-config"})
	if err != nil || cm["data"].(map[string]any)["greeting"] != "hi" {
		t.Errorf("config map after the plan: %v %v", cm, err)
	}
	// The same plan again: the release moved on.
	if _, err := run("upgrade", "web", "--use-plan", planFile); err == nil || !strings.Contains(err.Error(), "the latest revision is now 2, the plan was made at revision 1") {
		t.Errorf("stale plan: %v", err)
	}
	wantHistory("default", "web", release.StatusSuperseded, release.StatusDeployed)(t, f)
}

func TestDriftCommand(t *testing.T) {
	chart := writeDemoChart(t)
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	if _, _, err := runLifecycle(t, f, "install", "web", chart); err != nil {
		t.Fatal(err)
	}
	out, _, err := runLifecycle(t, f, "drift", "web", "--detailed-exitcode")
	if err != nil || out != "no drift\n" {
		t.Fatalf("drift after install: %q %v", out, err)
	}
	cm := ports.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "web-config", "namespace": "default"},
		"data": map[string]any{"greeting": "edited"}}
	if _, err := f.cluster.UpdateAs(context.Background(), "kubectl-edit", cm); err != nil {
		t.Fatal(err)
	}
	out, _, err = runLifecycle(t, f, "drift", "web", "--detailed-exitcode")
	if exitCode(err) != 2 || !strings.Contains(out, ".data.greeting") || !strings.Contains(out, "kubectl-edit") || !strings.Contains(out, "edited") {
		t.Fatalf("drift after an edit (exit %d):\n%s", exitCode(err), out)
	}
	out, _, err = runLifecycle(t, f, "drift", "web", "-o", "json")
	var data []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &data) != nil || len(data) != 1 || data[0]["drifted"] != true {
		t.Fatalf("drift -o json: %v\n%s", err, out)
	}
	if _, _, err := runLifecycle(t, f, "drift", "web", "--correct"); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runLifecycle(t, f, "drift", "web", "--detailed-exitcode"); err != nil || out != "no drift\n" {
		t.Errorf("drift after --correct: %q %v", out, err)
	}
	wantHistory("default", "web", release.StatusDeployed)(t, f)
	for name, args := range map[string][]string{
		"correct without name": {"drift", "--correct"},
		"dry run alone":        {"drift", "web", "--dry-run"},
		"name and -A":          {"drift", "web", "-A"},
	} {
		if _, _, err := runLifecycle(t, f, args...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
