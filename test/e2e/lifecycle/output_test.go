package lifecycle

import (
	"encoding/json"
	"strings"
	"testing"
)

// -o json writes one event per line, ending with the result; a server dry run
// stores and changes nothing.
func TestJSONEventsAndDryRun(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	r := mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s", "-o", "json")
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
	if !strings.Contains(r.out, "DESCRIPTION: Dry run complete") || !strings.Contains(r.out, "MANIFEST:") {
		t.Errorf("server dry run output:\n%s", r.out)
	}
	if exists(t, configMaps, dry, "web-demo") || !strings.Contains(statuses(t, dry, "web"), "not found") {
		t.Error("a dry run changed the cluster")
	}
}
