//go:build e2e

package lifecycle

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Masks for what must differ between two namespaces and two runs.
var (
	// ANSIC times keep their width (24 characters).
	ansicTime = regexp.MustCompile(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d \d{4}\b`)
	// RFC 3339 times, in JSON and YAML.
	rfc3339Time = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	// list's default UPDATED (time.Time's String): its width varies.
	listTime = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} ([A-Z]{3,5}|[+-]\d{4})`)
	// Live values in status's resource tables.
	podName   = regexp.MustCompile(`web-demo-[a-z0-9]+-[a-z0-9]{5}\b`)
	clusterIP = regexp.MustCompile(`\b\d+\.\d+\.\d+\.\d+\b`)
	lastCell  = regexp.MustCompile(`(?m)\S+$`)
	spaces    = regexp.MustCompile(` {2,}`)
)

// The tables of list, history and status (and their JSON and YAML), as each
// Helm prints them, byte for byte: the same releases made by Helm v4.3.1 and
// v3.22.0 in one namespace and by us, in the dialect, in another, then read
// back by each. Times and namespaces are masked; list's default times vary in
// width, so that table is compared cell by cell, with each of our columns
// padded to one width; status's live resources are compared kind by kind
// (Helm goes through the kinds in no set order), without their ages, and
// with the spacing of kinds whose cells vary (addresses, pods, readiness)
// collapsed.
func TestTablesMatchHelm(t *testing.T) {
	t.Parallel()
	chart := demoChart(t)
	for _, tc := range []struct{ dialect, version string }{{"helm4", "v4.3.1"}, {"helm3", "v3.22.0"}} {
		t.Run(tc.dialect, func(t *testing.T) {
			t.Parallel()
			helm := helmPeerVersion(t, tc.version)
			theirs, ours := env.Namespace(t), env.Namespace(t)
			compat := []string{"KUBECTL_CHART_COMPAT=" + tc.dialect}
			for _, step := range [][]string{
				{"install", "web", chart, "--set", "extraConfig=true", "--wait", "--timeout", "90s"},
				{"upgrade", "web", chart, "--set", "extraConfig=true,widget.size=5"},
				{"rollback", "web", "1"},
				{"install", "a-longer-name-" + tc.dialect, chart, "--set", "replicaCount=0,legacyConfig=false"},
				{"install", "gone", chart, "--set", "replicaCount=0"},
				{"uninstall", "gone", "--keep-history"},
			} {
				runHelm(t, helm, append(step, "-n", theirs)...)
				if r := run(t, compat, append(step, "-n", ours)...); r.code != 0 {
					t.Fatalf("%v: exit %d\n%s", step, r.code, r.err)
				}
			}
			read := func(args ...string) (helmOut, ourOut string) {
				t.Helper()
				helmOut = runHelm(t, helm, append(args, "-n", theirs)...)
				r := run(t, compat, append(args, "-n", ours)...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d\n%s", args, r.code, r.err)
				}
				mask := func(s, ns string) string {
					s = strings.ReplaceAll(s, ns, "e2e-xxxxxxxx")
					s = ansicTime.ReplaceAllString(s, "Www Mmm dd hh:mm:ss yyyy")
					return rfc3339Time.ReplaceAllString(s, "TIME")
				}
				return mask(helmOut, theirs), mask(r.out, ours)
			}
			exact := [][]string{
				{"list", "--time-format", "2006"},
				{"list", "--time-format", "2006", "--no-headers"},
				{"list", "--time-format", "2006", "--uninstalled"},
				{"list", "--short"},
				{"list", "-q", "-o", "json"},
				{"list", "-o", "json"},
				{"list", "-o", "yaml"},
				{"history", "web"},
				{"history", "web", "--max", "2"},
				{"history", "web", "-o", "json"},
				{"history", "web", "-o", "yaml"},
				{"history", "gone"},
			}
			if tc.dialect == "helm4" {
				exact = append(exact, []string{"history", "web", "--show-rollback-revision"})
			} else {
				exact = append(exact, []string{"list", "-a", "--time-format", "2006"}, []string{"status", "web"},
					[]string{"status", "web", "--show-desc"}, []string{"status", "gone"})
			}
			for _, args := range exact {
				h, o := read(args...)
				if h, o = listTime.ReplaceAllString(h, "TIME"), listTime.ReplaceAllString(o, "TIME"); h != o {
					t.Errorf("%s differs from Helm's:\nhelm:\n%q\nkubectl-chart:\n%q", strings.Join(args, " "), h, o)
				}
			}
			sameTableCells(t)(read("list"))

			// -d compares whole seconds, and each side's releases were made
			// at their own moments: where two of either side's releases tie
			// (Helm 4 breaks ties by name, as we do; Helm 3 leaves them in
			// no set order), only the rows are compared, not their order.
			byDate := []string{"list", "--time-format", "2006", "-d", "-r"}
			h, o := read(byDate...)
			if secondsTie(t, runHelm(t, helm, "list", "-n", theirs, "-o", "json")) || secondsTie(t, mustRun(t, "list", "-n", ours, "-o", "json").out) {
				h, o = sortedLines(h), sortedLines(o)
			}
			if h != o {
				t.Errorf("list -d -r differs from Helm's:\nhelm:\n%q\nkubectl-chart:\n%q", h, o)
			}

			// -A: both namespaces' releases of that name, in each listing.
			all := []string{"list", "-A", "-f", "^a-longer-name-" + tc.dialect + "$", "--time-format", "2006"}
			h, o = read(all...)
			if h, o = strings.ReplaceAll(h, ours, "e2e-xxxxxxxx"), strings.ReplaceAll(o, theirs, "e2e-xxxxxxxx"); h != o || strings.Count(o, "\n") != 3 {
				t.Errorf("list -A differs from Helm's:\nhelm:\n%q\nkubectl-chart:\n%q", h, o)
			}

			// web runs pods; a-longer-name-* runs none (its selectors'
			// related pods are an empty section).
			for _, name := range []string{"web", "a-longer-name-" + tc.dialect} {
				args := []string{"status", name, "--show-resources"}
				if tc.dialect == "helm4" {
					args = args[:2] // Helm 4 shows the resources always
				}
				h, o = read(args...)
				hHead, hRes := splitResources(t, h)
				oHead, oRes := splitResources(t, o)
				if hHead != oHead {
					t.Errorf("status %s: all but the resources differ from Helm's:\nhelm:\n%q\nkubectl-chart:\n%q", name, hHead, oHead)
				}
				if !slices.Equal(hRes, oRes) {
					t.Errorf("status %s: the resources differ from Helm's:\nhelm:\n%s\nkubectl-chart:\n%s", name, strings.Join(hRes, "\n"), strings.Join(oRes, "\n"))
				}
				if !slices.ContainsFunc(oRes, func(s string) bool { return strings.HasPrefix(s, "==> v1/ConfigMap\n") }) {
					t.Errorf("status %s lists no ConfigMaps:\n%s", name, o)
				}
			}
		})
	}
}

