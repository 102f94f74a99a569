package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

func TestCompatFlags(t *testing.T) {
	tests := map[string]struct {
		args    []string
		env     string
		def     dialect.Dialect
		want    dialect.Dialect
		wantErr string
	}{
		"default":                       {def: dialect.Helm4, want: dialect.Helm4},
		"the environment":               {env: "helm3", def: dialect.Helm4, want: dialect.Helm3},
		"the flag wins":                 {args: []string{"--compat=helm4"}, env: "helm3", def: dialect.Helm3, want: dialect.Helm4},
		"the flag over a bad variable":  {args: []string{"--compat", "helm3"}, env: "nonsense", def: dialect.Helm4, want: dialect.Helm3},
		"no default: the command picks": {def: "", want: ""},
		"a bad flag":                    {args: []string{"--compat=3"}, def: dialect.Helm4, wantErr: `--compat: invalid compat value "3": must be "helm4" or "helm3"`},
		"a bad variable":                {env: "v4", def: dialect.Helm4, wantErr: `$KUBECTL_CHART_COMPAT: invalid compat value "v4": must be "helm4" or "helm3"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := compatFlags{env: tc.env}
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			c.AddFlags(fs, tc.def)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got, err := c.Dialect()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Dialect() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// Findings reach stderr as the dialect's Helm logs them (texts from Helm v4.3.1
// and v3.22.0 rendering a chart with a bad tag, a missing import and an unknown
// hook).
func TestWarningsByDialect(t *testing.T) {
	report := func(warn func(string, ...any)) {
		warn("Warning: Tag '%s' for chart %s returned non-bool value", "t1", "sub")
		warn("warning: skipped value for %s.%s: Not a table.", "w2.sub", "tbl")
		warn("Warning: ImportValues missing table from chart %s: %v", "sub", errText(`"nothere" is not a table`))
		warn("info: skipping unknown hook: %q", "bogus")
		warn("something %s", "else")
	}
	var h4, h3 strings.Builder
	report(helm4Warn(helm4Logger(&h4, false)))
	report(helm3Warn(&h3))
	want4 := `level=WARN msg="returned non-bool value" tag=t1 chart=sub
level=INFO msg="warning: skipped value for w2.sub.tbl: Not a table."
level=WARN msg="ImportValues missing table from chart" chart=sub error="\"nothere\" is not a table"
level=INFO msg="skipping unknown hooks" hookTypes=bogus
level=INFO msg="something else"
`
	want3 := `dependencies.go:95: Warning: Tag 't1' for chart sub returned non-bool value
coalesce.go:237: warning: skipped value for w2.sub.tbl: Not a table.
dependencies.go:270: Warning: ImportValues missing table from chart sub: "nothere" is not a table
manifest_sorter.go:199: info: skipping unknown hook: "bogus"
something else
`
	if h4.String() != want4 {
		t.Errorf("helm4:\n%s\nwant\n%s", h4.String(), want4)
	}
	if h3.String() != want3 {
		t.Errorf("helm3:\n%s\nwant\n%s", h3.String(), want3)
	}
	var dep4, dep3 strings.Builder
	deprecatedChartWarning(dialect.Helm4, &dep4, false)
	deprecatedChartWarning(dialect.Helm3, &dep3, false)
	if dep4.String() != "level=WARN msg=\"this chart is deprecated\"\n" || dep3.String() != "WARNING: This chart is deprecated\n" {
		t.Errorf("deprecated: %q / %q", dep4.String(), dep3.String())
	}
}

type errText string

func (e errText) Error() string { return string(e) }
