package lint

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/domain/sequence"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// sequencingFindings are lint's findings on a chart's order (HIP-0025) from
// its rendered templates: errors are what would refuse an install (cycles,
// missing groups or subcharts, an object in two groups, malformed
// annotations, and only one of helm.sh/readiness-success and
// helm.sh/readiness-failure), warnings the rest, ignored the malformed
// declarations Helm loads the chart with anyway (for stderr).
func sequencingFindings(d dialect.Dialect, ch *chart.Chart, files map[string]string) (errs, warnings, ignored []string) {
	rendered := make(map[string]string, len(files))
	for name, content := range files {
		if !strings.HasSuffix(name, render.NotesSuffix) {
			rendered[name] = content
		}
	}
	_, manifests, err := manifest.SortFor(d, rendered, manifest.InstallOrderFor(d), nil)
	if err != nil {
		return nil, nil, nil // lint reports the documents themselves
	}
	var text strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&text, "---\n%s%s\n%s\n", manifest.SourceLinePrefix, m.Name, m.Content)
	}
	objs, err := manifest.ParseObjects(text.String())
	if err != nil {
		return nil, nil, nil
	}
	items := make([]sequence.Item, 0, len(objs))
	for _, s := range objs {
		ann := s.Object.GetAnnotations()
		name := ports.RefOf(s.Object).String()
		// The key identifies the object across API versions, as the planner's.
		key := strings.Join([]string{s.Object.Group(), s.Object.GetKind(), s.Object.GetNamespace(), s.Object.GetName()}, "/")
		items = append(items, sequence.Item{Chart: sequence.ChartPath(s.Source), Name: name, Key: key, Annotations: ann})
		if _, warn, err := sequence.ReadinessOf(ann); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", name, err))
		} else if warn != "" {
			errs = append(errs, name+": "+warn)
		}
		if _, err := sequence.TimeoutOf(ann); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", name, err))
		}
	}
	if !sequence.Declared(ch, items) {
		return errs, nil, nil
	}
	res, err := sequence.Order(ch, items)
	var oe *sequence.OrderError
	if errors.As(err, &oe) {
		errs = append(errs, oe.Problems...)
	}
	if res != nil {
		warnings, ignored = res.Warnings, res.Ignored
	}
	return errs, warnings, ignored
}
