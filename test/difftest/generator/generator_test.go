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

func TestRestrictionsHoldBackTheirClasses(t *testing.T) {
	restricted := New(2, Helm3)
	free := New(2, Helm3).WithRestrictions(nil)
	var lintFree, lintRestricted int
	for i := 0; i < 300; i++ {
		if restricted.Case(i).Args[0][0] == "lint" {
			lintRestricted++
		}
		if free.Case(i).Args[0][0] == "lint" {
			lintFree++
		}
	}
	if lintRestricted != 0 || lintFree == 0 {
		t.Errorf("lint cases: %d restricted (want 0), %d unrestricted (want some)", lintRestricted, lintFree)
	}
}
