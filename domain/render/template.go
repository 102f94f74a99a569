package render

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// TemplateOptions select what `template` prints of a rendered release.
type TemplateOptions struct {
	DisableHooks bool
	SkipTests    bool
	// ShowOnly keeps the documents of templates matching these globs (paths
	// relative to the root chart, e.g. "templates/x.yaml"), in the order given.
	ShowOnly []string
	// Dialect decides how --show-only cuts the output into documents (Helm 4 keeps
	// each document's trailing line breaks).
	Dialect dialect.Dialect
}

// OutputHooks are the hooks `template` prints or writes, in order.
func OutputHooks(r *Rendered, opts TemplateOptions) []*release.Hook {
	if opts.DisableHooks {
		return nil
	}
	var hs []*release.Hook
	for _, h := range r.Hooks {
		if opts.SkipTests && h.IsTest() {
			continue
		}
		hs = append(hs, h)
	}
	return hs
}

var sourceLine = regexp.MustCompile("# Source: [^/]+/(.+)")

// MissingTemplateError is a --show-only pattern that matches no rendered template.
type MissingTemplateError struct{ Pattern string }

func (e *MissingTemplateError) Error() string {
	return fmt.Sprintf("could not find template %s in chart", e.Pattern)
}

// TemplateText is what `template` prints: resources, then hooks, optionally
// filtered by --show-only.
func TemplateText(r *Rendered, opts TemplateOptions) (string, error) {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(r.Manifest))
	b.WriteString("\n")
	for _, h := range OutputHooks(r, opts) {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	if len(opts.ShowOnly) == 0 {
		return b.String(), nil
	}

	docs := manifest.SplitFor(opts.Dialect, b.String())
	var out strings.Builder
	for _, pattern := range opts.ShowOnly {
		found := false
		for _, doc := range docs {
			m := sourceLine.FindStringSubmatch(doc)
			if len(m) == 0 {
				continue
			}
			if ok, _ := path.Match(pattern, m[1]); !ok {
				continue
			}
			fmt.Fprintf(&out, "---\n%s\n", doc)
			found = true
		}
		if !found {
			return "", &MissingTemplateError{Pattern: pattern}
		}
	}
	return out.String(), nil
}
