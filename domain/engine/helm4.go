package engine

import (
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// chartMap is .Chart as Helm 4 gives it to templates: a map from the metadata's Go
// field names (Name, APIVersion, Maintainers ...) to their values, plus IsRoot.
// Nested structs become maps the same way and every list becomes a []any (never
// nil), so toYaml .Chart lists every field under its Go name, a missing field
// reads as empty instead of failing, and hasKey works on it.
func chartMap(md *chart.Metadata, isRoot bool) map[string]any {
	maintainers := make([]any, len(md.Maintainers))
	for i, m := range md.Maintainers {
		maintainers[i] = map[string]any{"Name": m.Name, "Email": m.Email, "URL": m.URL}
	}
	deps := make([]any, len(md.Dependencies))
	for i, d := range md.Dependencies {
		deps[i] = map[string]any{
			"Name":         d.Name,
			"Version":      d.Version,
			"Repository":   d.Repository,
			"Condition":    d.Condition,
			"Tags":         anyList(d.Tags),
			"Enabled":      d.Enabled,
			"ImportValues": append(make([]any, 0, len(d.ImportValues)), d.ImportValues...),
			"Alias":        d.Alias,
		}
	}
	return map[string]any{
		"Name":         md.Name,
		"Home":         md.Home,
		"Sources":      anyList(md.Sources),
		"Version":      md.Version,
		"Description":  md.Description,
		"Keywords":     anyList(md.Keywords),
		"Maintainers":  maintainers,
		"Icon":         md.Icon,
		"APIVersion":   md.APIVersion,
		"Condition":    md.Condition,
		"Tags":         md.Tags,
		"AppVersion":   md.AppVersion,
		"Deprecated":   md.Deprecated,
		"Annotations":  md.Annotations,
		"KubeVersion":  md.KubeVersion,
		"Dependencies": deps,
		"Type":         md.Type,
		"IsRoot":       isRoot,
	}
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// traceExecError is Helm 4's text for a failed template execution. required and
// fail keep Helm 3's one line ("execution error at (file:line:col): message");
// an error that text/template raised itself becomes a trace, one entry per
// template in the chain of include calls that led to it:
//
//	chart/templates/a.yaml:3:12
//	  executing "chart/templates/a.yaml" at <.Values.x.y>:
//	    nil pointer evaluating interface {}.y
//
// When some error in the chain is not text/template's (a function's own error, a
// tpl failure), the error is returned as it is.
func traceExecError(name string, err error) error {
	if _, ok := errors.AsType[template.ExecError](err); !ok {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %w", name, err)
	}
	if m := warnPattern.FindStringSubmatch(tokens[2]); len(m) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], m[1])
	}
	var trace []traceEntry
	for cur := err; cur != nil; cur = errors.Unwrap(cur) {
		e, ok := parseTraceEntry(cur.Error())
		if !ok {
			return err
		}
		if len(trace) == 0 || trace[len(trace)-1] != e {
			trace = append(trace, e)
		}
	}
	var b strings.Builder
	for _, e := range trace {
		e.writeTo(&b)
	}
	return errors.New(strings.TrimSpace(b.String()))
}

// traceEntry is one step of an execution trace: where, in which action, what.
type traceEntry struct {
	location, action, message string
}

func (e traceEntry) writeTo(b *strings.Builder) {
	if e.location != "" {
		b.WriteString(e.location + "\n  ")
	}
	if e.action != "" {
		b.WriteString(e.action + "\n    ")
	}
	if e.message != "" {
		b.WriteString(e.message + "\n")
	}
}

// parseTraceEntry reads one of text/template's execution error texts:
//
//	template: no template "x" associated with template "y"
//	template: NAME:LINE:COL: executing "NAME" at <ACTION>: MESSAGE
//	template: NAME:LINE: MESSAGE
//
// A message is cut where a wrapped template error begins (" template:").
func parseTraceEntry(s string) (traceEntry, bool) {
	rest, ok := strings.CutPrefix(s, "template: ")
	if !ok {
		return traceEntry{}, false
	}
	if strings.HasPrefix(rest, "no template ") {
		return traceEntry{message: s}, true
	}
	if e, ok := parseExecutingEntry(rest); ok {
		return e, true
	}
	sep := strings.LastIndex(rest, ": ")
	if sep < 0 {
		return traceEntry{}, false
	}
	return traceEntry{location: rest[:sep], message: cutNestedTemplate(rest[sep+2:])}, true
}

func parseExecutingEntry(rest string) (traceEntry, bool) {
	location, after, ok := strings.Cut(rest, ": executing ")
	if !ok || !strings.HasPrefix(after, `"`) {
		return traceEntry{}, false
	}
	end := strings.IndexByte(after[1:], '"')
	if end < 0 {
		return traceEntry{}, false
	}
	fn := after[1 : end+1]
	at, ok := strings.CutPrefix(after[end+2:], " at <")
	if !ok {
		return traceEntry{}, false
	}
	action, msg, ok := strings.Cut(at, ">: ")
	if !ok {
		return traceEntry{}, false
	}
	return traceEntry{
		location: location,
		action:   `executing "` + fn + `" at <` + action + `>:`,
		message:  cutNestedTemplate(msg),
	}, true
}

func cutNestedTemplate(msg string) string {
	if i := strings.Index(msg, " template:"); i >= 0 {
		return msg[:i]
	}
	return msg
}
