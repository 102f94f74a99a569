package manifest

import (
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/ports"
	"sigs.k8s.io/yaml"
)

// BuildError is a manifest document Helm's Kubernetes client refuses before
// it maps anything (what a post-renderer returned, in practice): YAML it
// cannot decode, or an object without a usable apiVersion or kind. Err is in
// Helm's words.
type BuildError struct{ Err error }

func (e *BuildError) Error() string { return e.Err.Error() }
func (e *BuildError) Unwrap() error { return e.Err }

// refusedDocument explains why a document that does not decode into an
// object is refused: YAML that does not parse, or a value that is not a
// mapping.
func refusedDocument(doc string) *BuildError {
	var raw any
	if err := yaml.Unmarshal([]byte(doc), &raw); err != nil {
		return &BuildError{Err: fmt.Errorf("error parsing : %w", err)}
	}
	return invalidObject([]string{"invalid object to validate"})
}

// checkKinds checks what Helm's client checks of an object before mapping
// it: a string apiVersion that parses as a group/version and a string kind;
// for a v1 List, those of each item.
func checkKinds(obj map[string]any) *BuildError {
	problems := kindProblems(obj)
	if len(problems) == 0 && obj["apiVersion"] == "v1" && obj["kind"] == "List" {
		items, ok := obj["items"].([]any)
		if !ok {
			return invalidObject([]string{"invalid object to validate"})
		}
		for _, item := range items {
			m, ok := item.(map[string]any)
			if !ok || m == nil {
				problems = append(problems, "invalid object to validate")
				continue
			}
			problems = append(problems, kindProblems(m)...)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return invalidObject(problems)
}

func kindProblems(obj map[string]any) []string {
	var problems []string
	switch v, ok := obj["apiVersion"].(string); {
	case obj["apiVersion"] == nil:
		problems = append(problems, "apiVersion not set")
	case !ok:
		problems = append(problems, "apiVersion isn't string type")
	case strings.Count(v, "/") > 1:
		problems = append(problems, fmt.Sprintf("unexpected GroupVersion string: %s", v))
	}
	if _, ok := obj["kind"].(string); obj["kind"] == nil {
		problems = append(problems, "kind not set")
	} else if !ok {
		problems = append(problems, "kind isn't string type")
	}
	return problems
}

// invalidObject words a document's problems as Helm's client does: one
// alone, several in brackets.
func invalidObject(problems []string) *BuildError {
	msg := problems[0]
	if len(problems) > 1 {
		msg = "[" + strings.Join(problems, ", ") + "]"
	}
	return &BuildError{Err: fmt.Errorf(`error validating "": error validating data: %s`, msg)}
}

// Sourced is an object of a manifest and the template file its document
// names.
type Sourced struct {
	Object ports.Object
	Source string
}

// SourceLinePrefix heads each document of a rendered manifest.
const SourceLinePrefix = "# Source: "

// ParseObjects reads the objects of a multi-document manifest, expanding
// lists, with the source each document names.
func ParseObjects(text string) ([]Sourced, error) {
	// Cut as Helm cuts a manifest it applies, not as it cuts rendered
	// templates: the two differ on the line breaks that end a document.
	docs, err := SplitStream(text)
	if err != nil {
		return nil, fmt.Errorf("parse manifest: %w", err)
	}
	var out []Sourced
	for _, doc := range docs {
		var u ports.Object
		if err := yaml.Unmarshal([]byte(doc), &u); err != nil {
			return nil, refusedDocument(doc)
		}
		if u == nil {
			continue
		}
		if err := checkKinds(u); err != nil {
			return nil, err
		}
		source := ""
		if first, _, _ := strings.Cut(strings.TrimLeft(doc, "\n"), "\n"); strings.HasPrefix(first, SourceLinePrefix) {
			source = strings.TrimSpace(strings.TrimPrefix(first, SourceLinePrefix))
		}
		items := []ports.Object{u}
		if u.IsList() {
			items = u.Items()
		}
		for _, o := range items {
			if o.GetKind() == "" || o.GetAPIVersion() == "" {
				return nil, fmt.Errorf("object %q has no kind or apiVersion", o.GetName())
			}
			out = append(out, Sourced{Object: o, Source: source})
		}
	}
	return out, nil
}
