package generator

import (
	"strings"
	"testing"
)

func TestSequencesAreDeterministic(t *testing.T) {
	for _, d := range []Dialect{Helm3, Helm4} {
		a, b := New(7, d).Sequence(3), New(7, d).Sequence(3)
		if a.String() != b.String() {
			t.Errorf("%s: the same seed and number drew different sequences", d)
		}
		if New(7, d).Sequence(4).String() == a.String() {
			t.Errorf("%s: sequences 3 and 4 are the same", d)
		}
	}
}

// Every sequence holds both chart versions and 3 to 8 release commands; no
// step names a namespace but the second one, which it then creates, so a
// step never reaches beyond the namespaces the runner gives it.
func TestSequencesStayInTheirNamespaces(t *testing.T) {
	commands := map[string]bool{"install": true, "upgrade": true, "rollback": true, "test": true, "uninstall": true, "list": true, "history": true, "status": true, "get": true}
	seen := map[string]bool{}
	for _, d := range []Dialect{Helm3, Helm4} {
		g := New(1, d)
		for i := 0; i < 300; i++ {
			s := g.Sequence(i)
			files := map[string]bool{}
			for _, f := range s.Files {
				files[f.Path] = true
			}
			if !files["chart/Chart.yaml"] || !files["chart2/Chart.yaml"] {
				t.Fatalf("sequence %d lacks a chart version", i)
			}
			if n := len(s.Steps); n < 3 || n > 8 {
				t.Fatalf("sequence %d has %d steps", i, n)
			}
			for _, st := range s.Steps {
				cmd := st.Args[0][0]
				if !commands[cmd] {
					t.Fatalf("sequence %d: command %q", i, cmd)
				}
				seen[cmd] = true
				argv := strings.Join(st.Argv(), " ")
				for _, g := range st.Args {
					if (g[0] == "-n" || g[0] == "--namespace" || g[0] == "-A" || g[0] == "--all-namespaces") && (len(g) < 2 || g[1] != NS2) {
						t.Fatalf("sequence %d: %q leaves its namespaces", i, argv)
					}
				}
				if strings.Contains(argv, NS2) && !strings.Contains(argv, "--create-namespace") {
					t.Fatalf("sequence %d: %q uses the second namespace without creating it", i, argv)
				}
			}
		}
	}
	if len(seen) != len(commands) {
		t.Errorf("commands drawn %v, want all of %v", seen, commands)
	}
}
