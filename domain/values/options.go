package values

import (
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/strvals"
	"github.com/kubectl-chart/kubectl-chart/domain/yamldoc"
)

// Options are the user's values flags: -f files, then --set-json, --set,
// --set-string, --set-file and --set-literal, applied in that order as Helm does.
type Options struct {
	ValueFiles    []string
	JSONValues    []string
	Values        []string
	StringValues  []string
	FileValues    []string
	LiteralValues []string
}

// ReadFunc reads a values file or a --set-file value by name ("-" is standard input).
type ReadFunc func(name string) ([]byte, error)

// Merge reads and combines the user's values.
func (o Options) Merge(read ReadFunc) (map[string]any, error) {
	base := map[string]any{}
	for _, name := range o.ValueFiles {
		data, err := read(name)
		if err != nil {
			return nil, err
		}
		current, err := yamldoc.UnmarshalMap(data)
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", name, err)
		}
		base = MergeMaps(base, current)
	}
	for _, v := range o.JSONValues {
		if err := strvals.ParseJSON(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set-json data %s", v)
		}
	}
	for _, v := range o.Values {
		if err := strvals.ParseInto(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	for _, v := range o.StringValues {
		if err := strvals.ParseIntoString(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	}
	fileReader := func(rs []rune) (any, error) {
		data, err := read(string(rs))
		if err != nil {
			return nil, err
		}
		return string(data), nil
	}
	for _, v := range o.FileValues {
		if err := strvals.ParseIntoFile(v, base, fileReader); err != nil {
			return nil, fmt.Errorf("failed parsing --set-file data: %w", err)
		}
	}
	for _, v := range o.LiteralValues {
		if err := strvals.ParseLiteral(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set-literal data: %w", err)
		}
	}
	return base, nil
}
