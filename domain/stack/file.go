package stack

import (
	"errors"
	"fmt"
	"io"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

// fileKind is the envelope kind of a saved stack plan.
const fileKind = "SavedStackPlan"

// WritePlan saves a stack plan (stack diff --save-plan): the envelope of a
// saved plan, whose digest covers the whole stack plan.
func WritePlan(w io.Writer, p *Plan) error {
	return plan.WriteSaved(w, fileKind, p)
}

// ReadPlan loads a stack plan written by WritePlan; file names it in errors.
func ReadPlan(r io.Reader, file string) (*Plan, error) {
	var p Plan
	if err := plan.ReadSaved(r, file, fileKind, &p); err != nil {
		return nil, err
	}
	if p.APIVersion != PlanAPIVersion || p.Kind != PlanKind {
		return nil, &plan.FileError{File: file, Reason: fmt.Sprintf("stack plan of version %q kind %q is not supported", p.APIVersion, p.Kind)}
	}
	if err := p.validate(); err != nil {
		return nil, &plan.FileError{File: file, Reason: err.Error()}
	}
	return &p, nil
}

// validate checks what applying a stack plan relies on: each release's plan
// is for that release, and the waves order exactly the plan's releases.
func (p *Plan) validate() error {
	seen := map[ID]bool{}
	for _, r := range p.Releases {
		if seen[r.ID] {
			return fmt.Errorf("release %s is planned twice", r.ID)
		}
		seen[r.ID] = true
		if r.Action != ActionAbsent {
			if r.Plan == nil {
				return fmt.Errorf("release %s (%s) has no plan", r.ID, r.Action)
			}
			if r.Plan.Release.Name != r.ID.Name || r.Plan.Release.Namespace != r.ID.Namespace {
				return fmt.Errorf("release %s holds the plan of %s/%s", r.ID, r.Plan.Release.Namespace, r.Plan.Release.Name)
			}
			if err := r.Plan.Validate(); err != nil {
				return fmt.Errorf("release %s: %w", r.ID, err)
			}
		}
	}
	n := 0
	for _, w := range p.Waves {
		for _, id := range w {
			if !seen[id] {
				return fmt.Errorf("wave names release %s, which is not planned", id)
			}
			n++
		}
	}
	if n != len(p.Releases) {
		return errors.New("its waves do not order every release once")
	}
	return nil
}
