package loader_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// TestOneBudgetForNestedArchives checks that a chart and every archive nested in it
// share one decompressed budget: subchart archives each under the cap but over it
// together are refused, from an archive and from a directory alike.
func TestOneBudgetForNestedArchives(t *testing.T) {
	limits := loader.Limits{MaxChartSize: 64 << 10}
	sub := func(name string) string {
		return string(tgz(t,
			entry{Name: name + "/Chart.yaml", Body: "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"},
			entry{Name: name + "/zeros", Body: strings.Repeat("\x00", 20<<10)},
		))
	}
	entries := []entry{{Name: "chart/Chart.yaml", Body: okChartYAML}}
	dir := fstest.MapFS{"Chart.yaml": {Data: []byte(okChartYAML)}}
	for i := range 4 {
		name := fmt.Sprintf("s%d", i)
		entries = append(entries, entry{Name: "chart/charts/" + name + "-0.1.0.tgz", Body: sub(name)})
		dir["charts/"+name+"-0.1.0.tgz"] = &fstest.MapFile{Data: []byte(sub(name))}
	}
	const want = "error unpacking subchart s3-0.1.0.tgz in chart: decompressed chart is larger than the maximum file size 65536"
	if _, err := loader.LoadArchive(bytes.NewReader(tgz(t, entries...)), limits); err == nil || err.Error() != want {
		t.Errorf("archive: error %v, want %q", err, want)
	}
	if _, err := loader.LoadDir(dir, limits); err == nil || err.Error() != want {
		t.Errorf("directory: error %v, want %q", err, want)
	}
	// Each subchart alone fits: the same chart with one of them loads.
	if _, err := loader.LoadArchive(bytes.NewReader(tgz(t, entries[:2]...)), limits); err != nil {
		t.Errorf("one subchart under the budget: %v", err)
	}
}

// TestLongEntryNamesCountAgainstTheBudget checks that empty entries with long names
// exhaust the budget, while ordinary names keep Helm's exact limit.
func TestLongEntryNamesCountAgainstTheBudget(t *testing.T) {
	limits := loader.Limits{MaxChartSize: 256 << 10}
	entries := []entry{{Name: "chart/Chart.yaml", Body: okChartYAML}}
	for i := range 10 {
		entries = append(entries, entry{Name: fmt.Sprintf("chart/%d%s", i, strings.Repeat("n", 60<<10))})
	}
	const want = "chart archive entry names exceed the maximum decompressed chart size 262144"
	if _, err := loader.LoadArchive(bytes.NewReader(tgz(t, entries...)), limits); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if _, err := loader.LoadArchive(bytes.NewReader(tgz(t, entries[:4]...)), limits); err != nil {
		t.Errorf("three long names under the budget: %v", err)
	}
}
