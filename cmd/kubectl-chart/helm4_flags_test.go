package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// --wait takes Helm 4's strategies; Helm 3's booleans still work with Helm
// 4's warnings; errors are Helm 4's words (as pflag wraps them).
func TestWaitFlag(t *testing.T) {
	tests := map[string]struct {
		args         []string
		strategy     string
		waits        bool
		warning, err string
	}{
		"omitted":        {args: nil, strategy: "hookOnly"},
		"bare":           {args: []string{"--wait"}, strategy: "watcher", waits: true},
		"watcher":        {args: []string{"--wait=watcher"}, strategy: "watcher", waits: true},
		"hookOnly":       {args: []string{"--wait=hookOnly"}, strategy: "hookOnly"},
		"legacy":         {args: []string{"--wait=legacy"}, strategy: "legacy", waits: true},
		"last one wins":  {args: []string{"--wait=legacy", "--wait"}, strategy: "watcher", waits: true},
		"true (Helm 3)":  {args: []string{"--wait=true"}, strategy: "watcher", waits: true, warning: `level=WARN msg="--wait=true is deprecated (boolean value) and can be replaced with --wait=watcher"`},
		"false (Helm 3)": {args: []string{"--wait=false"}, strategy: "hookOnly", warning: `level=WARN msg="--wait=false is deprecated (boolean value) and can be replaced with --wait=hookOnly"`},
		"unknown":        {args: []string{"--wait=bogus"}, err: `invalid argument "bogus" for "--wait" flag: invalid wait input "bogus". Valid inputs are watcher, hookOnly, and legacy`},
		"wrong case":     {args: []string{"--wait=Watcher"}, err: `invalid argument "Watcher" for "--wait" flag: invalid wait input "Watcher". Valid inputs are watcher, hookOnly, and legacy`},
		"empty":          {args: []string{"--wait="}, err: `invalid argument "" for "--wait" flag: invalid wait input "". Valid inputs are watcher, hookOnly, and legacy`},
		"ordered":        {args: []string{"--wait=ordered"}, strategy: "ordered", waits: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var w waitFlags
			var warnings flagWarnings
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			fs.SetOutput(&strings.Builder{})
			w.AddFlags(fs, &warnings)
			err := fs.Parse(tc.args)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.strategy != tc.strategy || w.waits() != tc.waits || w.spec().Wait != tc.waits {
				t.Errorf("strategy %q (waits %v), want %q (%v)", w.strategy, w.waits(), tc.strategy, tc.waits)
			}
			var out strings.Builder
			warnings.print(&out)
			if got := strings.TrimSuffix(out.String(), "\n"); got != tc.warning {
				t.Errorf("warning %q, want %q", got, tc.warning)
			}
		})
	}
	var w waitFlags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	w.AddFlags(fs, &flagWarnings{})
	if f := fs.Lookup("wait"); f.DefValue != "hookOnly" || f.NoOptDefVal != "watcher" || f.Value.Type() != "WaitStrategy" {
		t.Errorf("--wait default %q, bare %q, type %q", f.DefValue, f.NoOptDefVal, f.Value.Type())
	}
}

// Helm 3's spellings print Helm 4's deprecation warnings, in command-line
// order, as Helm v4.3.1 prints them for the same command line:
//
//	helm upgrade --install r CHART --wait=true --force --atomic --dry-run
func TestHelm3SpellingsWarnAsHelm4(t *testing.T) {
	chart := writeDemoChart(t)
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	_, stderr, err := runLifecycle(t, f, "upgrade", "--install", "web", chart, "--wait=true", "--force", "--atomic", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	want := `level=WARN msg="--wait=true is deprecated (boolean value) and can be replaced with --wait=watcher"
Flag --force has been deprecated, use --force-replace instead
Flag --atomic has been deprecated, use --rollback-on-failure instead
level=WARN msg="--dry-run is deprecated and should be replaced with '--dry-run=client'"
`
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to start with:\n%s", stderr, want)
	}
	_, stderr, err = runLifecycle(t, f, "install", "web", chart, "--wait=false", "--dry-run=true")
	if err != nil {
		t.Fatal(err)
	}
	want = `level=WARN msg="--wait=false is deprecated (boolean value) and can be replaced with --wait=hookOnly"
level=WARN msg="boolean '--dry-run=true' flag is deprecated and must be replaced with '--dry-run=client'"
`
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to start with:\n%s", stderr, want)
	}
	// Helm 4's spellings warn of nothing.
	_, stderr, err = runLifecycle(t, f, "install", "web", chart, "--wait=watcher", "--rollback-on-failure", "--force-replace", "--dry-run=client")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "deprecated") {
		t.Errorf("Helm 4's spellings warned:\n%s", stderr)
	}
	for _, cmd := range []string{"install", "upgrade", "rollback"} {
		if fl := findFlag(t, cmd, "force"); !fl.Hidden {
			t.Errorf("%s --force is shown in help", cmd)
		}
	}
	if fl := findFlag(t, "install", "atomic"); !fl.Hidden {
		t.Error("install --atomic is shown in help")
	}
}

