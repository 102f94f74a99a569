package generator

import (
	"testing"
)

func TestCasesAreDeterministic(t *testing.T) {
	for _, d := range []Dialect{Helm3, Helm4} {
		a, b := New(7, d).Case(3), New(7, d).Case(3)
		if a.String() != b.String() {
			t.Errorf("%s: the same seed and number drew different cases", d)
		}
		if New(7, d).Case(4).String() == a.String() {
			t.Errorf("%s: cases 3 and 4 are the same", d)
		}
	}
}

func TestCasesHoldAChart(t *testing.T) {
	g := New(1, Helm4)
	for i := 0; i < 200; i++ {
		c := g.Case(i)
		var chartYAML bool
		for _, f := range c.Files {
			chartYAML = chartYAML || f.Path == ChartDir+"/Chart.yaml"
		}
		if !chartYAML {
			t.Fatalf("case %d has no %s/Chart.yaml", i, ChartDir)
		}
		if len(c.Args) == 0 || len(c.Args[0]) == 0 {
			t.Fatalf("case %d has no command", i)
		}
	}
}

// Every command of the generator's table is drawn.
func TestEveryCommandIsDrawn(t *testing.T) {
	seen := map[string]bool{}
	g := New(2, Helm3)
	for i := 0; i < 300; i++ {
		seen[g.Case(i).Args[0][0]] = true
	}
	for _, cmd := range []string{"template", "lint", "show", "package", "dependency", "verify"} {
		if !seen[cmd] {
			t.Errorf("no %s case in 300", cmd)
		}
	}
}
