// Package loader reads charts from a directory (any fs.FS) or a gzipped tar archive
// into the chart model, with Helm's file layout rules and size limits.
package loader

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	v2 "github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/v2"
	v3 "github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/v3"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// Size limits of a chart, as Helm applies them: decompression bombs and huge files
// are refused instead of being read into memory.
const (
	DefaultMaxChartSize int64 = 100 << 20
	DefaultMaxFileSize  int64 = 5 << 20
)

// Limits caps what a chart may hold, and says by which Helm release's rules it is
// read.
type Limits struct {
	MaxChartSize int64
	// MaxFileSize caps each file; 0 is no cap of its own (Helm 4's).
	MaxFileSize int64
	// Dialect reads values.yaml by its rules (values.Read) and words the size
	// errors as that Helm release does.
	Dialect dialect.Dialect
	// ChartV3 is set when Helm 4 reads the chart with its chart v3 loader (it detected
	// apiVersion v3 first): decoding errors name that loader's types.
	ChartV3 bool
	// budget is what is left of MaxChartSize for a chart and everything nested in
	// it: one budget for the chart, its subchart archives and theirs, so that
	// nesting archives does not multiply the cap. Nil until a load starts.
	budget *budget
	// early is the chart's values.yaml when its decoding started before LoadFiles
	// (LoadDir); only the chart's own LoadFiles takes it.
	early *earlyValues
}

// earlyValues is a values.yaml whose decoding is under way: data is the file's
// content as LoadFiles will be given it.
type earlyValues struct {
	data    []byte
	pending *pendingValues
}

// takes reports whether f is the file whose decoding e holds.
func (e *earlyValues) takes(f *BufferedFile) bool {
	return e != nil && f.Name == valuesFile && len(f.Data) == len(e.data) && (len(e.data) == 0 || &f.Data[0] == &e.data[0])
}

// budget is the decompressed bytes (and archive entry names) a chart may still take.
type budget struct{ left int64 }

// withBudget returns limits with a budget of its own when it has none yet.
func withBudget(limits Limits) Limits {
	if limits.budget == nil {
		limits.budget = &budget{left: limits.MaxChartSize}
	}
	return limits
}

// DefaultLimits are Helm 3's limits: 100 MiB per chart, 5 MiB per file.
func DefaultLimits() Limits {
	return Limits{MaxChartSize: DefaultMaxChartSize, MaxFileSize: DefaultMaxFileSize}
}

// LimitsFor are the dialect's limits: Helm 4 dropped the cap per file and keeps
// the cap per chart.
func LimitsFor(d dialect.Dialect) Limits {
	if !d.IsHelm4() {
		return DefaultLimits()
	}
	return Limits{MaxChartSize: DefaultMaxChartSize, Dialect: d}
}

// fileTooLarge reports whether a file of size bytes is over the cap per file.
func fileTooLarge(limits Limits, size int64) bool {
	return limits.MaxFileSize > 0 && size > limits.MaxFileSize
}