func findFlag(t *testing.T, command, name string) *pflag.Flag {
	t.Helper()
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	flags := genericclioptions.NewConfigFlags(true)
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}
	root := newRootCmd(flags, f.forFlags(t, flags), streams, BuildInfo{Version: "test"})
	cmd, _, err := root.Find([]string{command})
	if err != nil {
		t.Fatal(err)
	}
	fl := cmd.Flags().Lookup(name)
	if fl == nil {
		t.Fatalf("%s has no --%s", command, name)
	}
	return fl
}

// Helm 4's flags where a Helm 4 user types them, and their errors.
func TestHelm4LifecycleFlags(t *testing.T) {
	install := []string{"install", "web", "{chart}"}
	tests := map[string]struct {
		setup [][]string
		args  []string
		err   string
		// methods are the apply methods of the revisions after args, oldest first.
		methods string
	}{
		"install records ssa":                 {args: install, methods: "ssa"},
		"install --server-side":               {args: []string{"install", "web", "{chart}", "--server-side"}, methods: "ssa"},
		"install --server-side=false":         {args: []string{"install", "web", "{chart}", "--server-side=false"}, err: "INSTALLATION FAILED: --server-side=false (client-side apply) is not supported: kubectl chart applies objects server-side only; use --server-side=auto or true"},
		"install --server-side=auto":          {args: []string{"install", "web", "{chart}", "--server-side=auto"}, err: `invalid argument "auto" for "--server-side" flag: strconv.ParseBool: parsing "auto": invalid syntax`},
		"install --force-replace":             {args: []string{"install", "web", "{chart}", "--force-replace"}, methods: "ssa"},
		"install --wait=legacy":               {args: []string{"install", "web", "{chart}", "--wait=legacy", "--timeout", "5s"}, methods: "ssa"},
		"install --wait=ordered":              {args: []string{"install", "web", "{chart}", "--wait=ordered", "--timeout", "5s"}, methods: "ssa"},
		"install force flags exclusive":       {args: []string{"install", "web", "{chart}", "--force-replace", "--force-conflicts"}, err: "if any flags in the group [force-replace force-conflicts] are set none of the others can be; [force-conflicts force-replace] were all set"},
		"upgrade force flags exclusive":       {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}", "--force", "--force-conflicts"}, err: "if any flags in the group [force force-conflicts] are set none of the others can be; [force force-conflicts] were all set", methods: "ssa"},
		"upgrade auto keeps ssa":              {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}"}, methods: "ssa ssa"},
		"upgrade --server-side=true":          {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}", "--server-side=true"}, methods: "ssa ssa"},
		"upgrade --server-side=false":         {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}", "--server-side=false"}, err: "UPGRADE FAILED: --server-side=false (client-side apply) is not supported: kubectl chart applies objects server-side only; use --server-side=auto or true", methods: "ssa"},
		"upgrade --server-side=bogus":         {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}", "--server-side=bogus"}, err: "invalid/unknown release server-side apply method: bogus", methods: "ssa"},
		"upgrade --install --server-side":     {args: []string{"upgrade", "--install", "web", "{chart}", "--server-side=auto"}, methods: "ssa"},
		"upgrade --wait=watcher":              {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}", "--wait=watcher", "--timeout", "5s"}, methods: "ssa ssa"},
		"upgrade --rollback-on-failure":       {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}", "--rollback-on-failure", "--timeout", "5s"}, methods: "ssa ssa"},
		"rollback --server-side=auto":         {setup: [][]string{install, {"upgrade", "web", "{chart}"}}, args: []string{"rollback", "web", "1", "--server-side=auto", "--wait"}, methods: "ssa ssa ssa"},
		"rollback --server-side=false":        {setup: [][]string{install, {"upgrade", "web", "{chart}"}}, args: []string{"rollback", "web", "1", "--server-side=false"}, err: "--server-side=false (client-side apply) is not supported: kubectl chart applies objects server-side only; use --server-side=auto or true", methods: "ssa ssa"},
		"rollback --dry-run=client":           {setup: [][]string{install, {"upgrade", "web", "{chart}"}}, args: []string{"rollback", "web", "1", "--dry-run=client"}, methods: "ssa ssa"},
		"rollback --dry-run=server":           {setup: [][]string{install, {"upgrade", "web", "{chart}"}}, args: []string{"rollback", "web", "1", "--dry-run=server"}, err: "--dry-run=server is not supported by rollback: use --dry-run=client, or kubectl chart diff rollback to see what the server would make of it", methods: "ssa ssa"},
		"rollback --dry-run=later":            {setup: [][]string{install, {"upgrade", "web", "{chart}"}}, args: []string{"rollback", "web", "1", "--dry-run=later"}, err: `invalid dry-run value ("later"). Must be "none", "server", or "client"`, methods: "ssa ssa"},
		"rollback description too long":       {setup: [][]string{install, {"upgrade", "web", "{chart}"}}, args: []string{"rollback", "web", "1", "--description", strings.Repeat("é", 257)}, err: "description must be 256 characters or less, got 257", methods: "ssa ssa"},
		"rollback force flags exclusive":      {setup: [][]string{install, {"upgrade", "web", "{chart}"}}, args: []string{"rollback", "web", "--force-replace", "--force-conflicts"}, err: "if any flags in the group [force-replace force-conflicts] are set none of the others can be; [force-conflicts force-replace] were all set", methods: "ssa ssa"},
		"uninstall --wait=watcher":            {setup: [][]string{install}, args: []string{"uninstall", "web", "--wait=watcher"}},
		"uninstall --wait=bogus":              {setup: [][]string{install}, args: []string{"uninstall", "web", "--wait=bogus"}, err: `invalid argument "bogus" for "--wait" flag: invalid wait input "bogus". Valid inputs are watcher, hookOnly, and legacy`, methods: "ssa"},
		"upgrade --use-plan with server-side": {setup: [][]string{install}, args: []string{"upgrade", "web", "--use-plan", "x.plan", "--server-side=true"}, err: "--server-side cannot be used with --use-plan: the saved plan already decided it", methods: "ssa"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			chart := writeDemoChart(t)
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			expand := func(args []string) []string {
				out := append([]string(nil), args...)
				for i, a := range out {
					out[i] = strings.ReplaceAll(a, "{chart}", chart)
				}
				return out
			}
			for _, step := range tc.setup {
				if _, errOut, err := runLifecycle(t, f, expand(step)...); err != nil {
					t.Fatalf("setup %v: %v\n%s", step, err, errOut)
				}
			}
			_, errOut, err := runLifecycle(t, f, expand(tc.args)...)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("error %q, want %q", errString(err), tc.err)
				}
			} else if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			if got := applyMethods(t, f); got != tc.methods {
				t.Errorf("apply methods %q, want %q", got, tc.methods)
			}
		})
	}
}

