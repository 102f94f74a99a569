package schema

import (
	"bytes"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
)

// Loader resolves a $ref to another document; nil means such refs are refused.
//
// Load receives the absolute URL (e.g. "https://example.com/defs.json" or
// "file:///defs.json": relative refs resolve against file:///values.schema.json,
// as in Helm). It returns either the raw JSON bytes of the document or the
// document already decoded the way jsonschema.UnmarshalJSON does (numbers as
// json.Number). The returned error is reported as
// `failing loading "<url>": <error>`, so adapters that want Helm's texts
// should produce Helm's messages (e.g. "open /defs.json: no such file or directory").
//
// Load is also called for urn: references; when it fails there, the reference
// is treated as the permissive schema `true`, as Helm does. Helm also logs
// "WARNING: unresolved URN reference ignored; using permissive schema: <urn>":
// an adapter wanting that warning logs it from Load.
type Loader interface {
	Load(url string) (any, error)
}

// LoaderFunc adapts a plain function to Loader.
type LoaderFunc func(url string) (any, error)

// Load calls f(url).
func (f LoaderFunc) Load(url string) (any, error) { return f(url) }

// errNoLoader refuses references to other documents when no Loader was
// given: the domain never fetches them itself. The compiler reports it as
// `failing loading "<url>": <this text>`.
const errNoLoader = constError("no schema loader configured to resolve references to other documents")

// constError lets sentinel errors be constants rather than package variables.
type constError string

func (e constError) Error() string { return string(e) }

// newURLLoader routes the schemes Helm supports to the caller's loader; any
// other scheme yields the library's own "no URLLoader registered" error, as in Helm.
// Each document loaded is handed to loaded, which may refuse it.
func newURLLoader(l Loader, loaded func(url string, doc any) error) jsonschema.SchemeURLLoader {
	doc := docLoader{l, loaded}
	return jsonschema.SchemeURLLoader{
		"file":  doc,
		"http":  doc,
		"https": doc,
		"urn":   urnLoader{doc},
	}
}

// docLoader fetches whole documents through the caller's Loader.
type docLoader struct {
	l      Loader
	loaded func(url string, doc any) error
}

func (d docLoader) Load(url string) (any, error) {
	if d.l == nil {
		return nil, errNoLoader
	}
	raw, err := d.l.Load(url)
	if err != nil {
		return nil, err
	}
	doc, err := decodeDoc(raw)
	if err != nil {
		return nil, err
	}
	return doc, d.loaded(url, doc)
}

// urnLoader mirrors Helm: an unresolvable URN degrades to the schema `true`
// instead of failing, for compatibility with charts relying on it.
type urnLoader struct{ d docLoader }

func (u urnLoader) Load(url string) (any, error) {
	if u.d.l != nil {
		if raw, err := u.d.l.Load(url); err == nil && raw != nil {
			doc, err := decodeDoc(raw)
			if err != nil {
				return nil, err
			}
			return doc, u.d.loaded(url, doc)
		}
	}
	return true, nil
}

// decodeDoc accepts raw JSON from adapters so they need not know the
// library's number representation.
func decodeDoc(doc any) (any, error) {
	raw, ok := doc.([]byte)
	if !ok {
		return doc, nil
	}
	// The compiler already prefixes `failing loading "<url>": `; Helm adds nothing more.
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}
