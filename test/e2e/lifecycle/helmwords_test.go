//go:build e2e

package lifecycle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// speaker is one program, as one Helm, with a namespace of its own.
type speaker struct {
	name string
	bin  string
	env  []string
	ns   string
}

// say runs a command line in the speaker's namespace.
func (s speaker) say(t *testing.T, args ...string) result {
	t.Helper()
	return runAs(t, s.bin, s.env, append(append([]string(nil), args...), "-n", s.ns)...)
}

// pair is a Helm and we in its dialect.
type pair struct{ helm, us speaker }

// helmWordsChart is the chart every command line runs on.
func helmWordsChart(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "helmwords")
}

// speakers returns each Helm and we in its dialect (through a link named
// helm, as tools run us), every one with a namespace and homes of its own,
// keeping records in the storage driver.
func speakers(t *testing.T, driver string) []pair {
	t.Helper()
	link := filepath.Join(t.TempDir(), "helm")
	if err := os.Symlink(bin(t), link); err != nil {
		t.Fatal(err)
	}
	homes := func() []string {
		return []string{"HELM_CACHE_HOME=" + t.TempDir(), "HELM_CONFIG_HOME=" + t.TempDir(), "HELM_DATA_HOME=" + t.TempDir()}
	}
	common := []string{"KUBECONFIG=" + env.Kubeconfig(), "HELM_DRIVER=" + driver, "KUBECTL_CHART_STORAGE=" + driver, "NO_COLOR=1"}
	var pairs []pair
	for _, v := range []struct{ helm, compat string }{{"v4.3.1", "helm4"}, {"v3.22.0", "helm3"}} {
		pairs = append(pairs, pair{
			helm: speaker{name: "helm " + v.helm, bin: helmPeerVersion(t, v.helm), env: append(append([]string(nil), common...), homes()...), ns: env.Namespace(t)},
			us:   speaker{name: "kubectl-chart " + v.compat, bin: link, env: append(append(append([]string(nil), common...), homes()...), "KUBECTL_CHART_COMPAT="+v.compat), ns: env.Namespace(t)},
		})
	}
	return pairs
}

var (
	// wordsTimes are the moments output carries.
	wordsTimes = regexp.MustCompile(`(?m)^((?:LAST DEPLOYED|Last Started|Last Completed|DEPLOYED_AT): *).+$|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)|(?:^|\s)time=\S+ |[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}|\b(?:createdAt|modifiedAt)=\d+`)
	// wordsOurName is this program's name where Helm says its own.
	wordsOurName = regexp.MustCompile(`kubectl[- ]chart`)
)

// wordsOf is what a speaker said, its namespace, its name and the moments
// masked.
func wordsOf(s speaker, text string) string {
	text = strings.ReplaceAll(text, s.ns, "NAMESPACE")
	text = wordsOurName.ReplaceAllString(text, "helm")
	return wordsTimes.ReplaceAllStringFunc(text, func(m string) string {
		if sub := wordsTimes.FindStringSubmatch(m); sub[1] != "" {
			return sub[1] + "TIME"
		}
		if k, _, ok := strings.Cut(m, "At="); ok {
			return k + "At=TIME"
		}
		if strings.Contains(m, "time=") {
			return strings.Replace(m, m[strings.Index(m, "time="):], "", 1)
		}
		return "TIME"
	})
}

// stderrLines are the lines of stderr, compared whole: installed as helm,
// we print no progress on a stderr that is not a terminal.
func stderrLines(s speaker, text string) []string {
	return strings.Split(strings.TrimSuffix(wordsOf(s, text), "\n"), "\n")
}