// BufferedFile is a chart file read into memory, by its slash path in the chart.
type BufferedFile struct {
	Name string
	Data []byte
	// ModTime is the file's modification time (a directory's file, an
	// archive's entry), which Helm 4's release records keep.
	ModTime time.Time
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// LoadFiles builds a chart (and its subcharts) from its files.
func LoadFiles(files []*BufferedFile, limits Limits) (*chart.Chart, error) {
	limits = withBudget(limits)
	early := limits.early
	limits.early = nil
	c := &chart.Chart{}
	subcharts := map[string][]*BufferedFile{}
	// values.yaml is decoded beside the rest of the loading (the largest part of it
	// in big charts: subchart archives); every error after it waits for it, so the
	// error reported is the one the files' order gives.
	vals := &pendingValues{}
	fail := func(err error) (*chart.Chart, error) {
		if verr := vals.wait(c); verr != nil {
			return c, verr
		}
		return c, err
	}

	for _, f := range files {
		c.Raw = append(c.Raw, &chart.File{Name: f.Name, Data: f.Data, ModTime: f.ModTime})
		if f.Name != "Chart.yaml" {
			continue
		}
		c.ModTime = f.ModTime
		if c.Metadata == nil {
			c.Metadata = &chart.Metadata{}
		}
		if err := unmarshal(limits, f.Data, c.Metadata); err != nil {
			return c, fmt.Errorf("cannot load Chart.yaml: %w", err)
		}
		if c.Metadata.APIVersion == "" {
			c.Metadata.APIVersion = chart.APIVersionV1
		}
	}

	for _, f := range files {
		switch {
		case f.Name == "Chart.yaml":
		case f.Name == "Chart.lock":
			c.Lock = &chart.Lock{}
			if err := unmarshal(limits, f.Data, c.Lock); err != nil {
				return fail(fmt.Errorf("cannot load Chart.lock: %w", err))
			}
		case f.Name == "values.yaml":
			if err := vals.wait(c); err != nil {
				return c, err
			}
			if early.takes(f) {
				vals, early = early.pending, nil
				continue
			}
			vals.start(limits.Dialect, f.Data)
		case f.Name == "values.schema.json":
			c.Schema, c.SchemaModTime = f.Data, f.ModTime
		case f.Name == "requirements.yaml":
			if c.Metadata == nil {
				c.Metadata = &chart.Metadata{}
			}
			if err := unmarshal(limits, f.Data, c.Metadata); err != nil {
				return fail(fmt.Errorf("cannot load requirements.yaml: %w", err))
			}
			if c.Metadata.APIVersion == chart.APIVersionV1 {
				c.Files = append(c.Files, &chart.File{Name: f.Name, Data: f.Data, ModTime: f.ModTime})
			}
		case f.Name == "requirements.lock":
			c.Lock = &chart.Lock{}
			if err := unmarshal(limits, f.Data, c.Lock); err != nil {
				return fail(fmt.Errorf("cannot load requirements.lock: %w", err))
			}
			if c.Metadata == nil {
				c.Metadata = &chart.Metadata{}
			}
			if c.Metadata.APIVersion == chart.APIVersionV1 {
				c.Files = append(c.Files, &chart.File{Name: f.Name, Data: f.Data, ModTime: f.ModTime})
			}
		case strings.HasPrefix(f.Name, "templates/"):
			c.Templates = append(c.Templates, &chart.File{Name: f.Name, Data: f.Data, ModTime: f.ModTime})
		case strings.HasPrefix(f.Name, "charts/"):
			if path.Ext(f.Name) == ".prov" {
				c.Files = append(c.Files, &chart.File{Name: f.Name, Data: f.Data, ModTime: f.ModTime})
				continue
			}
			rel := strings.TrimPrefix(f.Name, "charts/")
			name := strings.SplitN(rel, "/", 2)[0]
			subcharts[name] = append(subcharts[name], &BufferedFile{Name: rel, Data: f.Data, ModTime: f.ModTime})
		default:
			c.Files = append(c.Files, &chart.File{Name: f.Name, Data: f.Data, ModTime: f.ModTime})
		}
	}

	if c.Metadata == nil {
		return fail(errors.New("Chart.yaml file is missing")) //nolint:staticcheck // Helm's text, file names keep their case
	}
	if err := c.Validate(); err != nil {
		return fail(err)
	}

	// Sorted, so that subcharts not listed in Chart.yaml come in a stable order.
	names := make([]string, 0, len(subcharts))
	for n := range subcharts {
		names = append(names, n)
	}
	sort.Strings(names)
	names = slices.DeleteFunc(names, func(n string) bool { return strings.IndexAny(n, "_.") == 0 })
	subs, failed, err := loadSubcharts(names, subcharts, limits)
	if err != nil {
		return fail(fmt.Errorf("error unpacking subchart %s in %s: %w", names[failed], c.Name(), err))
	}
	for _, sub := range subs {
		c.AddDependency(sub)
	}
	return fail(nil)
}

// loadSubcharts loads the named subcharts, in big charts the largest part of the
// loading (archives to decompress), on several goroutines. Each takes an equal
// share of the chart's budget; when one fails, or meets the end of its share,
// they are all loaded again one after another in names order, which is what
// decides the error reported and the subchart that exhausts the budget. Memory
// stays within the budget either way. On error, failed indexes names.
func loadSubcharts(names []string, files map[string][]*BufferedFile, limits Limits) (subs []*chart.Chart, failed int, err error) {
	subs = make([]*chart.Chart, len(names))
	if workers := min(runtime.GOMAXPROCS(0), len(names)); workers > 1 {
		share := limits.budget.left / int64(len(names))
		used := make([]int64, len(names))
		errs := make([]error, len(names))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < len(names); i = int(next.Add(1)) - 1 {
					own := limits
					own.budget = &budget{left: share}
					subs[i], errs[i] = loadSubchart(names[i], files[names[i]], own)
					used[i] = share - own.budget.left
				}
			})
		}
		wg.Wait()
		if !slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
			for _, n := range used {
				limits.budget.left -= n
			}
			return subs, 0, nil
		}
	}
	for i, n := range names {
		if subs[i], err = loadSubchart(n, files[n], limits); err != nil {
			return nil, i, err
		}
	}
	return subs, 0, nil
}

