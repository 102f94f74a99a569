//go:build e2e

package chaos

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

// hundred is the chart's value for 100 objects: 96 extra ConfigMaps, the
// main one, a ServiceAccount, a Service and a Deployment.
const hundred = "count=96"

// Install and upgrade of a 100-object chart through a proxy that fails one
// request in ten (500, 503, 429, connection resets, aborted streams, answers
// lost after the server acted) and delays others converge: each command
// succeeds on its own, with one revision per command.
func TestFaultProxy100Objects(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	rel := "proxied"
	px, err := cluster.StartFaultProxy(env.Config(), t.TempDir(), cluster.FaultProxyOptions{
		Seed: seed, Rate: 0.10, Latency: 0.2, MaxLatency: 150 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()

	commands := [][]string{{"upgrade", "--install", rel, chartDir(), "-n", ns, "--set", hundred + ",message=p0", "--wait", "--timeout", "3m", "--history-max", "0"}}
	for i := 1; i <= pick(2, 8); i++ {
		commands = append(commands, []string{"upgrade", rel, chartDir(), "-n", ns, "--set", fmt.Sprintf("%s,message=p%d", hundred, i), "--wait", "--timeout", "3m", "--history-max", "0"})
	}
	for i, args := range commands {
		before := history(t, ns, rel)
		r := run(t, px.Kubeconfig, shortLease, args...)
		var problems []string
		took := r.took
		if r.code != 0 {
			problems = append(problems, fmt.Sprintf("exit %d through the proxy: %s", r.code, firstLine(r.err)))
			// What a user would do: run it again (without faults), which must converge.
			px.Enable(false)
			_, _ = retryUntilOK(t, px.Kubeconfig, args...)
			px.Enable(true)
		}
		lost, rest := atRest(t, ns, rel, before, false)
		problems = append(problems, rest...)
		if h := history(t, ns, rel); len(h) != len(before)+1 && r.code == 0 {
			problems = append(problems, fmt.Sprintf("one command wrote %d revisions: %s -> %s", len(h)-len(before), brief(before), brief(h)))
		}
		want := fmt.Sprintf("p%d", i)
		cms, err := clientset(t).CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, cm := range cms.Items {
			if cm.Data["message"] == want {
				n++
			}
		}
		if n != 97 {
			problems = append(problems, fmt.Sprintf("%d ConfigMaps hold %q, want 97", n, want))
		}
		t.Logf("command %d: exit %d in %s; proxy %s", i, r.code, took.Round(10*time.Millisecond), px.StatsString())
		for _, p := range problems {
			t.Errorf("command %d (%s=%d): %s\nstderr:\n%s", i, seedEnv, seed, p, r.err)
		}
		op := "upgrade"
		if i == 0 {
			op = "install"
		}
		trial("fault proxy 10%: 100-object "+op, len(problems) == 0, took, lost)
	}
	noteText("fault proxy 10%: 100-object upgrade", px.StatsString())
}

// Half the answers to the writes of release records and of the lock (POST
// and PUT of Secrets and Leases in the release's namespace) are lost after
// the API server acted. Every command must still succeed on its own, taking
// an "already exists" or a conflict that its repeat meets for its own
// write: one revision per command, none failed, the lock released.
func TestLostRecordWrites(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	rel := "lost"
	px, err := cluster.StartFaultProxy(env.Config(), t.TempDir(), cluster.FaultProxyOptions{
		Seed: seed, Rate: 0.5, Faults: []cluster.Fault{cluster.FaultLostAnswer},
		Match: func(r *http.Request) bool {
			if r.Method != http.MethodPost && r.Method != http.MethodPut {
				return false
			}
			p := r.URL.Path
			return strings.Contains(p, "/namespaces/"+ns+"/secrets") || strings.Contains(p, "/namespaces/"+ns+"/leases")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	ops := []string{"install"}
	for range pick(3, 12) {
		ops = append(ops, "upgrade")
	}
	ops = append(ops, "rollback", "test", "uninstall")
	for i, op := range ops {
		args := opArgs(op, ns, rel, i)
		before := history(t, ns, rel)
		r := run(t, px.Kubeconfig, shortLease, args...)
		var problems []string
		if r.code != 0 {
			problems = append(problems, fmt.Sprintf("exit %d: %s", r.code, r.err))
			px.Enable(false)
			_, _ = retryUntilOK(t, px.Kubeconfig, args...)
			px.Enable(true)
		}
		gone := op == "uninstall"
		lost, rest := atRest(t, ns, rel, before, gone)
		problems = append(problems, rest...)
		h := history(t, ns, rel)
		grew := 1
		if op == "test" {
			grew = 0
		}
		if !gone && len(h) != len(before)+grew {
			problems = append(problems, fmt.Sprintf("history went from %s to %s", brief(before), brief(h)))
		}
		for _, x := range h {
			if x.Info.Status == "failed" {
				problems = append(problems, fmt.Sprintf("revision %d failed: %s", x.Version, x.Info.Description))
			}
		}
		for _, p := range problems {
			t.Errorf("command %d (%s=%d) %s: %s", i, seedEnv, seed, strings.Join(args, " "), p)
		}
		trial("lost answers to record and lock writes (50%)", len(problems) == 0, r.took, lost, op)
	}
	t.Logf("proxy: %s", px.DetailString())
	noteText("lost answers to record and lock writes (50%)", px.DetailString())
}
