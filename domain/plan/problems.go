package plan

import (
	"errors"
	"fmt"
	"strings"
)

// ProblemForbidden is a permission the operation needs and the caller lacks
// (the preflight's finding); its message names it ("create deployments.apps
// in namespace web").
const ProblemForbidden ProblemType = "forbidden"

// ProblemCRDUpgrade is an upgrade of a chart's CRD that could lose data
// (--crds upgrade): a stored version dropped or no longer served, or an
// existing object invalid under the new schema.
const ProblemCRDUpgrade ProblemType = "crd-upgrade-unsafe"

// ProblemsError is a plan whose problems stop the operation.
type ProblemsError struct {
	Problems []Problem
}

func (e *ProblemsError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0].Message
	}
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return fmt.Sprintf("%d problems: %s", len(e.Problems), strings.Join(msgs, "; "))
}

// ErrForbidden is an operation refused by its preflight: the caller lacks
// permissions it needs.
var ErrForbidden = errors.New("missing permissions")

// PermissionsError lists the permissions an operation needs and the caller
// lacks, found before anything was changed.
type PermissionsError struct {
	// Missing are the permissions, as "verb resource in namespace NS".
	Missing []string
}

func (e *PermissionsError) Error() string {
	return fmt.Sprintf("preflight: missing %d permission(s), nothing was changed: %s (--skip-preflight skips this check)",
		len(e.Missing), strings.Join(e.Missing, "; "))
}

// Is makes errors.Is(err, ErrForbidden) true.
func (e *PermissionsError) Is(target error) bool { return target == ErrForbidden }

// Err is the plan's problems as one error; nil when it has none. Missing
// permissions come first, as a *PermissionsError.
func (p *Plan) Err() error {
	var missing []string
	var others []Problem
	for _, pr := range p.Problems {
		if pr.Type == ProblemForbidden {
			missing = append(missing, pr.Message)
		} else {
			others = append(others, pr)
		}
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, &PermissionsError{Missing: missing})
	}
	if len(others) > 0 {
		errs = append(errs, &ProblemsError{Problems: others})
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}
