package schema

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled values schema, reusable for many validations and safe
// for concurrent use. Compiling once is equivalent to Helm compiling per
// call, except that referenced documents are loaded once.
type Schema struct {
	compiled *jsonschema.Schema
}

// Compile parses and compiles one schema document with Helm's settings.
func Compile(schemaJSON []byte, loader Loader) (s *Schema, err error) {
	defer recoverAsError(&err)
	return compile(schemaJSON, loader)
}

// Validate checks values against one schema document (raw JSON bytes); returns nil when valid.
// This is Helm's ValidateAgainstSingleSchema, as used by `helm lint` on values.yaml.
func Validate(schemaJSON []byte, values map[string]any, loader Loader) error {
	shaped, _ := helmShape(values).(map[string]any)
	return validateShaped(schemaJSON, shaped, loader)
}

// validateShaped is Validate for values already in Helm's shape.
func validateShaped(schemaJSON []byte, values map[string]any, loader Loader) (err error) {
	defer recoverAsError(&err)
	s, err := compile(schemaJSON, loader)
	if err != nil {
		return err
	}
	return s.validate(values)
}

// Validate checks values against the compiled schema; returns nil when valid.
func (s *Schema) Validate(values map[string]any) (err error) {
	defer recoverAsError(&err)
	shaped, _ := helmShape(values).(map[string]any)
	return s.validate(shaped)
}

func compile(schemaJSON []byte, loader Loader) (*Schema, error) {
	// Numbers stay json.Number so large schema constants keep their precision.
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, &SchemaError{Op: "parsing", Err: err}
	}
	// Helm's defaults: no DefaultDraft (so 2020-12), format assertions only
	// where the draft mandates them, content assertions off.
	c := jsonschema.NewCompiler()
	c.UseLoader(newURLLoader(loader))
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, &SchemaError{Op: "compiling", Err: err}
	}
	compiled, err := c.Compile(resourceURL)
	if err != nil {
		canonicalizeSchemaErr(err)
		return nil, &SchemaError{Op: "compiling", Err: err}
	}
	return &Schema{compiled: compiled}, nil
}

// validate expects values already in Helm's shape (see helmShape).
func (s *Schema) validate(values map[string]any) error {
	// Helm validates an absent values map as an empty object, never as null.
	if values == nil {
		values = map[string]any{}
	}
	err := s.compiled.Validate(values)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return fmt.Errorf("validating values: %w", err)
	}
	canonicalize(verr, s.compiled)
	return &ValidationError{err: verr}
}

// recoverAsError turns a panic inside the validator (or a Loader) into the
// error Helm reports in that case.
func recoverAsError(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("unable to validate schema: %s", r)
	}
}
