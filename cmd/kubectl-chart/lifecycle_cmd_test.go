package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

var updateLifecycleGoldens = flag.Bool("update", false, "rewrite testdata/lifecycle goldens by running each case with Helm v4.3.1 or v3.22.0 (hack/helm-peer.sh) on the cluster of $"+cluster.KubeconfigEnv)

// writeDemoChart writes a chart to a temporary directory: a ConfigMap, a
// Secret kept by its resource policy when .Values.keep, notes and a test pod.
func writeDemoChart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: demo\nversion: 0.1.0\nappVersion: \"1.0\"\n",
		"values.yaml": "greeting: hello\nkeep: false\n",
		"templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  greeting: {{ .Values.greeting | quote }}
`,
		"templates/kept.yaml": `{{- if .Values.keep }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-kept
  annotations:
    helm.sh/resource-policy: keep
stringData:
  token: abc
{{- end }}
`,
		"templates/NOTES.txt": "{{ .Release.Name }} says {{ .Values.greeting }}.\n",
		"templates/tests/test-greeting.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-test-greeting
  annotations:
    helm.sh/hook: test
spec:
  restartPolicy: Never
  containers:
  - name: test
    image: busybox
    command: ["true"]
`,
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runLifecycle runs one command line as the program does (flags parsed by
// cobra, then the command's Options: Complete, Validate, Run) with the
// adapters of f, which every run of a test shares, as successive processes
// share a cluster.
func runLifecycle(t *testing.T, f *testFactory, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runLifecycleAs(t, f, BuildInfo{Version: "test"}, args...)
}

// runLifecycleAs is runLifecycle of a binary built (and named) as build says.
func runLifecycleAs(t *testing.T, f *testFactory, build BuildInfo, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	flags := genericclioptions.NewConfigFlags(true)
	run := f.forFlags(t, flags)
	// Built for args, as main builds it: installed as helm, their --compat
	// decides which flags parse.
	cmd := buildRootCmd(flags, run, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, build, args)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// history returns the statuses of a release's revisions, oldest first.
func history(t *testing.T, f *testFactory, namespace, name string) []release.Status {
	t.Helper()
	h, err := f.store.History(context.Background(), namespace, name)
	if errors.Is(err, ports.ErrReleaseNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []release.Status
	for _, r := range h.Sorted() {
		out = append(out, r.Info.Status)
	}
	return out
}

func wantHistory(namespace, name string, want ...release.Status) func(*testing.T, *testFactory) {
	return func(t *testing.T, f *testFactory) {
		t.Helper()
		if got := history(t, f, namespace, name); !slices.Equal(got, want) {
			t.Errorf("history of %s/%s = %v, want %v", namespace, name, got, want)
		}
	}
}

func wantObjects(namespace string, want ...string) func(*testing.T, *testFactory) {
	return func(t *testing.T, f *testFactory) {
		t.Helper()
		var got []string
		for _, o := range f.cluster.Objects(memcluster.Selector{Namespace: namespace}) {
			if o.GetKind() != "Namespace" {
				got = append(got, o.GetKind()+"/"+o.GetName())
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("objects in %s = %v, want %v", namespace, got, want)
		}
	}
}

// TestLifecycleCommands runs install, upgrade, rollback, uninstall and test
// against in-memory adapters. A case runs its setup command lines, then its
// command line: an error must be Helm's words (-update checks them against
// Helm's, checkHelmError); the stdout and stderr of a success must be
// testdata/lifecycle/NAME.txt (and NAME.stderr.txt), what Helm printed for
// the same command lines on a real cluster (-update, writeLifecycleGolden).
// Both sides have their run-dependent bytes masked alike (maskLifecycle):
// Helm's times are the wall clock's, ours the fake clock's.
func TestLifecycleCommands(t *testing.T) {
	install := []string{"install", "web", "{chart}"}
	upgrade := []string{"upgrade", "web", "{chart}", "--set", "greeting=hi"}
	tests := map[string]struct {
		// asHelm runs the program as helm, where a flag the dialect's Helm lacks
		// is unknown. A success always runs as helm: its stdout and stderr
		// must be Helm's (as kubectl chart, progress goes to stderr).
		asHelm bool
		setup  [][]string
		args   []string
		// err is the whole error; empty for success, whose output is the golden.
		err string
		// notHelm says why -update cannot check err against Helm's.
		notHelm string
		check   func(*testing.T, *testFactory)
	}{
		"install": {
			args: install,
			check: func(t *testing.T, f *testFactory) {
				wantHistory("default", "web", release.StatusDeployed)(t, f)
				wantObjects("default", "ConfigMap/web-config")(t, f)
			},
		},
		"install-namespace-hide-notes": {
			args:  []string{"install", "web", "{chart}", "-n", "prod", "--hide-notes", "--description", "first"},
			check: wantHistory("prod", "web", release.StatusDeployed),
		},
		"install-generate-name": {
			args:  []string{"install", "{chart}", "--generate-name"},
			check: wantHistory("default", "demo-1767323045", release.StatusDeployed),
		},
		"install-dry-run": {
			args:  []string{"install", "web", "{chart}", "--dry-run"},
			check: func(t *testing.T, f *testFactory) { wantHistory("default", "web")(t, f); wantObjects("default")(t, f) },
		},
		"install name in use": {
			setup: [][]string{install},
			args:  install,
			err:   "INSTALLATION FAILED: release name check failed: cannot reuse a name that is still in use",
		},
		"install name in use, Helm 3": {
			setup: [][]string{install},
			args:  append(slices.Clone(install), "--compat", "helm3"),
			err:   "INSTALLATION FAILED: cannot re-use a name that is still in use",
		},
		"install without name": {
			args: []string{"install", "{chart}"},
			err:  "INSTALLATION FAILED: must either provide a name or specify --generate-name",
		},
		"install without arguments": {
			notHelm: "the usage names kubectl chart",
			args:    []string{"install"},
			err:     "\"kubectl chart install\" requires at least 1 argument\n\nUsage:  kubectl chart install [NAME] [CHART] [flags]",
		},
		"install missing chart": {
			args: []string{"install", "web", "./no-such-chart"},
			err:  `INSTALLATION FAILED: path "./no-such-chart" not found`,
		},
		"install bad dry-run": {
			args: []string{"install", "web", "{chart}", "--dry-run=later"},
			err:  `invalid dry-run value ("later"). Must be "none", "server", or "client"`,
		},
		"install bad dry-run, helm3": {
			args: []string{"install", "web", "{chart}", "--dry-run=later", "--compat", "helm3"},
			err:  "INSTALLATION FAILED: Invalid dry-run flag. Flag must one of the following: false, true, none, client, server",
		},
		"install bad dry-run after the values, helm3": {
			args: []string{"install", "web", "{chart}", "--dry-run=later", "-f", "no-such-values.yaml", "--compat", "helm3"},
			err:  "INSTALLATION FAILED: open no-such-values.yaml: no such file or directory",
		},
		"install --rollback-on-failure, helm3": {
			asHelm: true,
			args:   []string{"install", "web", "{chart}", "--rollback-on-failure", "--compat", "helm3"},
			err:    "unknown flag: --rollback-on-failure",
		},
		"a missing chart before missing values": {
			args: []string{"install", "web", "./no-such-chart", "-f", "no-such-values.yaml"},
			err:  `INSTALLATION FAILED: path "./no-such-chart" not found`,
		},
		"upgrade --install of an invalid name, in the history's words": {
			args: []string{"upgrade", "Bad_Name", "{chart}", "--install"},
			err:  "release name is invalid: Bad_Name",
		},
		"upgrade of an invalid name finds the chart first": {
			args: []string{"upgrade", "Bad_Name", "./no-such-chart"},
			err:  `path "./no-such-chart" not found`,
		},
		"errors in command-line order, helm3": {
			asHelm: true,
			args:   []string{"install", "web", "{chart}", "-o", "bogus", "--rollback-on-failure", "--compat", "helm3"},
			err:    `invalid argument "bogus" for "-o, --output" flag: invalid format type`,
		},
		"status --show-desc, helm4": {
			asHelm: true,
			setup:  [][]string{install},
			args:   []string{"status", "web", "--show-desc"},
			err:    "unknown flag: --show-desc",
		},
		"upgrade --force-replace, helm3": {
			asHelm: true,
			setup:  [][]string{install},
			args:   []string{"upgrade", "web", "{chart}", "--force-replace", "--compat", "helm3"},
			err:    "unknown flag: --force-replace",
		},
		"install bad output": {
			args: []string{"install", "web", "{chart}", "-o", "wide"},
			err:  `invalid argument "wide" for "-o, --output" flag: invalid format type`,
		},
		"install bad storage": {
			notHelm: "Helm has no --storage",
			args:    []string{"install", "web", "{chart}", "--storage", "etcd"},
			err:     `INSTALLATION FAILED: invalid --storage "etcd": want secret, configmap, bbolt, memory or sql`,
		},
		"install locked": {
			notHelm: "Helm has no release locks",
			setup:   [][]string{{"lock", "default", "web"}},
			args:    install,
			err:     `release default/web is locked by other@elsewhere (pid 7, "", since 0001-01-01T00:00:00Z); the lock expires at 2026-01-02T03:05:05Z unless renewed`,
		},
		"upgrade": {
			setup: [][]string{install},
			args:  upgrade,
			check: wantHistory("default", "web", release.StatusSuperseded, release.StatusDeployed),
		},
		"upgrade-install": {
			args:  []string{"upgrade", "--install", "web", "{chart}"},
			check: wantHistory("default", "web", release.StatusDeployed),
		},
		"upgrade missing release": {
			args: upgrade,
			err:  `UPGRADE FAILED: "web" has no deployed releases`,
		},
		"upgrade one argument": {
			notHelm: "the usage names kubectl chart",
			args:    []string{"upgrade", "web"},
			err:     "\"kubectl chart upgrade\" requires 2 arguments\n\nUsage:  kubectl chart upgrade NAME CHART [flags]",
		},
		// As Helm, a negative maximum keeps every revision, as 0 does.
		"upgrade-history-max-negative": {
			setup: [][]string{install},
			args:  []string{"upgrade", "web", "{chart}", "--history-max", "-1"},
			check: wantHistory("default", "web", release.StatusSuperseded, release.StatusDeployed),
		},
		"rollback": {
			setup: [][]string{install, upgrade},
			args:  []string{"rollback", "web"},
			check: wantHistory("default", "web", release.StatusSuperseded, release.StatusSuperseded, release.StatusDeployed),
		},
		"rollback missing revision": {
			setup: [][]string{install, upgrade},
			args:  []string{"rollback", "web", "7"},
			err:   "release has no 7 version",
			check: wantHistory("default", "web", release.StatusSuperseded, release.StatusDeployed),
		},
		"rollback revision not a number": {
			setup: [][]string{install},
			args:  []string{"rollback", "web", "last"},
			err:   `could not convert revision to a number: strconv.Atoi: parsing "last": invalid syntax`,
		},
		"rollback too many arguments": {
			notHelm: "the usage names kubectl chart",
			args:    []string{"rollback", "web", "1", "2"},
			err:     "\"kubectl chart rollback\" accepts at most 2 arguments\n\nUsage:  kubectl chart rollback <RELEASE> [REVISION] [flags]",
		},
		"uninstall": {
			setup: [][]string{install},
			args:  []string{"uninstall", "web"},
			check: func(t *testing.T, f *testFactory) { wantHistory("default", "web")(t, f); wantObjects("default")(t, f) },
		},
		"uninstall-keep-history": {
			setup: [][]string{install, upgrade},
			args:  []string{"uninstall", "web", "--keep-history"},
			check: func(t *testing.T, f *testFactory) {
				wantHistory("default", "web", release.StatusSuperseded, release.StatusUninstalled)(t, f)
				wantObjects("default")(t, f)
			},
		},
		"uninstall-kept-resources": {
			setup: [][]string{{"install", "web", "{chart}", "--set", "keep=true"}},
			args:  []string{"uninstall", "web"},
			check: wantObjects("default", "Secret/web-kept"),
		},
		"uninstall-ignore-not-found": {
			setup: [][]string{install},
			args:  []string{"uninstall", "web", "gone", "--ignore-not-found"},
		},
		"uninstall missing release": {
			args: []string{"uninstall", "web"},
			err:  "uninstall: Release not loaded: web: release: not found",
		},
		"uninstall bad cascade": {
			setup: [][]string{install},
			args:  []string{"uninstall", "web", "--cascade", "sideways"},
			err:   `invalid cascade value (sideways). Must be "background", "foreground", or "orphan"`,
			check: wantHistory("default", "web", release.StatusDeployed),
		},
		"test": {
			setup: [][]string{install},
			args:  []string{"test", "web"},
		},
		"test-logs": {
			setup: [][]string{install, {"podlog", "default", "web-test-greeting", cluster.PodLogLine + "\n"}},
			args:  []string{"test", "web", "--logs"},
		},
		"test-logs-helm3": {
			setup: [][]string{install, {"podlog", "default", "web-test-greeting", cluster.PodLogLine + "\n"}},
			args:  []string{"test", "web", "--logs", "--hide-notes", "--compat", "helm3"},
		},
		"test-helm3": {
			setup: [][]string{install},
			args:  []string{"test", "web", "--compat", "helm3"},
		},
		"test hide-notes, Helm 4": {
			setup: [][]string{install},
			args:  []string{"test", "web", "--hide-notes"},
			err:   "unknown flag: --hide-notes",
		},
		"test failing": {
			notHelm: "the pod fails in our fake cluster alone",
			setup:   [][]string{install, {"fail", "Pod", "web-test-greeting"}},
			args:    []string{"test", "web"},
			// Helm says "1 error occurred:\n\t* pod web-test-greeting failed".
			err: "test hook demo/templates/tests/test-greeting.yaml failed: Pod default/web-test-greeting: pod failed: Error",
		},
		"test missing release": {
			args: []string{"test", "web"},
			err:  "release: not found",
		},
		"test two arguments": {
			notHelm: "the usage names kubectl chart",
			args:    []string{"test", "web", "api"},
			err:     "\"kubectl chart test\" requires 1 argument\n\nUsage:  kubectl chart test NAME [flags]",
		},
	}
	var helm *helmCluster
	if *updateLifecycleGoldens {
		helm = newHelmCluster(t, "-update")
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			chart := writeDemoChart(t)
			golden := filepath.Join("testdata", "lifecycle", name+".txt")
			switch {
			case helm == nil || tc.notHelm != "":
			case tc.err == "":
				writeLifecycleGolden(t, helm, chart, tc.setup, tc.args, golden)
			default:
				checkHelmError(t, helm, chart, tc.setup, tc.args, tc.err)
			}
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			expand := func(args []string) []string {
				out := slices.Clone(args)
				for i, a := range out {
					out[i] = strings.ReplaceAll(a, "{chart}", chart)
				}
				return out
			}
			for _, step := range tc.setup {
				switch step[0] {
				case "lock":
					if _, err := f.locker.Acquire(context.Background(), step[1], step[2], ports.LockHolder{User: "other", Host: "elsewhere", PID: 7}); err != nil {
						t.Fatal(err)
					}
				case "podlog":
					f.cluster.SetPodLog(step[1], step[2], step[3])
				case "fail":
					f.cluster.SetState(memcluster.Selector{Kind: step[1], Name: step[2]}, memcluster.Failed, "")
				default:
					if _, errOut, err := runLifecycle(t, f, expand(step)...); err != nil {
						t.Fatalf("setup %v: %v\n%s", step, err, errOut)
					}
				}
			}
			out, errOut, err := runLifecycleAs(t, f, BuildInfo{Version: "test", AsHelm: tc.asHelm || tc.err == ""}, expand(tc.args)...)
			out = strings.ReplaceAll(out, chart, "CHART")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("%v: error %q, want %q", tc.args, errString(err), tc.err)
				}
			} else {
				if err != nil {
					t.Fatalf("%v: %v\n%s", tc.args, err, errOut)
				}
				want, wantErr := readHelmOutput(t, golden, "-update")
				if got := maskLifecycle(out); got != want {
					t.Errorf("%v output differs from Helm's %s:\n got:\n%s\nwant:\n%s", tc.args, golden, got, want)
				}
				if got := maskLifecycle(strings.ReplaceAll(errOut, chart, "CHART")); got != wantErr {
					t.Errorf("%v stderr differs from Helm's:\n got:\n%s\nwant:\n%s", tc.args, got, wantErr)
				}
			}
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}

// writeLifecycleGolden runs a case on Helm (helmLifecycle) and writes what
// its command line printed, masked, as the case's golden.
func writeLifecycleGolden(t *testing.T, h *helmCluster, chart string, setup [][]string, args []string, golden string) {
	t.Helper()
	r, expand := helmLifecycle(t, h, chart, setup, args)
	out, errOut := r.run(t, expand(args)...)
	mask := func(s string) string { return maskLifecycle(r.caseNames(strings.ReplaceAll(s, chart, "CHART"))) }
	writeHelmOutput(t, golden, mask(out), mask(errOut))
}

// checkHelmError runs a failing case on Helm (helmLifecycle): its command
// line must fail with the error the case wants.
func checkHelmError(t *testing.T, h *helmCluster, chart string, setup [][]string, args []string, want string) {
	t.Helper()
	r, expand := helmLifecycle(t, h, chart, setup, args)
	if got := r.caseNames(strings.ReplaceAll(r.fail(t, expand(args)...), chart, "CHART")); got != want {
		t.Errorf("helm %v: error %q; the case wants %q", args, got, want)
	}
}

// helmLifecycle runs a case's setup with the Helm of its dialect in a
// namespace of its own and returns the run and how its command lines read
// for Helm. Setup steps that drive our fakes have no Helm counterpart but
// podlog, which the cluster does itself: kwok serves cluster.PodLogLine as
// every container's log.
func helmLifecycle(t *testing.T, h *helmCluster, chart string, setup [][]string, args []string) (*helmRun, func([]string) []string) {
	t.Helper()
	d, _ := helmArgs(args)
	r := h.newRun(t, d, "default")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.completePods(ctx, t) }()
	t.Cleanup(func() { cancel(); <-done })
	expand := func(args []string) []string {
		out := slices.Clone(args)
		for i, a := range out {
			out[i] = strings.ReplaceAll(a, "{chart}", chart)
		}
		return r.args(t, out)
	}
	for _, step := range setup {
		switch step[0] {
		case "podlog":
		case "lock", "fail":
			t.Fatalf("setup %v has no Helm counterpart: the case must say why it is notHelm", step)
		default:
			r.run(t, expand(step)...)
		}
	}
	return r, expand
}

// lifecycleVolatile are the bytes of a release command's output that depend
// on the run: times (time.ANSIC: LAST DEPLOYED, a test's Last Started) and
// the names --generate-name makes of the chart's directory and the time.
var lifecycleVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}`), "<time>"},
	{regexp.MustCompile(`\bdemo-\d{10}\b`), "demo-<generated>"},
}

// maskLifecycle replaces the volatile bytes of an output by placeholders, in
// Helm's output and in ours alike.
func maskLifecycle(text string) string {
	for _, v := range lifecycleVolatile {
		text = v.re.ReplaceAllString(text, v.with)
	}
	return text
}

// --json-events is ours (Helm has no such flag), so no Helm golden: the test
// asserts the events an install prints, one JSON object a line.
func TestLifecycleJSONEvents(t *testing.T) {
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	out, errOut, err := runLifecycle(t, f, "install", "web", writeDemoChart(t), "--json-events")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	type event struct {
		Time, Type, Message, Object, Description, Namespace, Release, Status string
		Revision                                                             int
	}
	want := []event{
		{Time: "2026-01-02T03:04:05Z", Type: "phase", Message: "installing web revision 1 (1 objects)"},
		{Time: "2026-01-02T03:04:05Z", Type: "applied", Object: "ConfigMap default/web-config"},
		{Type: "result", Description: "Install complete", Namespace: "default", Release: "web", Revision: 1, Status: "deployed"},
	}
	var got []event
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var e event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, e)
	}
	if !slices.Equal(got, want) {
		t.Errorf("events\n%+v\nwant\n%+v", got, want)
	}
	wantHistory("default", "web", release.StatusDeployed)(t, f)
}

// lifecycleOptions are the Options of the release commands, as their RunE
// drives them.
type lifecycleOptions interface {
	Complete(f Factory, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// TestLifecycleOptions drives the commands' Options without cobra: flags
// parsed into the Options' own flag set, then Complete, Validate and Run.
func TestLifecycleOptions(t *testing.T) {
	type newOptions func(f Factory, streams genericiooptions.IOStreams) (lifecycleOptions, *pflag.FlagSet)
	flagSet := func() *pflag.FlagSet { return pflag.NewFlagSet("test", pflag.ContinueOnError) }
	install := func(f Factory, streams genericiooptions.IOStreams) (lifecycleOptions, *pflag.FlagSet) {
		o := &InstallOptions{IOStreams: streams}
		cmd := &cobra.Command{Use: "install"}
		o.AddFlags(cmd, f, streams)
		o.addInstallFlags(cmd.Flags())
		return o, cmd.Flags()
	}
	upgrade := func(f Factory, streams genericiooptions.IOStreams) (lifecycleOptions, *pflag.FlagSet) {
		o := &UpgradeOptions{IOStreams: streams}
		cmd := &cobra.Command{Use: "upgrade"}
		o.AddFlags(cmd, f, streams)
		o.addUpgradeFlags(cmd.Flags())
		return o, cmd.Flags()
	}
	rollback := func(f Factory, streams genericiooptions.IOStreams) (lifecycleOptions, *pflag.FlagSet) {
		o, fs := &RollbackOptions{IOStreams: streams}, flagSet()
		o.AddFlags(fs, f)
		return o, fs
	}
	uninstall := func(f Factory, streams genericiooptions.IOStreams) (lifecycleOptions, *pflag.FlagSet) {
		o, fs := &UninstallOptions{IOStreams: streams}, flagSet()
		o.AddFlags(fs, f)
		return o, fs
	}
	test := func(f Factory, streams genericiooptions.IOStreams) (lifecycleOptions, *pflag.FlagSet) {
		o, fs := &TestOptions{IOStreams: streams}, flagSet()
		o.AddFlags(fs, f)
		return o, fs
	}
	type step struct {
		options newOptions
		args    []string
		// err is the whole error of Complete, Validate or Run; stdout the start of the output.
		err, stdout string
	}
	tests := map[string][]step{
		"install, upgrade, rollback, test, uninstall": {
			{options: install, args: []string{"web", "{chart}"}, stdout: "NAME: web\n"},
			{options: upgrade, args: []string{"web", "{chart}", "--set", "greeting=hi"}, stdout: "Release \"web\" has been upgraded. Happy Helming!\n"},
			{options: rollback, args: []string{"web", "1"}, stdout: "Rollback was a success! Happy Helming!\n"},
			{options: test, args: []string{"web"}, stdout: "NAME: web\n"},
			{options: uninstall, args: []string{"web"}, stdout: "release \"web\" uninstalled\n"},
		},
		"install with a bad output":          {{options: install, args: []string{"web", "{chart}", "-o", "wide"}, err: `invalid argument "wide" for "-o, --output" flag: invalid format type`}},
		"install a bad release name":         {{options: install, args: []string{"Web_1", "{chart}"}, err: `INSTALLATION FAILED: release name check failed: release name "Web_1": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53`}},
		"install a bad release name, Helm 3": {{options: install, args: []string{"Web_1", "{chart}", "--compat", "helm3"}, err: `INSTALLATION FAILED: release name "Web_1": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53`}},
		"upgrade a bad storage":              {{options: upgrade, args: []string{"web", "{chart}", "--storage", "etcd"}, err: `invalid --storage "etcd": want secret, configmap, bbolt, memory or sql`}},
		"rollback a bad revision":            {{options: rollback, args: []string{"web", "--", "-1"}, err: `could not convert revision to a number: "-1"`}},
		"rollback a missing release":         {{options: rollback, args: []string{"web"}, err: "release: not found"}},
		"uninstall a bad cascade":            {{options: uninstall, args: []string{"web", "--cascade", "all"}, err: `invalid cascade value (all). Must be "background", "foreground", or "orphan"`}},
		"test with a bad output":             {{options: test, args: []string{"web", "-o", "wide"}, err: `invalid argument "wide" for "-o, --output" flag: invalid format type`}},
		"events and -o json":                 {{options: install, args: []string{"web", "{chart}", "-o", "json", "--json-events"}, err: `--json-events and -o json both print on stdout: choose one`}},
	}
	for name, steps := range tests {
		t.Run(name, func(t *testing.T) {
			chart := writeDemoChart(t)
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			for _, s := range steps {
				streams, _, out, errOut := genericiooptions.NewTestIOStreams()
				o, fs := s.options(f, streams)
				args := slices.Clone(s.args)
				for i, a := range args {
					args[i] = strings.ReplaceAll(a, "{chart}", chart)
				}
				if err := fs.Parse(args); err != nil {
					t.Fatal(err)
				}
				err := o.Complete(f, fs.Args())
				if err == nil {
					err = o.Validate()
				}
				if err == nil {
					err = o.Run(context.Background())
				}
				if s.err != "" {
					if err == nil || err.Error() != s.err {
						t.Fatalf("%v: error %q, want %q", s.args, errString(err), s.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%v: %v\n%s", s.args, err, errOut)
				}
				if !strings.HasPrefix(out.String(), s.stdout) {
					t.Errorf("%v: output\n%s\nwant it to start with\n%s", s.args, out, s.stdout)
				}
			}
		})
	}
}

// Both Helms read rollback's revision before the dry run: a revision that is
// not a number fails before Helm 4 warns of a bare --dry-run.
func TestRollbackRevisionBeforeDryRunWarning(t *testing.T) {
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	_, errOut, err := runLifecycleAs(t, f, BuildInfo{Version: "test", AsHelm: true}, "rollback", "web", "x", "--dry-run")
	if want := `could not convert revision to a number: strconv.Atoi: parsing "x": invalid syntax`; err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", errString(err), want)
	}
	if errOut != "" {
		t.Errorf("stderr %q, want none", errOut)
	}
}
