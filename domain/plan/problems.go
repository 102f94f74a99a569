package plan

import (
	"fmt"
	"strings"
)

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

// Err is the plan's problems as one error; nil when it has none.
func (p *Plan) Err() error {
	if len(p.Problems) == 0 {
		return nil
	}
	return &ProblemsError{Problems: p.Problems}
}