// secondsTie reports whether two releases of `list -o json` were last
// deployed in the same second.
func secondsTie(t *testing.T, listJSON string) bool {
	t.Helper()
	var rels []struct {
		Updated string `json:"updated"`
	}
	if err := json.Unmarshal([]byte(listJSON), &rels); err != nil {
		t.Fatalf("list -o json: %v\n%s", err, listJSON)
	}
	seen := map[string]bool{}
	for _, r := range rels {
		second, _, _ := strings.Cut(r.Updated, ".") // "2006-01-02 15:04:05.999 -0700 MST"
		if seen[second] {
			return true
		}
		seen[second] = true
	}
	return false
}

// sortedLines is s with its lines sorted.
func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// sameTableCells compares two tables cell by cell, spaces trimmed and times
// masked, and checks that each of ours's columns is padded to one width.
func sameTableCells(t *testing.T) func(helmOut, ourOut string) {
	return func(helmOut, ourOut string) {
		t.Helper()
		cells := func(s string) [][]string {
			var rows [][]string
			for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
				rows = append(rows, strings.Split(l, "\t"))
			}
			return rows
		}
		h, o := cells(helmOut), cells(ourOut)
		if len(h) != len(o) {
			t.Fatalf("list: %d lines, Helm's %d:\nhelm:\n%q\nkubectl-chart:\n%q", len(o), len(h), helmOut, ourOut)
		}
		for i := range h {
			if len(h[i]) != len(o[i]) {
				t.Fatalf("list line %d: %d cells, Helm's %d:\nhelm:\n%q\nkubectl-chart:\n%q", i, len(o[i]), len(h[i]), helmOut, ourOut)
			}
			for j := range h[i] {
				hc, oc := listTime.ReplaceAllString(h[i][j], "TIME"), listTime.ReplaceAllString(o[i][j], "TIME")
				if strings.TrimRight(hc, " ") != strings.TrimRight(oc, " ") {
					t.Errorf("list line %d cell %d = %q, Helm's %q", i, j, o[i][j], h[i][j])
				}
				if len(o[i][j]) != len(o[0][j]) {
					t.Errorf("list line %d cell %d is %d wide, its column %d:\n%q", i, j, len(o[i][j]), len(o[0][j]), ourOut)
				}
			}
		}
	}
}

// splitResources cuts status's output into what surrounds RESOURCES and the
// resource sections ("==> KIND" and its tables), sorted, each without its
// last column (the age) and with live values masked; the spacing of kinds
// whose cells vary in width is collapsed.
func splitResources(t *testing.T, out string) (string, []string) {
	t.Helper()
	before, rest, found := strings.Cut(out, "RESOURCES:\n")
	if !found {
		t.Fatalf("status shows no resources:\n%s", out)
	}
	// Each section ends in an empty line, the resources in one more.
	res, after, found := strings.Cut(rest, "\n\n\n")
	if !found {
		t.Fatalf("status: the resources do not end:\n%s", out)
	}
	var sections []string
	for _, s := range strings.Split(res, "\n==> ") {
		kind, tables, _ := strings.Cut(strings.TrimPrefix(s, "==> "), "\n")
		tables = lastCell.ReplaceAllString(tables, "")
		tables = podName.ReplaceAllString(clusterIP.ReplaceAllString(tables, "IP"), "POD")
		if kind != "v1/ConfigMap" && kind != "v1/Secret" {
			tables = spaces.ReplaceAllString(tables, "  ")
		}
		sections = append(sections, fmt.Sprintf("==> %s\n%s", kind, strings.TrimRight(tables, "\n")))
	}
	slices.Sort(sections)
	return before + after, sections
}
