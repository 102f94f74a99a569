package schema

import (
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
)

// resourceURL is where Helm registers every chart schema; relative refs
// resolve against it and it appears in some error texts.
const resourceURL = "file:///values.schema.json"

// validationHeader is the library's first line for a failed validation,
// which Helm strips.
const validationHeader = "jsonschema validation failed with 'file:///values.schema.json#'\n"

// ValidationError reports values that violate the schema. Its text is Helm's:
// one "- at '<json pointer>': <reason>" line per violation (nested causes
// indented by two spaces), ending with a newline.
type ValidationError struct {
	err *jsonschema.ValidationError
}

func (e *ValidationError) Error() string {
	return strings.TrimPrefix(e.err.Error(), validationHeader) + "\n"
}

// Unwrap exposes the library's structured error (locations, keywords).
func (e *ValidationError) Unwrap() error { return e.err }

// SchemaError reports a schema that could not be used: not JSON, invalid
// against its metaschema, or with an unresolvable reference. Op says which
// step failed ("parsing" or "compiling"); the text is the bare cause because
// that is what Helm prints (e.g. "unexpected EOF").
type SchemaError struct {
	Op  string
	Err error
}

func (e *SchemaError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *SchemaError) Unwrap() error { return e.Err }
