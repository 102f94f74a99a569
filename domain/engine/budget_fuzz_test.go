package engine_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/engine"
)

// FuzzRenderBudget calls the functions that build values as large as their
// arguments say, nested in include and tpl: a render either stays within its
// budget or stops with a *BudgetError; it never builds more.
func FuzzRenderBudget(f *testing.F) {
	for _, seed := range []struct {
		fn    uint8
		n, m  int64
		s     string
		depth uint8
	}{
		{0, 3000000000, 0, "x", 0}, {1, 100000000, 0, "", 1}, {2, 2000000000, 0, "", 2},
		{3, 0, 100000000, "", 0}, {4, 5, 3, "ab\ncd", 3}, {5, -9223372036854775808, 0, "", 0}, {6, 1, 100000000, "", 1}, {3, -9223372036854775808, 0, "", 0},
	} {
		f.Add(seed.fn, seed.n, seed.m, seed.s, seed.depth)
	}
	const maxValue = 1 << 16
	calls := []string{`repeat %[1]d %[3]q`, `until %[1]d`, `randAlpha %[1]d`, `untilStep %[1]d %[2]d 1`,
		`indent %[1]d %[3]q`, `seq %[1]d`, `seq %[1]d %[2]d`}
	f.Fuzz(func(t *testing.T, fn uint8, n, m int64, s string, depth uint8) {
		call := fmt.Sprintf(calls[int(fn)%len(calls)], n, m, s)
		text := `{{ define "w" }}{{ if gt (int .) 0 }}{{ include "w" (sub (int .) 1) }}{{ else }}{{ ` + call + ` | len }}{{ end }}{{ end }}` +
			`{{ include "w" ` + strconv.Itoa(int(depth%8)) + ` }}`
		budget := engine.Budget{MaxValueBytes: maxValue, MaxDepth: 5, MaxOutputBytes: 1 << 20}
		out, err := engine.Engine{Budget: budget}.Render(helm4Chart(text), topValues(M{}))
		if err != nil {
			// A budget refusal or the function's own argument error: either ends the render cleanly.
			return
		}
		got, err := strconv.Atoi(out["et/templates/t.yaml"])
		if err != nil {
			t.Fatalf("output %q is no length", out["et/templates/t.yaml"])
		}
		if got > maxValue {
			t.Fatalf("%s built %d bytes past a budget of %d", call, got, maxValue)
		}
	})
}
