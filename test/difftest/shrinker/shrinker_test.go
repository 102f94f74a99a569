package shrinker

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

func TestShrinkKeepsOnlyWhatTheDifferenceNeeds(t *testing.T) {
	c := generator.Case{
		Files: []generator.File{
			{Path: "c/Chart.yaml", Data: "apiVersion: v2\nname: c\nversion: 0.1.0\n"},
			{Path: "c/values.yaml", Data: "a:\n  b: 1\n  c: 2\nbad: 3\nz: 4\n"},
			{Path: "c/templates/t.yaml", Data: "x: 1\ny: {{ .Values.bad }}\n"},
		},
		Args: [][]string{{"template", "c"}, {"--debug"}, {"--set", "bad=4"}},
	}
	// The "difference" shows while values.yaml sets bad and a template uses it.
	keeps := func(_ context.Context, c generator.Case) bool {
		var values, tmpl bool
		for _, f := range c.Files {
			values = values || f.Path == "c/values.yaml" && strings.Contains(f.Data, "bad:")
			tmpl = tmpl || strings.Contains(f.Data, ".Values.bad")
		}
		return values && tmpl
	}
	got := Shrink(context.Background(), c, keeps, 1000)
	if len(got.Args) != 1 {
		t.Errorf("flags left: %v", got.Args)
	}
	if len(got.Files) != 2 {
		t.Fatalf("files left: %+v", got.Files)
	}
	for _, f := range got.Files {
		if strings.Count(f.Data, "\n") != 1 {
			t.Errorf("%s keeps more than one line: %q", f.Path, f.Data)
		}
	}
}

func TestShrinkStopsAtItsBudget(t *testing.T) {
	c := generator.Case{Files: []generator.File{{Path: "f", Data: strings.Repeat("x\n", 50)}}, Args: [][]string{{"template"}}}
	tries := 0
	keeps := func(_ context.Context, c generator.Case) bool { tries++; return len(c.Files) == 1 }
	Shrink(context.Background(), c, keeps, 10)
	if tries != 10 {
		t.Errorf("tried %d candidates, want 10", tries)
	}
}
