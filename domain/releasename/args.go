// Package releasename holds release names: validating them in each use case's words
// and resolving them from a command's arguments, --generate-name and --name-template.
package releasename

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
)

// Args resolves the release name and chart reference from a command's
// arguments and the naming flags, with Helm's rules and messages.
type Args struct {
	Args         []string
	GenerateName bool
	NameTemplate string
	// ReleaseName is used when only the chart is given and no other rule applies.
	ReleaseName string
	Now         time.Time
}

// Resolve returns the release name and chart reference.
func (a Args) Resolve() (name, chartRef string, err error) {
	args := a.Args
	switch {
	case len(args) == 0:
		return "", "", errors.New("requires at least 1 argument: the chart")
	case len(args) > 2:
		return args[0], args[1], fmt.Errorf("expected at most two arguments, unexpected arguments: %v", strings.Join(args[2:], ", "))
	case len(args) == 2:
		if a.GenerateName {
			return args[0], args[1], errors.New("cannot set --generate-name and also specify a name")
		}
		if a.NameTemplate != "" {
			return args[0], args[1], errors.New("cannot set --name-template and also specify a name")
		}
		return args[0], args[1], nil
	}
	chartRef = args[0]
	if a.NameTemplate != "" {
		name, err := FromTemplate(a.NameTemplate)
		return name, chartRef, err
	}
	if a.ReleaseName != "" {
		return a.ReleaseName, chartRef, nil
	}
	if !a.GenerateName {
		return "", chartRef, errors.New("must either provide a name or specify --generate-name")
	}
	base := path.Base(strings.ReplaceAll(chartRef, "\\", "/"))
	if base == "." || base == "" {
		base = "chart"
	}
	if i := strings.Index(base, "."); i != -1 {
		base = base[:i]
	}
	return fmt.Sprintf("%s-%d", base, a.Now.Unix()), chartRef, nil
}

// FromTemplate renders a --name-template with all of sprig's functions: the
// template is the user's own flag, so, as in Helm, env and expandenv are allowed.
func FromTemplate(text string) (string, error) {
	if text == "" {
		return "", nil
	}
	t, err := template.New("name-template").Funcs(sprig.TxtFuncMap()).Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}