// sameWords runs a command line with each speaker of a pair and reports
// where we do not say what Helm says.
func sameWords(t *testing.T, p pair, args ...string) {
	t.Helper()
	var h, u result
	var wg sync.WaitGroup
	wg.Go(func() { h = p.helm.say(t, args...) })
	wg.Go(func() { u = p.us.say(t, args...) })
	wg.Wait()
	line := strings.Join(args, " ")
	if h.code != u.code {
		t.Errorf("%s: exit status %d, %s's %d\nstderr: %s\n%s's stderr: %s", line, u.code, p.helm.name, h.code, u.err, p.helm.name, h.err)
	}
	if ho, uo := wordsOf(p.helm, h.out), wordsOf(p.us, u.out); ho != uo {
		t.Errorf("%s: stdout differs from %s's\n%s:\n%s\nkubectl-chart:\n%s", line, p.helm.name, p.helm.name, ho, uo)
	}
	if he, ue := stderrLines(p.helm, h.err), stderrLines(p.us, u.err); strings.Join(he, "\n") != strings.Join(ue, "\n") {
		t.Errorf("%s: stderr differs from %s's\n%s:\n%s\nkubectl-chart:\n%s", line, p.helm.name, p.helm.name, strings.Join(he, "\n"), strings.Join(ue, "\n"))
	}
}

// Failing and normal release commands say what each Helm says: stdout,
// stderr and exit status, on the same chart, for the same sequence.
func TestReleaseCommandsInHelmsWords(t *testing.T) {
	t.Parallel()
	chart := helmWordsChart(t)
	for _, p := range speakers(t, "secret") {
		t.Run(p.helm.name, func(t *testing.T) {
			t.Parallel()
			say := func(args ...string) { t.Helper(); sameWords(t, p, args...) }
			// A release that does not exist, and a name no release can have.
			for _, name := range []string{"web", "Bad_Name"} {
				say("status", name)
				say("history", name)
				for _, part := range []string{"all", "values", "manifest", "notes", "hooks", "metadata"} {
					say("get", part, name)
				}
				say("uninstall", name)
				say("upgrade", name, chart)
				say("rollback", name, "1")
				say("test", name)
			}
			say("install", "Bad_Name", chart)
			say("install", "web", chart, "--hide-secret")
			say("install", "hooked", chart, "--set", "hookFail=true")

			say("install", "web", chart)
			say("install", "web", chart)
			say("status", "web", "--revision", "9")
			say("get", "values", "web", "--revision", "9")
			say("rollback", "web", "9")
			say("history", "web")
			for _, part := range []string{"values", "manifest", "notes", "hooks", "metadata"} {
				say("get", part, "web")
			}
			say("get", "metadata", "web", "--revision", "1")

			// Tests: passing, filtered, with logs, failing, timing out.
			say("test", "web")
			say("test", "web", "--hide-notes")
			say("test", "web", "--filter", "name=web-ok")
			say("test", "web", "--filter", "!name=web-ok")
			say("test", "web", "--filter", "other=x")
			say("test", "web", "--logs")
			say("upgrade", "web", chart, "--set", "testFail=true")
			say("test", "web")
			say("test", "web", "--filter", "!name=web-bad")
			say("upgrade", "web", chart, "--set", "podTest=true")
			// Once only: a run right after another races the deletion of
			// the last run's pod (Helm 3 then finds no pod to read).
			say("test", "web", "--filter", "name=web-pod", "--timeout", "2s", "--logs")

			// A failing hook, then refused applies: an invalid field, an
			// immutable one.
			say("upgrade", "web", chart, "--set", "hookFail=true")
			say("upgrade", "web", chart, "--set", "containerName=Bad_Name")
			say("upgrade", "web", chart, "--set", "selector=other")
			say("rollback", "web", "1")
			// A rollback the API server refuses: the revision rolled back
			// to selects other pods than the live Deployment, which a
			// later upgrade created anew.
			for _, s := range []speaker{p.helm, p.us} {
				deleteDeployment(t, s.ns, "web-web")
			}
			say("upgrade", "web", chart, "--set", "selector=other")
			say("rollback", "web")
			// Each failure recorded in the revision's description.
			say("history", "web")
			say("uninstall", "web", "--keep-history")
			say("status", "web")
			say("uninstall", "web", "--keep-history")
			say("install", "web", chart)
			say("uninstall", "web")
			// An object another release took over is left (Helm 4 warns).
			say("install", "given", chart)
			for _, s := range []speaker{p.helm, p.us} {
				giveAway(t, s.ns, "given-settings")
			}
			say("uninstall", "given")
			say("install", "failed", chart, "--set", "containerName=Bad_Name")
		})
	}
}

