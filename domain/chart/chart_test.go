package chart_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// tree builds parent -> child -> grandchild.
func tree(t *testing.T) (parent, child, grandchild *chart.Chart) {
	t.Helper()
	parent = &chart.Chart{Metadata: &chart.Metadata{Name: "parent", AppVersion: "1.0.0"}}
	child = &chart.Chart{Metadata: &chart.Metadata{Name: "child", Type: "library"}}
	grandchild = &chart.Chart{Metadata: &chart.Metadata{Name: "grandchild", Type: "LIBRARY"}}
	child.AddDependency(grandchild)
	parent.AddDependency(child)
	return parent, child, grandchild
}

func TestChartTree(t *testing.T) {
	parent, child, grandchild := tree(t)
	orphan := &chart.Chart{}
	// A subchart whose metadata is missing still has a path, as in Helm.
	nameless := &chart.Chart{}
	(&chart.Chart{Metadata: &chart.Metadata{Name: "foo"}}).AddDependency(nameless)

	tests := map[string]struct {
		ch                               *chart.Chart
		name, path, fullPath, appVersion string
		isRoot, isLibrary                bool
		parent                           *chart.Chart
		dependencies                     []*chart.Chart
	}{
		"root": {
			ch: parent, name: "parent", path: "parent", fullPath: "parent", appVersion: "1.0.0",
			isRoot: true, dependencies: []*chart.Chart{child},
		},
		"child": {
			ch: child, name: "child", path: "parent.child", fullPath: "parent/charts/child",
			isLibrary: true, parent: parent, dependencies: []*chart.Chart{grandchild},
		},
		"grandchild, library type in any case": {
			ch: grandchild, name: "grandchild", path: "parent.child.grandchild",
			fullPath: "parent/charts/child/charts/grandchild", isLibrary: true, parent: child,
		},
		"no metadata": {
			ch: orphan, isRoot: true,
		},
		"subchart without metadata": {
			ch: nameless, path: "foo.", fullPath: "foo/charts/", parent: nameless.Parent(),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := tc.ch
			if got := c.Name(); got != tc.name {
				t.Errorf("Name() = %q, want %q", got, tc.name)
			}
			if got := c.ChartPath(); got != tc.path {
				t.Errorf("ChartPath() = %q, want %q", got, tc.path)
			}
			if got := c.ChartFullPath(); got != tc.fullPath {
				t.Errorf("ChartFullPath() = %q, want %q", got, tc.fullPath)
			}
			if got := c.AppVersion(); got != tc.appVersion {
				t.Errorf("AppVersion() = %q, want %q", got, tc.appVersion)
			}
			if got := c.IsRoot(); got != tc.isRoot {
				t.Errorf("IsRoot() = %v, want %v", got, tc.isRoot)
			}
			if got := c.IsLibrary(); got != tc.isLibrary {
				t.Errorf("IsLibrary() = %v, want %v", got, tc.isLibrary)
			}
			if got := c.Parent(); got != tc.parent {
				t.Errorf("Parent() = %p, want %p", got, tc.parent)
			}
			if got := c.Dependencies(); !reflect.DeepEqual(got, tc.dependencies) {
				t.Errorf("Dependencies() = %v, want %v", got, tc.dependencies)
			}
		})
	}
}

func TestSetDependenciesReplacesAndReparents(t *testing.T) {
	parent, child, _ := tree(t)
	other := &chart.Chart{Metadata: &chart.Metadata{Name: "other"}}
	parent.SetDependencies(other)
	if got := parent.Dependencies(); len(got) != 1 || got[0] != other {
		t.Fatalf("Dependencies() = %v, want [other]", got)
	}
	if other.Parent() != parent || other.ChartPath() != "parent.other" {
		t.Errorf("other: parent %p path %q, want %p parent.other", other.Parent(), other.ChartPath(), parent)
	}
	parent.SetDependencies()
	if got := parent.Dependencies(); len(got) != 0 {
		t.Errorf("Dependencies() after SetDependencies() = %v, want none", got)
	}
	// The dropped child keeps its own subtree.
	if got := child.Dependencies(); len(got) != 1 {
		t.Errorf("child lost its dependencies: %v", got)
	}
}

