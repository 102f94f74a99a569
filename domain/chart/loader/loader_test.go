package loader_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// ferryMetadata is testdata/ferry/Chart.yaml as loaded.
func ferryMetadata() *chart.Metadata {
	return &chart.Metadata{
		Name:        "ferry",
		Home:        "https://example.com",
		Sources:     []string{"https://example.com/ferry"},
		Version:     "1.2.3",
		Description: "A ferry crosses the water.",
		Keywords:    []string{"ferry", "boat"},
		Maintainers: []*chart.Maintainer{{Name: "The Crew", Email: "crew@example.com", URL: "https://example.com/crew"}},
		Icon:        "https://example.com/ferry.svg",
		APIVersion:  "v2",
		AppVersion:  "2.0",
		Deprecated:  true,
		Annotations: map[string]string{"extrakey": "extravalue"},
		KubeVersion: ">=1.20.0-0",
		Type:        "application",
		Dependencies: []*chart.Dependency{
			{
				Name:       "dinghy",
				Version:    "0.1.0",
				Repository: "https://example.com/charts",
				Condition:  "dinghy.enabled,global.dinghy.enabled",
				Tags:       []string{"small"},
				ImportValues: []any{
					"data",
					map[string]any{"child": "exports.more", "parent": "fromdinghy"},
				},
			},
			{Name: "raft", Version: "4.3.2", Repository: "https://example.com/charts", Alias: "lifeboat"},
		},
	}
}

// verifyFerry checks everything the loader makes of testdata/ferry (with the
// packed subcharts ferryFS adds), whichever way it was read.
func verifyFerry(t *testing.T, c *chart.Chart) {
	t.Helper()
	if !reflect.DeepEqual(c.Metadata, ferryMetadata()) {
		t.Errorf("Metadata = %+v\nwant       %+v", c.Metadata, ferryMetadata())
	}
	if c.Lock == nil {
		t.Fatal("Lock is nil")
	}
	wantLock := &chart.Lock{
		Generated: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		Digest:    "sha256:0123",
		Dependencies: []*chart.Dependency{
			{Name: "dinghy", Version: "0.1.0", Repository: "https://example.com/charts"},
			{Name: "raft", Version: "4.3.2", Repository: "https://example.com/charts"},
		},
	}
	if !reflect.DeepEqual(c.Lock, wantLock) {
		t.Errorf("Lock = %+v, want %+v", c.Lock, wantLock)
	}
	wantValues := map[string]any{
		"name":     "ferry",
		"replicas": float64(3),
		"ratio":    0.5,
		"big":      float64(12345678901234567890),
		"enabled":  true,
		"nothing":  nil,
		"list":     []any{float64(1), "two", 3.5},
		"section":  map[string]any{"name": "in a section"},
	}
	if !reflect.DeepEqual(c.Values, wantValues) {
		t.Errorf("Values = %#v\nwant     %#v", c.Values, wantValues)
	}
	if want := `{"$schema": "https://json-schema.org/draft-07/schema#", "type": "object"}` + "\n"; string(c.Schema) != want {
		t.Errorf("Schema = %q, want %q", c.Schema, want)
	}
	if got, want := names(c.Templates), []string{"templates/template.tpl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Templates = %v, want %v", got, want)
	}
	wantFiles := []string{".helmignore", "INSTALL.txt", "LICENSE", "README.md", "crds/crontab.yaml", "docs/README.md", "icon.svg"}
	if got := sortedNames(c.Files); !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("Files = %v, want %v", got, wantFiles)
	}
	if got, want := len(c.Raw), 21; got != want {
		t.Errorf("len(Raw) = %d, want %d: %v", got, want, sortedNames(c.Raw))
	}
	wantTree := []string{"ferry", "ferry.dinghy", "ferry.dinghy.mast1", "ferry.dinghy.mast2", "ferry.raft", "ferry.raft.albatross"}
	if got := treeNames(c); !reflect.DeepEqual(got, wantTree) {
		t.Errorf("chart tree = %v, want %v", got, wantTree)
	}
	if got := depNames(c); !reflect.DeepEqual(got, []string{"dinghy", "raft"}) {
		t.Errorf("subchart order = %v, want [dinghy raft]", got)
	}

	dinghy := subchart(t, c, "dinghy")
	if got := names(dinghy.Templates); !reflect.DeepEqual(got, []string{"templates/pod.yaml"}) {
		t.Errorf("dinghy templates = %v", got)
	}
	if got := names(dinghy.Files); !reflect.DeepEqual(got, []string{"README.md"}) {
		t.Errorf("dinghy files = %v", got)
	}
	if got := dinghy.Values["name"]; got != "my-dinghy" {
		t.Errorf("dinghy name value = %v", got)
	}
	if got := subchart(t, dinghy, "mast2").Values["from"]; got != "mast2" {
		t.Errorf("mast2 (packed two levels down) value = %v", got)
	}
	if got := subchart(t, dinghy, "mast1").Metadata.APIVersion; got != "v1" {
		t.Errorf("mast1 apiVersion = %q", got)
	}
	raft := subchart(t, c, "raft")
	if raft.Metadata.Version != "4.3.2" || raft.Values["raft"] != true {
		t.Errorf("raft = %+v values %v", raft.Metadata, raft.Values)
	}
	if got := subchart(t, raft, "albatross").ChartFullPath(); got != "ferry/charts/raft/charts/albatross" {
		t.Errorf("albatross path = %q", got)
	}
	crds := c.CRDObjects()
	if len(crds) != 1 || crds[0].Filename != "ferry/crds/crontab.yaml" {
		t.Errorf("CRDObjects() = %+v", crds)
	}
}

