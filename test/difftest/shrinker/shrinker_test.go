package shrinker

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
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

// Shrinking keeps the difference it was given: dropping the template line
// that fails with "A" leaves one that fails with "B", an error line that
// starts the same (30 characters and more) but is another difference.
func TestShrinkDoesNotDriftToAnotherDifference(t *testing.T) {
	c := generator.Case{
		Files: []generator.File{
			{Path: "c/Chart.yaml", Data: "apiVersion: v2\nname: c\nversion: 0.1.0\n"},
			{Path: "c/templates/t.yaml", Data: "a: 1\n{{ fail \"A\" }}\nb: 2\n{{ fail \"B\" }}\n"},
		},
		Args: [][]string{{"template", "c"}},
	}
	run := func(_ context.Context, c generator.Case) (runner.Result, error) {
		ours := runner.Outcome{Exit: 1}
		for _, f := range c.Files {
			for i, l := range strings.Split(f.Data, "\n") {
				if strings.HasPrefix(l, "{{ fail") && ours.ErrLine == "" {
					ours.ErrLine = fmt.Sprintf("Error: execution error at (%s:%d:3): fail %s", f.Path, i+1, l[9:10])
				}
			}
		}
		return runner.Compare(runner.Outcome{}, ours), nil
	}
	want, _ := run(context.Background(), c)
	got := Shrink(context.Background(), c, SameDifference(run, want), 1000)
	res, _ := run(context.Background(), got)
	if !strings.HasSuffix(res.Ours.ErrLine, "fail A") {
		t.Errorf("shrunk to another difference: %q", res.Ours.ErrLine)
	}
	if n := strings.Count(got.Files[len(got.Files)-1].Data, "\n"); len(got.Files) != 1 || n != 1 {
		t.Errorf("not shrunk to the one failing line: %+v", got.Files)
	}
}
