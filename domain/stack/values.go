package stack

import (
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// MergeValues merges a release's values as Helm does the flags helmfile
// passes it: the values documents as -f files in order, then Set as --set and
// SetString as --set-string (already escaped as helmfile escapes them).
func (r Release) MergeValues(d dialect.Dialect) (map[string]any, error) {
	opts := values.Options{Dialect: d}
	docs := map[string][]byte{}
	for i, doc := range r.Values {
		name := fmt.Sprintf("%s values[%d]", r.Source, i)
		docs[name] = doc
		opts.ValueFiles = append(opts.ValueFiles, name)
	}
	for _, s := range r.Set {
		opts.Values = append(opts.Values, s.Name+"="+s.Value)
	}
	for _, s := range r.SetString {
		opts.StringValues = append(opts.StringValues, s.Name+"="+s.Value)
	}
	vals, err := opts.Merge(func(name string) ([]byte, error) {
		if b, ok := docs[name]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("%s: no such values document", name)
	})
	if err != nil {
		return nil, fmt.Errorf("release %s: values: %w", r.ID, err)
	}
	return vals, nil
}
