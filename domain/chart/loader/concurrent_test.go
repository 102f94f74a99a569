package loader_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// TestSubchartsLoadedTogether checks that subchart archives, loaded on several
// goroutines, give what loading them one after another gives: every subchart in
// names order when they fit the chart's budget together, even when one of them
// takes more than an equal share of it, and the error naming the first one past
// the budget in names order when they do not.
func TestSubchartsLoadedTogether(t *testing.T) {
	const budget = 64 << 10
	cases := map[string]struct {
		sizes   []int // of each subchart's payload, subcharts s0, s1, ...
		wantErr string
	}{
		"one takes most of the budget": {sizes: []int{40 << 10, 1 << 10, 1 << 10, 1 << 10}},
		"equal shares":                 {sizes: []int{12 << 10, 12 << 10, 12 << 10, 12 << 10}},
		"too large together": {
			sizes:   []int{30 << 10, 30 << 10, 1 << 10, 10 << 10},
			wantErr: "error unpacking subchart s3-0.1.0.tgz in chart: decompressed chart is larger than the maximum file size 65536",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			entries := []entry{{Name: "chart/Chart.yaml", Body: okChartYAML}}
			dir := fstest.MapFS{"Chart.yaml": {Data: []byte(okChartYAML)}}
			for i, size := range tc.sizes {
				sub := fmt.Sprintf("s%d", i)
				archive := tgz(t,
					entry{Name: sub + "/Chart.yaml", Body: "apiVersion: v2\nname: " + sub + "\nversion: 0.1.0\n"},
					entry{Name: sub + "/values.yaml", Body: "index: " + fmt.Sprint(i) + "\n"},
					entry{Name: sub + "/zeros", Body: strings.Repeat("\x00", size)},
				)
				entries = append(entries, entry{Name: "chart/charts/" + sub + "-0.1.0.tgz", Body: string(archive)})
				dir["charts/"+sub+"-0.1.0.tgz"] = &fstest.MapFile{Data: archive}
			}
			limits := loader.Limits{MaxChartSize: budget}
			for from, load := range map[string]func() (*chart.Chart, error){
				"archive":   func() (*chart.Chart, error) { return loader.LoadArchive(bytes.NewReader(tgz(t, entries...)), limits) },
				"directory": func() (*chart.Chart, error) { return loader.LoadDir(dir, limits) },
			} {
				ch, err := load()
				if tc.wantErr != "" {
					if err == nil || err.Error() != tc.wantErr {
						t.Errorf("%s: error %v, want %q", from, err, tc.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", from, err)
				}
				deps := ch.Dependencies()
				if len(deps) != len(tc.sizes) {
					t.Fatalf("%s: %d subcharts, want %d", from, len(deps), len(tc.sizes))
				}
				for i, d := range deps {
					if want := fmt.Sprintf("s%d", i); d.Name() != want || fmt.Sprint(d.Values["index"]) != fmt.Sprint(i) {
						t.Errorf("%s: subchart %d is %s with values %v, want %s with index %d", from, i, d.Name(), d.Values, want, i)
					}
				}
			}
		})
	}
}

// TestValuesReadEarly checks the values.yaml a directory load decodes before its
// turn: it is the chart's values only when the walk keeps it, and an error of a
// file before it still comes first.
func TestValuesReadEarly(t *testing.T) {
	cases := map[string]struct {
		files      fstest.MapFS
		wantValues string
		wantErr    string
	}{
		"with a byte order mark": {
			files:      fstest.MapFS{"values.yaml": {Data: []byte("\xEF\xBB\xBFkey: value\n")}},
			wantValues: "map[key:value]",
		},
		"ignored by .helmignore": {
			files:      fstest.MapFS{"values.yaml": {Data: []byte("key: value\n")}, ".helmignore": {Data: []byte("values.yaml\n")}},
			wantValues: "map[]",
		},
		"a broken Chart.lock before a broken values.yaml": {
			files:   fstest.MapFS{"Chart.lock": {Data: []byte("- 1")}, "values.yaml": {Data: []byte("key: [")}},
			wantErr: "cannot load Chart.lock",
		},
		"a broken values.yaml": {
			files:   fstest.MapFS{"values.yaml": {Data: []byte("key: [")}},
			wantErr: "cannot load values.yaml",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.files["Chart.yaml"] = &fstest.MapFile{Data: []byte(okChartYAML)}
			ch, err := loader.LoadDir(tc.files, loader.DefaultLimits())
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(map[string]any(ch.Values)); got != tc.wantValues {
				t.Errorf("values %s, want %s", got, tc.wantValues)
			}
		})
	}
}
