package loader_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

type M = map[string]any

const h4ChartYAML = "apiVersion: v2\nname: c\nversion: 0.1.0\n"

// TestLoadByDialect: what Helm 4 reads differently. Expected values and errors are
// Helm v4.3.1's and v3.22.0's for the same chart (`helm template`).
func TestLoadByDialect(t *testing.T) {
	big := strings.Repeat("a", 6<<20)
	tests := map[string]struct {
		files        map[string]string
		helm4, helm3 map[string]any
		// errors, for a directory and for an archive
		helm4Err, helm3Err         string
		helm4ArchErr, helm3ArchErr string
	}{
		"values.yaml of several documents": {
			files: map[string]string{"values.yaml": "---\na: 1\nt:\n  x: 1\n---\nb: 2\nt:\n  z: 3\n"},
			helm4: M{"a": 1.0, "b": 2.0, "t": M{"x": 1.0, "z": 3.0}},
			helm3: M{"a": 1.0, "t": M{"x": 1.0}},
		},
		"a broken later document": {
			files:        map[string]string{"values.yaml": "a: 1\n---\nb: [2\n"},
			helm4Err:     "cannot load values.yaml: cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
			helm4ArchErr: "cannot load values.yaml: cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
			helm3:        M{"a": 1.0},
		},
		"a file over 5 MiB": {
			files:        map[string]string{"files/big.txt": big}, // helm4: loads, no values
			helm3Err:     `chart file "big.txt" is larger than the maximum file size 5242880`,
			helm3ArchErr: `decompressed chart file "c/files/big.txt" is larger than the maximum file size 5242880`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{"Chart.yaml": {Data: []byte(h4ChartYAML)}}
			entries := []entry{{Name: "c/Chart.yaml", Body: h4ChartYAML}}
			for n, body := range tc.files {
				fsys[n] = &fstest.MapFile{Data: []byte(body)}
				entries = append(entries, entry{Name: "c/" + n, Body: body})
			}
			archive := tgz(t, entries...)
			for _, c := range []struct {
				d               dialect.Dialect
				want            map[string]any
				dirErr, archErr string
			}{{dialect.Helm4, tc.helm4, tc.helm4Err, tc.helm4ArchErr}, {dialect.Helm3, tc.helm3, tc.helm3Err, tc.helm3ArchErr}} {
				limits := loader.LimitsFor(c.d)
				dir, dirErr := loader.LoadDir(fsys, limits)
				arch, archErr := loader.LoadArchive(bytes.NewReader(archive), limits)
				if c.dirErr != "" || c.archErr != "" {
					if dirErr == nil || dirErr.Error() != c.dirErr {
						t.Errorf("%s: directory error = %v, want %q", c.d, dirErr, c.dirErr)
					}
					if archErr == nil || archErr.Error() != c.archErr {
						t.Errorf("%s: archive error = %v, want %q", c.d, archErr, c.archErr)
					}
					continue
				}
				if dirErr != nil || archErr != nil {
					t.Fatalf("%s: %v, %v", c.d, dirErr, archErr)
				}
				for _, got := range []map[string]any{dir.Values, arch.Values} {
					if !reflect.DeepEqual(got, c.want) {
						t.Errorf("%s: values = %v, want %v", c.d, got, c.want)
					}
				}
			}
		})
	}
}

func TestLimitsFor(t *testing.T) {
	if got := loader.LimitsFor(dialect.Helm3); got != loader.DefaultLimits() {
		t.Errorf("helm3 limits = %+v", got)
	}
	if got := loader.LimitsFor(dialect.Helm4); got.MaxChartSize != loader.DefaultMaxChartSize || got.MaxFileSize != 0 || got.Dialect != dialect.Helm4 {
		t.Errorf("helm4 limits = %+v", got)
	}
	// The cap per chart words its error as Helm 4 does.
	limits := loader.LimitsFor(dialect.Helm4)
	limits.MaxChartSize = 64
	_, err := loader.LoadDir(fstest.MapFS{"Chart.yaml": {Data: []byte(h4ChartYAML)}, "values.yaml": {Data: []byte(strings.Repeat("#", 100))}}, limits)
	if err == nil || err.Error() != "chart exceeds maximum decompressed size of 64 bytes" {
		t.Errorf("directory over the cap: %v", err)
	}
	_, err = loader.LoadArchive(bytes.NewReader(tgz(t, entry{Name: "c/Chart.yaml", Body: h4ChartYAML}, entry{Name: "c/values.yaml", Body: strings.Repeat("#", 100)})), limits)
	if err == nil || err.Error() != "decompressed chart is larger than the maximum size 64" {
		t.Errorf("archive over the cap: %v", err)
	}
}

