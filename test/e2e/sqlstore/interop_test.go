//go:build e2e

package sqlstore

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/pgserver"
)

// step is one operation of the interoperability sequence, by Helm or by us.
type step struct {
	helm bool
	args []string
}

// The acceptance sequence: Helm installs, we upgrade, Helm rolls back, we
// upgrade, Helm upgrades; both read the same history, values and manifests
// of every revision. Each Helm version runs it twice: once on tables Helm
// created, once on tables we created.
func TestHelmInterop(t *testing.T) {
	for _, version := range []string{"v4.3.1", "v3.22.0"} {
		for _, creator := range []string{"helm", "us"} {
			t.Run(version+" tables by "+creator, func(t *testing.T) {
				t.Parallel()
				r := newRunner(t, helmPeer(t, version), db.Database(t))
				ns := env.Namespace(t)
				// Listing creates the tables.
				if creator == "helm" {
					r.helmRun("list", "-A")
				} else {
					r.kc("list", "-A")
				}
				chart := chartDir()
				for _, s := range []step{
					{true, []string{"install", "web", chart, "-n", ns, "--set", "message=from-helm"}},
					{false, []string{"upgrade", "web", chart, "-n", ns, "--set", "message=from-us", "--set-json", `nested={"list":[4,5],"flag":false}`}},
					{true, []string{"rollback", "web", "1", "-n", ns}},
					{false, []string{"upgrade", "web", chart, "-n", ns, "--reuse-values", "--set", "message=ours-again"}},
					{true, []string{"upgrade", "web", chart, "-n", ns, "--set", "message=helm-last"}},
				} {
					if s.helm {
						r.helmRun(s.args...)
					} else {
						r.kc(s.args...)
					}
				}
				compareHistories(t, r, ns, "web", 5)
			})
		}
	}
}

// compareHistories checks that Helm and we read the same history, and the
// same values and manifest of each revision.
func compareHistories(t *testing.T, r *runner, ns, name string, revisions int) {
	t.Helper()
	theirs, ours := r.helmRun("history", name, "-n", ns, "-o", "json"), r.kc("history", name, "-n", ns, "-o", "json")
	sameJSON(t, "history", ours, theirs)
	var h []map[string]any
	if err := json.Unmarshal([]byte(theirs), &h); err != nil || len(h) != revisions {
		t.Fatalf("Helm's history: %d revisions (%v), want %d:\n%s", len(h), err, revisions, theirs)
	}
	for rev := 1; rev <= revisions; rev++ {
		n := strconv.Itoa(rev)
		sameJSON(t, "values of revision "+n, r.kc("get", "values", name, "-n", ns, "--all", "-o", "json", "--revision", n),
			r.helmRun("get", "values", name, "-n", ns, "--all", "-o", "json", "--revision", n))
		if ours, theirs := r.kc("get", "manifest", name, "-n", ns, "--revision", n), r.helmRun("get", "manifest", name, "-n", ns, "--revision", n); ours != theirs {
			t.Errorf("manifest of revision %s:\nours:\n%s\nHelm's:\n%s", n, ours, theirs)
		}
	}
}

func sameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: ours is not JSON: %v\n%s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: Helm's is not JSON: %v\n%s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs:\nours:   %s\nHelm's: %s", what, got, want)
	}
}

// pgDumpRestrict is pg_dump's random \restrict key line.
var pgDumpRestrict = regexp.MustCompile(`(?m)^\\(un)?restrict .*$`)

// The tables we create are the tables Helm creates: pg_dump's schema of a
// database set up by each is the same, for both Helm versions.
func TestSchemaIsHelms(t *testing.T) {
	bin, err := pgserver.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	dump := func(url string) string {
		out, err := exec.Command(filepath.Join(bin, "pg_dump"), "--schema-only", url).Output()
		if err != nil {
			t.Fatalf("pg_dump: %v", err)
		}
		return pgDumpRestrict.ReplaceAllString(string(out), "")
	}
	ourURL := db.Database(t)
	newRunner(t, "", ourURL).kc("list", "-A")
	ours := dump(ourURL)
	for _, version := range []string{"v4.3.1", "v3.22.0"} {
		url := db.Database(t)
		newRunner(t, helmPeer(t, version), url).helmRun("list", "-A")
		if theirs := dump(url); theirs != ours {
			t.Errorf("schema differs from Helm %s's:\nours:\n%s\nHelm's:\n%s", version, ours, theirs)
		}
	}
}
