package sequence

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Check is an object's custom readiness (HIP-0025): expressions of the form
// {<jsonpath>} <op> <value> on its status. Any failure expression that holds
// fails it (failure wins); otherwise any success expression that holds makes
// it ready; otherwise it is pending.
type Check struct {
	Success []Expression
	Failure []Expression
}

// Expression is one readiness expression.
type Expression struct {
	// Text is the expression as written.
	Text  string
	path  []step
	op    string
	value any
	// fromRoot: the path starts at the object (.status...), not at its status.
	fromRoot bool
}

// ParseExpression reads "{<jsonpath>} <op> <value>", op one of == != < <= > >=.
func ParseExpression(text string) (Expression, error) {
	e := Expression{Text: text}
	s := strings.TrimSpace(text)
	if !strings.HasPrefix(s, "{") {
		return e, fmt.Errorf("readiness expression %q: it starts with {<jsonpath>}", text)
	}
	end := strings.Index(s, "}")
	if end < 0 {
		return e, fmt.Errorf("readiness expression %q: } is missing", text)
	}
	path := strings.TrimSpace(s[1:end])
	switch {
	case path == ".status" || strings.HasPrefix(path, ".status.") || strings.HasPrefix(path, ".status["):
		e.fromRoot = true
	case strings.HasPrefix(path, "[") || strings.HasPrefix(path, "."):
	default:
		return e, fmt.Errorf("readiness expression %q: the path starts with . or [", text)
	}
	steps, err := parsePath(path)
	if err != nil {
		return e, fmt.Errorf("readiness expression %q: %w", text, err)
	}
	e.path = steps
	rest := strings.TrimSpace(s[end+1:])
	op, err := operatorAt(rest)
	if err != nil {
		return e, fmt.Errorf("readiness expression %q: %w", text, err)
	}
	value := strings.TrimSpace(rest[len(op):])
	if value == "" {
		return e, fmt.Errorf("readiness expression %q: the value to compare with is missing", text)
	}
	e.op, e.value = op, parseValue(value)
	if op != "==" && op != "!=" {
		if _, ok := e.value.(float64); !ok {
			return e, fmt.Errorf("readiness expression %q: %s compares numbers, not %s", text, op, value)
		}
	}
	return e, nil
}

// Holds reports whether the expression holds for obj, and what it found.
func (e Expression) Holds(obj map[string]any) (bool, string) {
	root := obj["status"]
	if e.fromRoot {
		root = obj
	}
	found := eval(e.path, root)
	if len(found) == 0 {
		return false, "not set"
	}
	var shown []string
	for _, v := range found {
		ok, err := compare(v, e.op, e.value)
		if ok {
			return true, show(v)
		}
		if err != nil {
			shown = append(shown, err.Error())
			continue
		}
		shown = append(shown, show(v))
	}
	return false, strings.Join(shown, ", ")
}

// Status is what a check says of an object.
type Status struct {
	Ready, Failed bool
	Message       string
}

// Evaluate applies the check to an object as it is now.
func (c *Check) Evaluate(obj map[string]any) Status {
	for _, e := range c.Failure {
		if ok, got := e.Holds(obj); ok {
			return Status{Failed: true, Message: fmt.Sprintf("%s holds: %s (got %s)", AnnotationReadinessFailure, e.Text, got)}
		}
	}
	var unmet []string
	for _, e := range c.Success {
		ok, got := e.Holds(obj)
		if ok {
			return Status{Ready: true, Message: fmt.Sprintf("%s holds: %s", AnnotationReadinessSuccess, e.Text)}
		}
		unmet = append(unmet, fmt.Sprintf("%s (got %s)", e.Text, got))
	}
	return Status{Message: fmt.Sprintf("%s not met: %s", AnnotationReadinessSuccess, strings.Join(unmet, "; "))}
}

// ReadinessOf reads an object's custom readiness from its annotations: nil
// when it has none. Both annotations are needed; with only one the object
// keeps the usual readiness rules, and warning says so (lint reports it as
// an error).
func ReadinessOf(annotations map[string]string) (check *Check, warning string, err error) {
	success, hasSuccess := annotations[AnnotationReadinessSuccess]
	failure, hasFailure := annotations[AnnotationReadinessFailure]
	if !hasSuccess && !hasFailure {
		return nil, "", nil
	}
	if hasSuccess != hasFailure {
		return nil, fmt.Sprintf("only one of %s and %s is set: both are needed, the usual readiness rules apply", AnnotationReadinessSuccess, AnnotationReadinessFailure), nil
	}
	c := &Check{}
	if c.Success, err = expressions(AnnotationReadinessSuccess, success); err != nil {
		return nil, "", err
	}
	if c.Failure, err = expressions(AnnotationReadinessFailure, failure); err != nil {
		return nil, "", err
	}
	if len(c.Success) == 0 {
		return nil, "", fmt.Errorf("%s: no expression", AnnotationReadinessSuccess)
	}
	return c, "", nil
}

func expressions(annotation, value string) ([]Expression, error) {
	texts, err := StringList(value)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", annotation, err)
	}
	out := make([]Expression, 0, len(texts))
	for _, t := range texts {
		e, err := ParseExpression(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", annotation, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// StringList reads an annotation holding a JSON array of strings; blank is
// an empty list.
func StringList(value string) ([]string, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(value), &out); err != nil {
		return nil, fmt.Errorf("want a JSON array of strings such as [\"a\", \"b\"], got %s", value)
	}
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out, nil
}

// TimeoutOf reads helm.sh/readiness-timeout (a duration such as 30s or 2m);
// 0 when absent.
func TimeoutOf(annotations map[string]string) (time.Duration, error) {
	v, ok := annotations[AnnotationReadinessTimeout]
	if !ok {
		return 0, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: %q is not a positive duration such as 30s or 2m", AnnotationReadinessTimeout, v)
	}
	return d, nil
}
