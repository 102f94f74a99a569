package engine_test

import (
	"errors"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

// The render's time limit is measured by the budget's clock, not the wall
// clock: a clock that leaps stops a quick render, one that stands still lets
// a render run past a limit of a nanosecond.
func TestRenderBudgetByItsClock(t *testing.T) {
	const steps = `{{ range 5000 }}{{ end }}done`
	leaping := porttest.NewClock()
	leaping.Leap(2 * time.Hour)
	for name, tc := range map[string]struct {
		budget  engine.Budget
		wantErr string
	}{
		"a leaping clock ends a quick render": {
			budget:  engine.Budget{Timeout: time.Hour, Clock: leaping},
			wantErr: "template: et/templates/t.yaml: render budget exceeded: rendering took longer than 1h0m0s (raise it with --render-timeout)",
		},
		"a clock standing still never times out": {
			budget: engine.Budget{Timeout: time.Nanosecond, Clock: porttest.NewClock()},
		},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := engine.Engine{Budget: tc.budget}.Render(helm4Chart(steps), topValues(M{}))
			if checkError(t, err, tc.wantErr) {
				if _, ok := errors.AsType[*engine.BudgetError](err); !ok {
					t.Errorf("error %v is no *engine.BudgetError", err)
				}
				return
			}
			if got := out["et/templates/t.yaml"]; got != "done" {
				t.Errorf("got %q, want %q", got, "done")
			}
		})
	}
}
