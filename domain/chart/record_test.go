package chart

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A chart decoded from a record keeps the members the model lacks at every
// level, and writes them back.
func TestChartFromRecordKeepsUnknownMembers(t *testing.T) {
	in := `{"metadata":{"name":"c","version":"1.0.0","x-md":1,"maintainers":[{"name":"a","x-m":2}],` +
		`"dependencies":[{"name":"d","repository":"","x-d":3}]},` +
		`"lock":{"generated":"2026-01-02T03:04:05Z","digest":"sha256:0","dependencies":[{"name":"d","repository":"r","x-ld":4}],"x-l":5},` +
		`"templates":[{"name":"templates/a.yaml","data":"YQ==","modtime":"2026-01-02T03:04:05Z"}],` +
		`"values":{"a":1},"schema":null,"schemamodtime":"0001-01-01T00:00:00Z",` +
		`"files":[{"name":"README.md","data":"","modtime":"x"},null],"modtime":"2026-01-02T03:04:05Z"}`
	var c Chart
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("round trip:\n got %s\nwant %s", g, w)
	}
}

// Chart.yaml and Chart.lock keep nothing: a chart loaded from disk is
// written into records as before, whatever its files hold.
func TestChartFromYAMLKeepsNothing(t *testing.T) {
	var md Metadata
	if err := yaml.Unmarshal([]byte("apiVersion: v2\nname: c\nversion: 1.0.0\nx-custom: 1\ndependencies:\n- name: d\n  x-dep: 2\n"), &md); err != nil {
		t.Fatal(err)
	}
	c := Chart{Metadata: &md}
	out, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); strings.Contains(s, "x-") || !strings.Contains(s, `"repository":""`) {
		t.Errorf("a chart loaded from YAML encodes as %s", s)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