func TestCRDObjects(t *testing.T) {
	file := func(name string) *chart.File { return &chart.File{Name: name, Data: []byte("data of " + name)} }
	sub := &chart.Chart{
		Metadata: &chart.Metadata{Name: "sub"},
		Files:    []*chart.File{file("crds/sub.yml"), file("crds/notes.txt")},
	}
	root := &chart.Chart{
		Metadata: &chart.Metadata{Name: "root"},
		Files: []*chart.File{
			file("crds/foo.yaml"),
			file("bar.yaml"),
			file("crds/foo/bar/baz.yaml"),
			file("crdsfoo/bar/baz.yaml"),
			file("crds/README.md"),
			file("crds/upper.JSON"),
		},
	}
	root.AddDependency(sub)
	nameless := &chart.Chart{Files: []*chart.File{file("crds/foo.yaml")}}

	tests := map[string]struct {
		ch   *chart.Chart
		want []chart.CRD
	}{
		"root then subchart, manifests only": {
			ch: root,
			want: []chart.CRD{
				{Name: "crds/foo.yaml", Filename: "root/crds/foo.yaml", File: root.Files[0]},
				{Name: "crds/foo/bar/baz.yaml", Filename: "root/crds/foo/bar/baz.yaml", File: root.Files[2]},
				{Name: "crds/upper.JSON", Filename: "root/crds/upper.JSON", File: root.Files[5]},
				{Name: "crds/sub.yml", Filename: "root/charts/sub/crds/sub.yml", File: sub.Files[0]},
			},
		},
		"subchart alone": {
			ch:   sub,
			want: []chart.CRD{{Name: "crds/sub.yml", Filename: "root/charts/sub/crds/sub.yml", File: sub.Files[0]}},
		},
		"chart without metadata": {
			ch:   nameless,
			want: []chart.CRD{{Name: "crds/foo.yaml", Filename: "crds/foo.yaml", File: nameless.Files[0]}},
		},
		"no crds": {
			ch: &chart.Chart{Metadata: &chart.Metadata{Name: "x"}, Files: []*chart.File{file("README.md")}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := tc.ch.CRDObjects()
			if len(got) != len(tc.want) {
				t.Fatalf("CRDObjects() = %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("CRDObjects()[%d] = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestChartJSONLeavesRawOut(t *testing.T) {
	c := &chart.Chart{
		Raw:      []*chart.File{{Name: "fhqwhgads.yaml", Data: []byte("Everybody to the Limit")}},
		Metadata: &chart.Metadata{Name: "x", Version: "1.0.0", APIVersion: "v2"},
		Values:   map[string]any{"a": "b"},
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"name":"x","version":"1.0.0","apiVersion":"v2"},"lock":null,"templates":null,"values":{"a":"b"},"schema":null,"files":null}`
	if string(data) != want {
		t.Errorf("json = %s\nwant   %s", data, want)
	}
	var back chart.Chart
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Raw != nil || back.Name() != "x" {
		t.Errorf("round trip: Raw %v, name %q", back.Raw, back.Name())
	}
}

func TestValidateDelegatesToMetadata(t *testing.T) {
	tests := map[string]struct {
		ch      *chart.Chart
		wantErr string
	}{
		"valid": {ch: &chart.Chart{Metadata: &chart.Metadata{Name: "foo.yaml", AppVersion: "1.0.0", APIVersion: "v2", Version: "1.0.0", Type: "application"}}},
		"no metadata": {
			ch:      &chart.Chart{},
			wantErr: "validation: chart.metadata is required",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.ch.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("Validate() = %q, want %q", got, tc.wantErr)
			}
		})
	}
}