// pendingValues is a values.yaml being decoded in the background.
type pendingValues struct {
	done chan struct{}
	vals map[string]any
	err  error
}

func (p *pendingValues) start(d dialect.Dialect, data []byte) {
	p.done = make(chan struct{})
	go func() {
		defer close(p.done)
		p.vals, p.err = values.Read(d, data)
	}()
}

// wait sets c.Values once the decoding ends, or returns its error; without a
// values.yaml it returns nil at once.
func (p *pendingValues) wait(c *chart.Chart) error {
	if p.done == nil {
		return nil
	}
	<-p.done
	p.done = nil
	if p.err != nil {
		return fmt.Errorf("cannot load values.yaml: %w", p.err)
	}
	c.Values = p.vals
	return nil
}

// unmarshal decodes, by limits' dialect, a chart file into a *chart.Metadata or *chart.Lock. Helm's error
// names Helm's Go types, which in Helm 3 are ours (chart.Metadata, []*chart.Dependency);
// in Helm 4 a file that fails is decoded again into its types (v2.Metadata or
// v3.Metadata, ...) for its words. The first error depends on the types alone.
func unmarshal(limits Limits, data []byte, v any) error {
	err := yaml.Unmarshal(data, v)
	if err == nil || !limits.Dialect.IsHelm4() {
		return err
	}
	var helm any
	switch v.(type) {
	case *chart.Metadata:
		helm = &v2.Metadata{}
		if limits.ChartV3 {
			helm = &v3.Metadata{}
		}
	case *chart.Lock:
		helm = &v2.Lock{}
		if limits.ChartV3 {
			helm = &v3.Lock{}
		}
	default:
		return err
	}
	if herr := yaml.Unmarshal(data, helm); herr != nil {
		return herr
	}
	return err
}

// chartBase is what Helm 4 reads of a Chart.yaml before it picks a loader; its Go name
// shows in the error of a Chart.yaml that is not a mapping.
type chartBase struct {
	APIVersion string `json:"apiVersion,omitempty"`
}

// APIVersion is a Chart.yaml's apiVersion, read as Helm 4 reads it to pick a loader.
func APIVersion(chartYAML []byte) (string, error) {
	var base chartBase
	if err := yaml.Unmarshal(chartYAML, &base); err != nil {
		return "", err
	}
	return base.APIVersion, nil
}

func loadSubchart(name string, files []*BufferedFile, limits Limits) (*chart.Chart, error) {
	if path.Ext(name) == ".tgz" {
		if files[0].Name != name {
			return nil, fmt.Errorf("expected %s, got %s", name, files[0].Name)
		}
		return LoadArchive(bytes.NewReader(files[0].Data), limits)
	}
	inner := make([]*BufferedFile, 0, len(files))
	for _, f := range files {
		parts := strings.SplitN(f.Name, "/", 2)
		if len(parts) < 2 {
			continue
		}
		inner = append(inner, &BufferedFile{Name: parts[1], Data: f.Data, ModTime: f.ModTime})
	}
	return LoadFiles(inner, limits)
}
