package schema

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
)

// Schema is a compiled values schema, reusable for many validations and safe
// for concurrent use. Compiling once is equivalent to Helm compiling per
// call, except that referenced documents are loaded once.
type Schema struct {
	compiled *jsonschema.Schema
	limits   Limits
	dyn      *dynamic
}

// Compile parses and compiles one schema document with Helm's settings,
// within lim (its validations as well).
func Compile(schemaJSON []byte, loader Loader, lim Limits) (s *Schema, err error) {
	defer recoverAsError(&err)
	return compile(schemaJSON, loader, withDefaults(lim))
}

// Validate checks values against one schema document (raw JSON bytes) within
// lim; returns nil when valid.
// This is Helm's ValidateAgainstSingleSchema, as used by `helm lint` on values.yaml.
func Validate(ctx context.Context, schemaJSON []byte, values map[string]any, loader Loader, lim Limits) error {
	shaped, _ := helmShape(values).(map[string]any)
	return validateShaped(ctx, schemaJSON, shaped, loader, withDefaults(lim))
}

// validateShaped is Validate for values already in Helm's shape.
func validateShaped(ctx context.Context, schemaJSON []byte, values map[string]any, loader Loader, lim Limits) (err error) {
	defer recoverAsError(&err)
	s, err := compile(schemaJSON, loader, lim)
	if err != nil {
		return err
	}
	return s.validate(ctx, values)
}

// Validate checks values against the compiled schema; returns nil when valid.
func (s *Schema) Validate(ctx context.Context, values map[string]any) (err error) {
	defer recoverAsError(&err)
	shaped, _ := helmShape(values).(map[string]any)
	return s.validate(ctx, shaped)
}

func compile(schemaJSON []byte, loader Loader, lim Limits) (*Schema, error) {
	// Numbers stay json.Number so large schema constants keep their precision.
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, &SchemaError{Op: "parsing", Err: err}
	}
	nodes := &nodeBudget{max: lim.MaxNodes}
	if err := nodes.add(doc); err != nil {
		return nil, err
	}
	docs := map[string]any{resourceURL: doc}
	// Helm's defaults: no DefaultDraft (so 2020-12), format assertions only
	// where the draft mandates them, content assertions off.
	c := jsonschema.NewCompiler()
	c.UseLoader(newURLLoader(loader, func(url string, doc any) error {
		docs[url] = doc
		return nodes.add(doc)
	}))
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, &SchemaError{Op: "compiling", Err: err}
	}
	compiled, err := c.Compile(resourceURL)
	if err := nodes.err(); err != nil {
		return nil, err // the compiler's error only says a document failed to load
	}
	if err != nil {
		canonicalizeSchemaErr(err)
		return nil, &SchemaError{Op: "compiling", Err: err}
	}
	s := &Schema{compiled: compiled, limits: lim}
	if nodes.dynamic {
		s.dyn = newDynamic(c, docs)
	}
	return s, nil
}

// validate expects values already in Helm's shape (see helmShape).
func (s *Schema) validate(ctx context.Context, values map[string]any) error {
	// Helm validates an absent values map as an empty object, never as null.
	if values == nil {
		values = map[string]any{}
	}
	w := &work{clock: clock{ctx: ctx, deadline: s.limits.Deadline, now: s.limits.Clock}, max: s.limits.MaxSteps, dyn: s.dyn}
	if err := w.check(); err != nil {
		return err
	}
	if err := w.root(s.compiled, values); err != nil {
		return err
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