// packedFerry is ferry as `helm package` would archive it: without what
// .helmignore and the default rules leave out.
func packedFerry(t *testing.T) []byte {
	t.Helper()
	m := ferryFS(t)
	for _, ignored := range []string{"ignore/me.txt", "notes.swp", "templates/.hidden.yaml"} {
		if _, ok := m[ignored]; !ok {
			t.Fatalf("fixture lost %s", ignored)
		}
		delete(m, ignored)
	}
	return packFS(t, "ferry", m)
}

func TestLoadFerry(t *testing.T) {
	tests := map[string]func(t *testing.T) (*chart.Chart, error){
		"directory": func(t *testing.T) (*chart.Chart, error) {
			return loader.LoadDir(ferryFS(t), defaultLimits())
		},
		"archive": func(t *testing.T) (*chart.Chart, error) {
			return loader.LoadArchive(bytes.NewReader(packedFerry(t)), defaultLimits())
		},
		"archive with Windows separators": func(t *testing.T) (*chart.Chart, error) {
			m := ferryFS(t)
			delete(m, "ignore/me.txt")
			delete(m, "notes.swp")
			delete(m, "templates/.hidden.yaml")
			var entries []entry
			for _, name := range filesOf(t, m) {
				entries = append(entries, entry{Name: `ferry\` + strings.ReplaceAll(name, "/", `\`), Body: string(m[name].Data)})
			}
			return loader.LoadArchive(bytes.NewReader(tgz(t, entries...)), defaultLimits())
		},
		"archive with a BOM on every file": func(t *testing.T) (*chart.Chart, error) {
			m := ferryFS(t)
			delete(m, "ignore/me.txt")
			delete(m, "notes.swp")
			delete(m, "templates/.hidden.yaml")
			for name, f := range m {
				if !strings.HasSuffix(name, ".tgz") {
					f.Data = append([]byte("\xEF\xBB\xBF"), f.Data...)
				}
			}
			return loader.LoadArchive(bytes.NewReader(packFS(t, "ferry", m)), defaultLimits())
		},
		"directory with a BOM on every file": func(t *testing.T) (*chart.Chart, error) {
			m := ferryFS(t)
			for name, f := range m {
				if !strings.HasSuffix(name, ".tgz") {
					f.Data = append([]byte("\xEF\xBB\xBF"), f.Data...)
				}
			}
			return loader.LoadDir(m, defaultLimits())
		},
	}
	for name, load := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := load(t)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			verifyFerry(t, c)
			for _, f := range append(append([]*chart.File{}, c.Raw...), c.Templates...) {
				if bytes.HasPrefix(f.Data, []byte("\xEF\xBB\xBF")) {
					t.Errorf("%s still starts with a BOM", f.Name)
				}
			}
		})
	}
}

func TestLoadArchiveKeepsWhatHelmignoreWouldDrop(t *testing.T) {
	// .helmignore applies when a directory is read (or packaged), not to archives.
	c, err := loader.LoadArchive(bytes.NewReader(packFS(t, "ferry", ferryFS(t))), defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(c.Templates), []string{"templates/.hidden.yaml", "templates/template.tpl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Templates = %v, want %v", got, want)
	}
	got := sortedNames(c.Files)
	want := []string{".helmignore", "INSTALL.txt", "LICENSE", "README.md", "crds/crontab.yaml", "docs/README.md", "icon.svg", "ignore/me.txt", "notes.swp"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Files = %v, want %v", got, want)
	}
}

const v1Chart = "apiVersion: v1\nname: frobnitz\ndescription: This is a frobnitz.\nversion: \"1.2.3\"\n"

const requirementsYAML = `dependencies:
  - name: alpine
    version: "0.1.0"
    repository: https://example.com/charts
  - name: mariner
    version: "4.3.2"
    repository: https://example.com/charts
`

const requirementsLock = `dependencies:
  - name: alpine
    version: "0.1.0"
    repository: https://example.com/charts
  - name: mariner
    version: "4.3.2"
    repository: https://example.com/charts
digest: invalid
`

func TestLoadFiles(t *testing.T) {
	type want struct {
		apiVersion string
		deps       []string // name@version from the metadata
		lockDeps   []string // name@version from the lock
		files      []string
		templates  []string
		values     map[string]any
		schema     string
		subcharts  []string
	}
	depList := func(ds []*chart.Dependency) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Name+"@"+d.Version)
		}
		return out
	}
	both := []string{"alpine@0.1.0", "mariner@4.3.2"}

	tests := map[string]struct {
		files []*loader.BufferedFile
		want  want
	}{
		"v1 chart with requirements.yaml and requirements.lock": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte(v1Chart)},
				{Name: "requirements.yaml", Data: []byte(requirementsYAML)},
				{Name: "requirements.lock", Data: []byte(requirementsLock)},
				{Name: "templates/a.yaml", Data: []byte("a")},
			},
			want: want{
				apiVersion: "v1", deps: both, lockDeps: both,
				files:     []string{"requirements.yaml", "requirements.lock"},
				templates: []string{"templates/a.yaml"},
			},
		},
		"requirements before Chart.yaml": {
			files: []*loader.BufferedFile{
				{Name: "requirements.lock", Data: []byte(requirementsLock)},
				{Name: "requirements.yaml", Data: []byte(requirementsYAML)},
				{Name: "values.yaml", Data: []byte("var: some values")},
				{Name: "Chart.yaml", Data: []byte(v1Chart)},
			},
			want: want{
				apiVersion: "v1", deps: both, lockDeps: both,
				files:  []string{"requirements.lock", "requirements.yaml"},
				values: map[string]any{"var": "some values"},
			},
		},
		"apiVersion defaults to v1": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte("name: old\nversion: 0.1.0\n")},
			},
			want: want{apiVersion: "v1"},
		},
		"v2 chart reads requirements.yaml but keeps it out of Files": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: frobnitz\nversion: 1.2.3\n")},
				{Name: "requirements.yaml", Data: []byte(requirementsYAML)},
				{Name: "requirements.lock", Data: []byte(requirementsLock)},
			},
			want: want{apiVersion: "v2", deps: both, lockDeps: both},
		},
		"v2 chart with Chart.lock": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: frobnitz\nversion: 1.2.3\n" + requirementsYAML)},
				{Name: "Chart.lock", Data: []byte(requirementsLock)},
			},
			want: want{apiVersion: "v2", deps: both, lockDeps: both},
		},
		"values, schema, templates and files": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte(v1Chart)},
				{Name: "values.yaml", Data: []byte("var: some values\nnum: 10\nf: 1.5\nneg: -3\nexp: 1e3\nhex: 0x10\nquoted: \"10\"\n")},
				{Name: "values.schema.json", Data: []byte("type: Values")},
				{Name: "templates/deployment.yaml", Data: []byte("some deployment")},
				{Name: "templates/service.yaml", Data: []byte("some service")},
				{Name: "templates/sub/_helpers.tpl", Data: []byte("{{ define \"x\" }}{{ end }}")},
				{Name: "crds/a.yaml", Data: []byte("kind: CustomResourceDefinition")},
				{Name: "files/config.ini", Data: []byte("[x]")},
			},
			want: want{
				apiVersion: "v1",
				values: map[string]any{
					"var": "some values", "num": float64(10), "f": 1.5, "neg": float64(-3),
					"exp": float64(1000), "hex": float64(16), "quoted": "10",
				},
				schema:    "type: Values",
				templates: []string{"templates/deployment.yaml", "templates/service.yaml", "templates/sub/_helpers.tpl"},
				files:     []string{"crds/a.yaml", "files/config.ini"},
			},
		},
		"YAML 1.1 booleans as keys, as in Helm": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte(v1Chart)},
				{Name: "values.yaml", Data: []byte("n: 10\non: yes\n")},
			},
			want: want{apiVersion: "v1", values: map[string]any{"false": float64(10), "true": true}},
		},
		"empty values.yaml": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte(v1Chart)},
				{Name: "values.yaml", Data: []byte("# only a comment\n")},
			},
			want: want{apiVersion: "v1", values: map[string]any{}},
		},
		"subcharts: directories, archives, provenance and skipped names": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte(v1Chart)},
				{Name: "charts/zeta/Chart.yaml", Data: []byte("apiVersion: v2\nname: zeta\nversion: 1.0.0\n")},
				{Name: "charts/alpha-1.0.0.tgz", Data: smallChart(t, "alpha", "1.0.0")},
				{Name: "charts/alpha-1.0.0.tgz.prov", Data: []byte("signature")},
				{Name: "charts/_skipped/Chart.yaml", Data: []byte("not: read")},
				{Name: "charts/.hidden/Chart.yaml", Data: []byte("not: read")},
			},
			want: want{
				apiVersion: "v1",
				files:      []string{"charts/alpha-1.0.0.tgz.prov"},
				subcharts:  []string{"alpha", "zeta"},
			},
		},
		"library chart": {
			files: []*loader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n")},
				{Name: "templates/_helpers.tpl", Data: []byte(`{{ define "lib.name" }}lib{{ end }}`)},
			},
			want: want{apiVersion: "v2", templates: []string{"templates/_helpers.tpl"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := loader.LoadFiles(tc.files, defaultLimits())
			if err != nil {
				t.Fatalf("LoadFiles: %v", err)
			}
			w := tc.want
			if c.Metadata.APIVersion != w.apiVersion {
				t.Errorf("apiVersion = %q, want %q", c.Metadata.APIVersion, w.apiVersion)
			}
			if got := depList(c.Metadata.Dependencies); !reflect.DeepEqual(got, w.deps) {
				t.Errorf("dependencies = %v, want %v", got, w.deps)
			}
			var lockDeps []string
			if c.Lock != nil {
				lockDeps = depList(c.Lock.Dependencies)
			}
			if !reflect.DeepEqual(lockDeps, w.lockDeps) {
				t.Errorf("lock dependencies = %v, want %v", lockDeps, w.lockDeps)
			}
			if got := names(c.Files); !sameStrings(got, w.files) {
				t.Errorf("Files = %v, want %v", got, w.files)
			}
			if got := names(c.Templates); !sameStrings(got, w.templates) {
				t.Errorf("Templates = %v, want %v", got, w.templates)
			}
			if !reflect.DeepEqual(c.Values, w.values) {
				t.Errorf("Values = %#v, want %#v", c.Values, w.values)
			}
			if string(c.Schema) != w.schema {
				t.Errorf("Schema = %q, want %q", c.Schema, w.schema)
			}
			if got := depNames(c); !sameStrings(got, w.subcharts) {
				t.Errorf("subcharts = %v, want %v", got, w.subcharts)
			}
			if len(c.Raw) != len(tc.files) {
				t.Errorf("len(Raw) = %d, want %d", len(c.Raw), len(tc.files))
			}
			if c.IsLibrary() != (c.Metadata.Type == "library") {
				t.Errorf("IsLibrary() = %v for type %q", c.IsLibrary(), c.Metadata.Type)
			}
		})
	}
}

// sameStrings compares lists, nil and empty being the same.
func sameStrings(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestLoadFilesErrors(t *testing.T) {
	chartYAML := func(s string) *loader.BufferedFile { return &loader.BufferedFile{Name: "Chart.yaml", Data: []byte(s)} }
	good := chartYAML("apiVersion: v2\nname: good\nversion: 1.0.0\n")
	tests := map[string]struct {
		files   []*loader.BufferedFile
		wantErr string
	}{
		"no files": {
			wantErr: "Chart.yaml file is missing",
		},
		"no Chart.yaml": {
			files:   []*loader.BufferedFile{{Name: "values.yaml", Data: []byte("a: b")}},
			wantErr: "Chart.yaml file is missing",
		},
		"only requirements.lock": {
			files:   []*loader.BufferedFile{{Name: "requirements.lock", Data: []byte("")}},
			wantErr: "validation: chart.metadata.apiVersion is required",
		},
		"malformed Chart.yaml": {
			files:   []*loader.BufferedFile{chartYAML("name: [unclosed")},
			wantErr: "cannot load Chart.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
		},
		"Chart.yaml is a list": {
			files:   []*loader.BufferedFile{chartYAML("- a\n- b\n")},
			wantErr: "cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type chart.Metadata",
		},
		"Chart.yaml field of the wrong type": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: x\nversion: [1]\n")},
			wantErr: "cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field Metadata.version of type string",
		},
		"missing name": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nversion: 1.0.0\n")},
			wantErr: "validation: chart.metadata.name is required",
		},
		"missing version": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: x\n")},
			wantErr: "validation: chart.metadata.version is required",
		},
		"invalid SemVer": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: x\nversion: one.two\n")},
			wantErr: `validation: chart.metadata.version "one.two" is invalid`,
		},
		"chart named dot": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: .\nversion: 1.0.0\n")},
			wantErr: `validation: chart.metadata.name "." is not allowed`,
		},
		"chart name with a slash": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: ../evil\nversion: 1.0.0\n")},
			wantErr: `validation: chart.metadata.name "../evil" is invalid`,
		},
		"invalid type": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: x\nversion: 1.0.0\ntype: plugin\n")},
			wantErr: "validation: chart.metadata.type must be application or library",
		},
		"bad alias": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n  - name: sub\n    alias: not/ok\n")},
			wantErr: `validation: dependency "sub" has disallowed characters in the alias`,
		},
		"duplicate alias": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n  - name: a\n    alias: same\n  - name: b\n    alias: same\n")},
			wantErr: `validation: more than one dependency with name or alias "same"`,
		},
		"null dependency": {
			files:   []*loader.BufferedFile{chartYAML("apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n  -\n")},
			wantErr: "validation: dependencies must not contain empty or null nodes",
		},
		"malformed values.yaml": {
			files:   []*loader.BufferedFile{good, {Name: "values.yaml", Data: []byte("a: [")}},
			wantErr: "cannot load values.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"values.yaml is a list": {
			files:   []*loader.BufferedFile{good, {Name: "values.yaml", Data: []byte("- 1")}},
			wantErr: "cannot load values.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}",
		},
		"malformed Chart.lock": {
			files:   []*loader.BufferedFile{good, {Name: "Chart.lock", Data: []byte("- 1")}},
			wantErr: "cannot load Chart.lock: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type chart.Lock",
		},
		"malformed requirements.yaml": {
			files:   []*loader.BufferedFile{good, {Name: "requirements.yaml", Data: []byte("dependencies: [")}},
			wantErr: "cannot load requirements.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"malformed requirements.lock": {
			files:   []*loader.BufferedFile{good, {Name: "requirements.lock", Data: []byte("dependencies: 3")}},
			wantErr: "cannot load requirements.lock: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field Lock.dependencies of type []*chart.Dependency",
		},
		"invalid subchart": {
			files:   []*loader.BufferedFile{good, chartFile("charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\n")},
			wantErr: "error unpacking subchart sub in good: validation: chart.metadata.version is required",
		},
		"subchart directory without Chart.yaml": {
			files:   []*loader.BufferedFile{good, chartFile("charts/sub/values.yaml", "a: 1\n")},
			wantErr: "error unpacking subchart sub in good: Chart.yaml file is missing",
		},
		"loose file in charts/": {
			files:   []*loader.BufferedFile{good, chartFile("charts/README.md", "# charts\n")},
			wantErr: "error unpacking subchart README.md in good: Chart.yaml file is missing",
		},
		"subchart archive that is not gzip": {
			files:   []*loader.BufferedFile{good, chartFile("charts/sub-1.0.0.tgz", "plain text")},
			wantErr: "error unpacking subchart sub-1.0.0.tgz in good: gzip: invalid header",
		},
		"directory named like an archive": {
			files:   []*loader.BufferedFile{good, chartFile("charts/sub.tgz/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 1.0.0\n")},
			wantErr: "error unpacking subchart sub.tgz in good: expected sub.tgz, got sub.tgz/Chart.yaml",
		},
		// values.yaml is decoded beside the loading: its error still comes before
		// those of the files after it and of the subcharts, and after those before it.
		"malformed values.yaml and an invalid subchart": {
			files:   []*loader.BufferedFile{good, chartFile("charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\n"), {Name: "values.yaml", Data: []byte("a: [")}},
			wantErr: "cannot load values.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"malformed values.yaml before a malformed requirements.lock": {
			files:   []*loader.BufferedFile{good, {Name: "values.yaml", Data: []byte("a: [")}, {Name: "requirements.lock", Data: []byte("dependencies: 3")}},
			wantErr: "cannot load values.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"malformed Chart.lock before a malformed values.yaml": {
			files:   []*loader.BufferedFile{good, {Name: "Chart.lock", Data: []byte("- 1")}, {Name: "values.yaml", Data: []byte("a: [")}},
			wantErr: "cannot load Chart.lock: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type chart.Lock",
		},
		"malformed values.yaml without metadata": {
			files:   []*loader.BufferedFile{{Name: "values.yaml", Data: []byte("a: [")}},
			wantErr: "cannot load values.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"two values.yaml, the first malformed": {
			files:   []*loader.BufferedFile{good, {Name: "values.yaml", Data: []byte("a: [")}, {Name: "values.yaml", Data: []byte("a: 1")}},
			wantErr: "cannot load values.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"invalid chart two levels down": {
			files: []*loader.BufferedFile{
				good,
				chartFile("charts/mid/Chart.yaml", "apiVersion: v2\nname: mid\nversion: 1.0.0\n"),
				chartFile("charts/mid/charts/leaf-1.0.0.tgz", string(tgz(t, entry{Name: "leaf/Chart.yaml", Body: "apiVersion: v2\nname: leaf\nversion: x\n"}))),
			},
			wantErr: `error unpacking subchart mid in good: error unpacking subchart leaf-1.0.0.tgz in mid: validation: chart.metadata.version "x" is invalid`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := loader.LoadFiles(tc.files, defaultLimits())
			if err == nil {
				t.Fatalf("LoadFiles succeeded, want error %q", tc.wantErr)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q\nwant    %q", err, tc.wantErr)
			}
		})
	}
}

func chartFile(name, body string) *loader.BufferedFile {
	return &loader.BufferedFile{Name: name, Data: []byte(body)}
}

func TestLoadDirAndArchiveAgree(t *testing.T) {
	// The same files give the same chart either way.
	m := fstest.MapFS{
		"Chart.yaml":                   {Data: []byte("apiVersion: v2\nname: same\nversion: 0.1.0\n")},
		"values.yaml":                  {Data: []byte("a: 1\n")},
		"templates/cm.yaml":            {Data: []byte("kind: ConfigMap\n")},
		"charts/sub/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n")},
		"charts/sub/templates/x.yaml":  {Data: []byte("x")},
		"charts/sub/charts/leaf.tgz":   {Data: smallChart(t, "leaf", "0.0.1")},
		"files/a.txt":                  {Data: []byte("a")},
		"files/nested/deeper/file.txt": {Data: []byte("deep")},
	}
	fromDir, err := loader.LoadDir(m, defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	fromArchive, err := loader.LoadArchive(bytes.NewReader(packFS(t, "same", m)), defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*chart.Chart{fromDir, fromArchive} {
		c.Raw = nil
		for _, d := range c.Dependencies() {
			d.Raw = nil
			for _, dd := range d.Dependencies() {
				dd.Raw = nil
			}
		}
	}
	if !reflect.DeepEqual(fromDir.Metadata, fromArchive.Metadata) || !reflect.DeepEqual(fromDir.Values, fromArchive.Values) ||
		!reflect.DeepEqual(sortedNames(fromDir.Files), sortedNames(fromArchive.Files)) ||
		!reflect.DeepEqual(sortedNames(fromDir.Templates), sortedNames(fromArchive.Templates)) ||
		!reflect.DeepEqual(treeNames(fromDir), treeNames(fromArchive)) {
		t.Errorf("directory and archive loads differ:\n%v %v\n%v %v", treeNames(fromDir), sortedNames(fromDir.Files), treeNames(fromArchive), sortedNames(fromArchive.Files))
	}
}

func TestLoadFilesHelm2ChartYAML(t *testing.T) {
	// A v1 Chart.yaml as Helm 2 wrote it: tags and condition as strings, and keys
	// Helm 3 no longer knows (ignored).
	c, err := loader.LoadFiles([]*loader.BufferedFile{chartFile("Chart.yaml", `apiVersion: v1
name: legacy
version: 0.1.0
appVersion: "0.9"
description: From Helm 2.
engine: gotpl
tillerVersion: ">=2.10.0"
tags: front-end,backend
condition: legacy.enabled
keywords: [old]
`)}, defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	want := &chart.Metadata{
		APIVersion: "v1", Name: "legacy", Version: "0.1.0", AppVersion: "0.9", Description: "From Helm 2.",
		Tags: "front-end,backend", Condition: "legacy.enabled", Keywords: []string{"old"},
	}
	if !reflect.DeepEqual(c.Metadata, want) {
		t.Errorf("Metadata = %+v\nwant       %+v", c.Metadata, want)
	}
}
