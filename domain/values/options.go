package values

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/strvals"
)

// MaxSetFileSize caps what one --set-file value may read: a value larger than a
// chart file may be is no value (Kubernetes stores no object that large).
const MaxSetFileSize int64 = 5 << 20

// Options are the user's values flags: -f files, then --set-json, --set,
// --set-string, --set-file and --set-literal, applied in that order as Helm does.
type Options struct {
	ValueFiles    []string
	JSONValues    []string
	Values        []string
	StringValues  []string
	FileValues    []string
	LiteralValues []string
	// ReadSetFile, when set, reads --set-file values instead of Merge's read.
	ReadSetFile ReadFunc
	// Dialect selects how values files are read (Read) and whether --set-json
	// takes a whole JSON object, as Helm 4's does.
	Dialect dialect.Dialect
}

// ReadFunc reads a values file or a --set-file value by name ("-" is standard input).
type ReadFunc func(name string) ([]byte, error)

// Merge reads and combines the user's values.
func (o Options) Merge(read ReadFunc) (map[string]any, error) {
	base := map[string]any{}
	// All the flags share one cap on list growth (a[65536]=x, 12,000 times).
	opts := []strvals.Option{strvals.WithBudget(strvals.NewBudget(strvals.DefaultMaxListGrowth))}
	if o.Dialect.IsHelm4() {
		opts = append(opts, strvals.TruncatedIndexEnds())
	}
	for _, name := range o.ValueFiles {
		data, err := read(name)
		if err != nil {
			return nil, err
		}
		current, err := Read(o.Dialect, data)
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", name, err)
		}
		base = MergeMaps(base, current)
	}
	for _, v := range o.JSONValues {
		if trimmed := strings.TrimSpace(v); o.Dialect.IsHelm4() && strings.HasPrefix(trimmed, "{") {
			// Helm 4: a JSON object merges as a values file would.
			var m map[string]any
			if err := json.Unmarshal([]byte(trimmed), &m); err != nil {
				return nil, fmt.Errorf("failed parsing --set-json data JSON: %s", v)
			}
			base = MergeMaps(base, m)
			continue
		}
		if err := strvals.ParseJSON(v, base, opts...); err != nil {
			return nil, fmt.Errorf("failed parsing --set-json data %s", v)
		}
	}
	for _, v := range o.Values {
		if err := strvals.ParseInto(v, base, opts...); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	for _, v := range o.StringValues {
		if err := strvals.ParseIntoString(v, base, opts...); err != nil {
			return nil, fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	}
	readSetFile := read
	if o.ReadSetFile != nil {
		readSetFile = o.ReadSetFile
	}
	fileReader := func(rs []rune) (any, error) {
		data, err := readSetFile(string(rs))
		if err != nil {
			return nil, err
		}
		return string(data), nil
	}
	for _, v := range o.FileValues {
		if err := strvals.ParseIntoFile(v, base, fileReader, opts...); err != nil {
			return nil, fmt.Errorf("failed parsing --set-file data: %w", err)
		}
	}
	for _, v := range o.LiteralValues {
		if err := strvals.ParseLiteral(v, base, opts...); err != nil {
			return nil, fmt.Errorf("failed parsing --set-literal data: %w", err)
		}
	}
	return base, nil
}
