package stack

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

func TestPlanFile(t *testing.T) {
	id := ID{Namespace: "n", Name: "a"}
	p := &Plan{APIVersion: PlanAPIVersion, Kind: PlanKind, Environment: "default",
		Releases: []ReleasePlan{{ID: id, Action: ActionAbsent}}, Waves: [][]ID{{id}}}
	var buf bytes.Buffer
	if err := WritePlan(&buf, p); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	tests := map[string]struct {
		file string
		want string
	}{
		"as written": {file: saved},
		"edited":     {file: strings.Replace(saved, `"absent"`, `"install"`, 1), want: "digest mismatch"},
		"truncated":  {file: saved[:len(saved)/2], want: "not a saved plan"},
		"a release's plan": {
			file: func() string {
				var b bytes.Buffer
				_ = plan.Write(&b, plan.New(plan.OpInstall, plan.OpInstall))
				return b.String()
			}(),
			want: `kind "SavedPlan", want "SavedStackPlan"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ReadPlan(strings.NewReader(tc.file), "stack.plan")
			if tc.want == "" {
				if err != nil || got.Releases[0].ID != id {
					t.Fatalf("ReadPlan = %v, %v", got, err)
				}
				return
			}
			if !errors.Is(err, plan.ErrInvalidFile) || !strings.Contains(err.Error(), "plan file stack.plan: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
