package archive_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/archive"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

func testChart(reverse bool) *chart.Chart {
	tpls := []*chart.File{
		{Name: "templates/a.yaml", Data: []byte("a: 1\n")},
		{Name: "templates/b.yaml", Data: []byte("b: 2\n")},
	}
	if reverse {
		tpls[0], tpls[1] = tpls[1], tpls[0]
	}
	c := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "1.2.3", AppVersion: "4.5"},
		Raw:       []*chart.File{{Name: "values.yaml", Data: []byte("x: 1\n")}},
		Templates: tpls,
		Files:     []*chart.File{{Name: "README.md", Data: []byte("# demo\n")}},
	}
	sub := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "sub", Version: "0.1.0"}}
	c.AddDependency(sub)
	return c
}

func TestWriteIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := archive.Write(&a, testChart(false)); err != nil {
		t.Fatal(err)
	}
	if err := archive.Write(&b, testChart(true)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("same chart with files in another order gave different bytes")
	}
	// gzip header: no modification time, no name.
	if mtime := a.Bytes()[4:8]; !bytes.Equal(mtime, []byte{0, 0, 0, 0}) {
		t.Errorf("gzip header carries a modification time: %v", mtime)
	}
	c, err := loader.LoadArchive(bytes.NewReader(a.Bytes()), loader.DefaultLimits())
	if err != nil {
		t.Fatalf("archive does not load: %v", err)
	}
	if c.Name() != "demo" || len(c.Templates) != 2 || len(c.Dependencies()) != 1 || c.Values["x"] != float64(1) && c.Values["x"] != 1 {
		t.Errorf("round trip lost content: %+v", c)
	}
	names, err := archive.Entries(testChart(false))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"demo/Chart.yaml", "demo/README.md", "demo/templates/a.yaml", "demo/templates/b.yaml", "demo/values.yaml", "demo/charts/sub/Chart.yaml"}
	if len(names) != len(want) {
		t.Fatalf("entries %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("entry %d = %s, want %s", i, names[i], want[i])
		}
	}
}

func TestWriteRefusesBadCharts(t *testing.T) {
	tests := map[string]func(c *chart.Chart){
		"name with slash":   func(c *chart.Chart) { c.Metadata.Name = "a/b" },
		"name dot-dot":      func(c *chart.Chart) { c.Metadata.Name = ".." },
		"non-semver":        func(c *chart.Chart) { c.Metadata.Version = "latest" },
		"file escapes":      func(c *chart.Chart) { c.Files = append(c.Files, &chart.File{Name: "../../etc/passwd"}) },
		"invalid schema":    func(c *chart.Chart) { c.Schema = []byte("{") },
		"duplicate entries": func(c *chart.Chart) { c.Files = append(c.Files, &chart.File{Name: "templates/a.yaml"}) },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			c := testChart(false)
			mutate(c)
			err := archive.Write(&bytes.Buffer{}, c)
			if err == nil {
				t.Fatal("want an error")
			}
			t.Log(err)
		})
	}
	if err := archive.Write(&bytes.Buffer{}, &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "x", Version: "1.0.0"}}); err != nil {
		t.Fatal(err)
	}
	_, err := archive.Entries(&chart.Chart{Metadata: &chart.Metadata{Name: ".."}})
	if !errors.Is(err, archive.ErrInvalidName) {
		t.Errorf("err = %v, want ErrInvalidName", err)
	}
}