// deleteDeployment deletes a Deployment behind the release's back.
func deleteDeployment(t *testing.T, ns, name string) {
	t.Helper()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := client.AppsV1().Deployments(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// giveAway makes a ConfigMap another release's, as a takeover would.
func giveAway(t *testing.T, ns, name string) {
	t.Helper()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	patch := []byte(`{"metadata":{"annotations":{"meta.helm.sh/release-name":"other"}}}`)
	if _, err := client.CoreV1().ConfigMaps(ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// recordShape is a release record as a tool reading the cluster sees it:
// its type, labels and annotations (less our own), the moments masked.
func recordShape(t *testing.T, driver, ns string) []string {
	t.Helper()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := metav1.ListOptions{LabelSelector: "owner=helm"}
	type object struct {
		name, typ      string
		labels, annots map[string]string
	}
	var objs []object
	if driver == "configmap" {
		list, err := client.CoreV1().ConfigMaps(ns).List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list.Items {
			objs = append(objs, object{o.Name, "", o.Labels, o.Annotations})
		}
	} else {
		list, err := client.CoreV1().Secrets(ns).List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list.Items {
			objs = append(objs, object{o.Name, string(o.Type), o.Labels, o.Annotations})
		}
	}
	var out []string
	for _, o := range objs {
		var kv []string
		for k, v := range o.labels {
			if k == "createdAt" || k == "modifiedAt" {
				v = "T"
			}
			kv = append(kv, k+"="+v)
		}
		for k := range o.annots {
			// Ours, which Helm leaves alone and drops when it rewrites a
			// record (the summary that lets list skip the payload).
			if !strings.HasPrefix(k, "kubectl-chart.dev/") {
				kv = append(kv, "annotation "+k)
			}
		}
		sort.Strings(kv)
		out = append(out, fmt.Sprintf("%s type=%q %s", o.name, o.typ, strings.Join(kv, ",")))
	}
	sort.Strings(out)
	return out
}

// The records each step leaves carry the labels and type each Helm's do:
// after install, upgrade, rollback, test, uninstall --keep-history and a
// failed install, in Secrets and in ConfigMaps.
func TestRecordsAsHelmWritesThem(t *testing.T) {
	t.Parallel()
	chart := helmWordsChart(t)
	for _, driver := range []string{"secret", "configmap"} {
		for _, p := range speakers(t, driver) {
			t.Run(driver+"/"+p.helm.name, func(t *testing.T) {
				t.Parallel()
				for _, step := range [][]string{
					{"install", "web", chart, "--labels", "team=payments"},
					{"upgrade", "web", chart, "--set", "replicas=2"},
					{"rollback", "web", "1"},
					{"test", "web"},
					{"uninstall", "web", "--keep-history"},
					{"install", "failed", chart, "--set", "containerName=Bad_Name"},
				} {
					var wg sync.WaitGroup
					wg.Go(func() { p.helm.say(t, step...) })
					wg.Go(func() { p.us.say(t, step...) })
					wg.Wait()
					h, u := recordShape(t, driver, p.helm.ns), recordShape(t, driver, p.us.ns)
					if strings.Join(h, "\n") != strings.Join(u, "\n") {
						t.Errorf("after %s: records differ from %s's\n%s:\n%s\nkubectl-chart:\n%s", strings.Join(step, " "), p.helm.name, p.helm.name, strings.Join(h, "\n"), strings.Join(u, "\n"))
					}
				}
			})
		}
	}
}
