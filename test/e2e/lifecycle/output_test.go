//go:build e2e

package lifecycle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
	"sigs.k8s.io/yaml"
)

// --json-events writes one event per line, ending with the result; a server
// dry run stores and changes nothing.
func TestJSONEventsAndDryRun(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	r := mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s", "--json-events")
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	types := map[string]int{}
	var last map[string]any
	for _, l := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		types[ev["type"].(string)]++
		last = ev
	}
	if types["applied"] != 6 || types["status"] == 0 || types["phase"] == 0 {
		t.Errorf("event types = %v", types)
	}
	if last["type"] != "result" || last["status"] != "deployed" || last["revision"] != float64(1) {
		t.Errorf("last event = %v", last)
	}

	// The chart's CRD exists now (as with Helm, a dry run does not create CRDs).
	dry := env.Namespace(t)
	r = mustRun(t, "install", "web", chart, "-n", dry, "--dry-run=server")
	if !strings.Contains(r.out, "STATUS: pending-install") || !strings.Contains(r.out, "\nHOOKS:\n") || !strings.Contains(r.out, "\nMANIFEST:\n") {
		t.Errorf("server dry run output:\n%s", r.out)
	}
	if exists(t, configMaps, dry, "web-demo") || !strings.Contains(statuses(t, dry, "web"), "not found") {
		t.Error("a dry run changed the cluster")
	}
}

// -o json and -o yaml print the release as Helm does: `upgrade --install ...
// -o json | jq .info.status` is "deployed" after the install and the upgrade.
func TestReleaseOutputIsHelms(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	for i, format := range []string{"json", "json", "yaml"} {
		r := mustRun(t, "upgrade", "--install", "web", chart, "-n", ns, "--set", fmt.Sprintf("n=%d", i), "-o", format)
		out := r.out
		if format == "yaml" {
			j, err := yaml.YAMLToJSON([]byte(out))
			if err != nil {
				t.Fatalf("-o yaml: %v\n%s", err, out)
			}
			out = string(j)
		}
		var rel struct {
			Name    string `json:"name"`
			Version int    `json:"version"`
			Info    struct {
				Status string `json:"status"`
			} `json:"info"`
		}
		if err := json.Unmarshal([]byte(out), &rel); err != nil {
			t.Fatalf("-o %s is not one release: %v\n%s", format, err, out)
		}
		if rel.Name != "web" || rel.Version != i+1 || rel.Info.Status != "deployed" {
			t.Errorf("-o %s: release %q revision %d status %q", format, rel.Name, rel.Version, rel.Info.Status)
		}
	}
}

// openPTY opens a pseudo-terminal: the master to read, the slave to hand to a
// command as its terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100}); err != nil {
		t.Fatalf("set pty size: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// On a terminal, progress is a live block redrawn in place (here: the
// Deployment that cannot become ready, and why); what stays on screen is the
// phases and their counts.
func TestTerminalProgress(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	master, slave := openPTY(t)
	cmd := exec.Command(bin(t), "install", "web", demoChart(t), "-n", ns, "--set", "stuck=true", "--wait", "--timeout", "4s")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig(), "KUBECTL_CHART_STORAGE=secret")
	cmd.Stdout, cmd.Stderr = io.Discard, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var tty bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(&tty, master) // ends with EIO once the slave is closed
	}()
	err := cmd.Wait()
	slave.Close()
	<-copied
	out := strings.ReplaceAll(tty.String(), "\r\n", "\n") // the terminal's newline translation
	if err == nil || !strings.Contains(out, "Error: INSTALLATION FAILED") {
		t.Fatalf("install of a Deployment that never becomes ready: %v\n%q", err, out)
	}
	if !strings.Contains(out, "waiting for 1 object(s):\n  Deployment "+ns+"/web-demo: ") || !strings.Contains(out, "\033[2A\r\033[J") {
		t.Errorf("no live block of what is not ready:\n%q", out)
	}
	if strings.Contains(out, "applied: ") {
		t.Errorf("a plain line per object on a terminal:\n%q", out)
	}
	if !strings.Contains(out, "applied 6 object(s)\n") || !strings.Contains(out, "waiting for") {
		t.Errorf("terminal output lacks the counts or the wait:\n%q", out)
	}
}
