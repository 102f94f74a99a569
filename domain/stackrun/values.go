package stackrun

import (
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// releaseValues merges a release's values as helmfile hands them to Helm:
// its values documents as -f files in order, then set and setString as
// --set and --set-string with helmfile's escaping (so commas and braces in a
// value stay in it).
func releaseValues(d dialect.Dialect, r stack.Release) (map[string]any, error) {
	opts := values.Options{Dialect: d}
	docs := map[string][]byte{}
	for i, doc := range r.Values {
		name := fmt.Sprintf("%s values[%d]", r.ID, i)
		docs[name] = doc
		opts.ValueFiles = append(opts.ValueFiles, name)
	}
	for _, s := range r.Set {
		opts.Values = append(opts.Values, escape(s.Name)+"="+escape(s.Value))
	}
	for _, s := range r.SetString {
		opts.StringValues = append(opts.StringValues, escape(s.Name)+"="+escape(s.Value))
	}
	vals, err := opts.Merge(func(name string) ([]byte, error) {
		doc, ok := docs[name]
		if !ok {
			return nil, fmt.Errorf("release %s: no values %q", r.ID, name)
		}
		return doc, nil
	})
	if err != nil {
		return nil, fmt.Errorf("release %s: values: %w", r.ID, err)
	}
	return vals, nil
}

// escape is helmfile's escaping of --set names and values.
func escape(s string) string {
	return strings.NewReplacer("{", `\{`, "}", `\}`, ",", `\,`).Replace(s)
}