func applyMethods(t *testing.T, f *testFactory) string {
	t.Helper()
	h, err := f.store.History(context.Background(), "default", "web")
	if err != nil {
		return ""
	}
	var out []string
	for _, r := range h.Sorted() {
		m := string(r.ApplyMethod)
		if m == "" {
			m = "-"
		}
		out = append(out, m)
	}
	return strings.Join(out, " ")
}

// history --show-rollback-revision adds Helm 4's ROLLBACK column; -o json
// carries rollback_revision on the revisions a rollback made, as Helm 4's.
func TestHistoryShowsRollbackRevision(t *testing.T) {
	chart := writeDemoChart(t)
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	for _, args := range [][]string{{"install", "web", chart}, {"upgrade", "web", chart}, {"rollback", "web", "1"}} {
		if _, errOut, err := runLifecycle(t, f, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
	}
	out, _, err := runLifecycle(t, f, "history", "web", "--show-rollback-revision")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "REVISION UPDATED STATUS CHART APP VERSION ROLLBACK DESCRIPTION" {
		t.Fatalf("history --show-rollback-revision:\n%s", out)
	}
	if f := strings.Fields(lines[3]); strings.Join(f[len(f)-5:], " ") != "1.0 1 Rollback to 1" {
		t.Errorf("rollback row: %q", lines[3])
	}
	if f := strings.Fields(lines[2]); strings.Join(f[len(f)-4:], " ") != "demo-0.1.0 1.0 Upgrade complete" {
		t.Errorf("upgrade row: %q", lines[2])
	}
	plain, _, err := runLifecycle(t, f, "history", "web")
	if err != nil || strings.Contains(plain, "ROLLBACK") {
		t.Errorf("history without the flag: %v\n%s", err, plain)
	}
	js, _, err := runLifecycle(t, f, "history", "web", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(js), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[2]["rollback_revision"] != float64(1) || rows[1]["rollback_revision"] != nil {
		t.Errorf("history -o json: %s", js)
	}
	rel, err := f.store.Get(context.Background(), "default", "web", 3)
	if err != nil || rel.Info.RollbackRevision != 1 || rel.Info.Status != release.StatusDeployed {
		t.Errorf("revision 3: %+v, %v", rel.Info, err)
	}
}

// TestHelm3DialectKnowsNoContentCache checks that in the Helm 3 dialect
// --content-cache fails as Helm 3's flag parsing does, before the command
// looks at its arguments, and that the Helm 4 dialect takes it.
func TestHelm3DialectKnowsNoContentCache(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	cache := filepath.Join(t.TempDir(), "content")
	cases := map[string]struct {
		args    []string
		wantErr string
	}{
		"too few arguments":       {args: []string{"template", "--compat", "helm3", "--content-cache", cache}, wantErr: "unknown flag: --content-cache"},
		"too many arguments":      {args: []string{"repo", "list", "extra", "--compat", "helm3", "--content-cache", cache}, wantErr: "unknown flag: --content-cache"},
		"a command of a command":  {args: []string{"show", "chart", "--compat", "helm3", "--content-cache", cache}, wantErr: "unknown flag: --content-cache"},
		"Helm 4's argument check": {args: []string{"template", "--compat", "helm4", "--content-cache", cache}, wantErr: `"kubectl chart template" requires at least 1 argument`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := runRoot(t, tc.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one starting %q", err, tc.wantErr)
			}
		})
	}
}