// TestDecodeErrorsNameHelmsTypes: a Chart.yaml or Chart.lock that does not decode is
// reported with the Go types of the dialect's Helm (its loader's package: chart in
// Helm 3; v2, or v3 for a chart Helm 4 detected as v3). Wanted texts are Helm v3.22.0's
// and v4.3.1's `helm template` errors for the same files.
func TestDecodeErrorsNameHelmsTypes(t *testing.T) {
	const prefix = "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
	tests := map[string]struct {
		file, data   string
		chartV3      bool
		helm3, helm4 string
	}{
		"dependencies not a list": {
			file: "Chart.yaml", data: "apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies: x\n",
			helm3: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.dependencies of type []*chart.Dependency",
			helm4: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.dependencies of type []*v2.Dependency",
		},
		"a dependency not a mapping": {
			file: "Chart.yaml", data: "apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies: [x]\n",
			helm3: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.dependencies of type chart.Dependency",
			helm4: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.dependencies of type v2.Dependency",
		},
		"maintainers not a list": {
			file: "Chart.yaml", data: "apiVersion: v2\nname: c\nversion: 0.1.0\nmaintainers: x\n",
			helm3: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.maintainers of type []*chart.Maintainer",
			helm4: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.maintainers of type []*v2.Maintainer",
		},
		"a chart v3's dependencies": {
			file: "Chart.yaml", data: "apiVersion: v3\nname: c\nversion: 0.1.0\ndependencies: x\n", chartV3: true,
			helm3: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.dependencies of type []*chart.Dependency",
			helm4: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.dependencies of type []*v3.Dependency",
		},
		"a field of a plain type keeps its name": {
			file: "Chart.yaml", data: "apiVersion: v2\nname: c\nversion: 0.1.0\nkeywords: a\n",
			helm3: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.keywords of type []string",
			helm4: "cannot load Chart.yaml: " + prefix + "string into Go struct field Metadata.keywords of type []string",
		},
		"Chart.lock dependencies": {
			file: "Chart.lock", data: "dependencies: 3\n",
			helm3: "cannot load Chart.lock: " + prefix + "number into Go struct field Lock.dependencies of type []*chart.Dependency",
			helm4: "cannot load Chart.lock: " + prefix + "number into Go struct field Lock.dependencies of type []*v2.Dependency",
		},
		"Chart.lock not a mapping": {
			file: "Chart.lock", data: "x\n",
			helm3: "cannot load Chart.lock: " + prefix + "string into Go value of type chart.Lock",
			helm4: "cannot load Chart.lock: " + prefix + "string into Go value of type v2.Lock",
		},
		"a chart v3's Chart.lock": {
			file: "Chart.lock", data: "x\n", chartV3: true,
			helm3: "cannot load Chart.lock: " + prefix + "string into Go value of type chart.Lock",
			helm4: "cannot load Chart.lock: " + prefix + "string into Go value of type v3.Lock",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{"Chart.yaml": {Data: []byte(h4ChartYAML)}}
			fsys[tc.file] = &fstest.MapFile{Data: []byte(tc.data)}
			for d, want := range map[dialect.Dialect]string{dialect.Helm3: tc.helm3, dialect.Helm4: tc.helm4} {
				limits := loader.LimitsFor(d)
				limits.ChartV3 = tc.chartV3 && d.IsHelm4()
				_, err := loader.LoadDir(fsys, limits)
				if err == nil || err.Error() != want {
					t.Errorf("%s: got %v\nwant %s", d, err, want)
				}
			}
		})
	}
}

// TestAPIVersion: Helm 4 reads the API version into loader.chartBase, which its error names.
func TestAPIVersion(t *testing.T) {
	tests := map[string]struct{ data, want, err string }{
		"v2":           {data: "apiVersion: v2\nname: c\n", want: "v2"},
		"none":         {data: "name: c\n"},
		"not a map":    {data: "- sub\n", err: "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type loader.chartBase"},
		"not a string": {data: "apiVersion: [1]\n", err: "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field chartBase.apiVersion of type string"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := loader.APIVersion([]byte(tc.data))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("got %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
