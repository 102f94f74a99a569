package dialect_test

import (
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

func TestParse(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    dialect.Dialect
		wantErr string
	}{
		"helm4":          {in: "helm4", want: dialect.Helm4},
		"helm3":          {in: "helm3", want: dialect.Helm3},
		"empty":          {in: "", wantErr: `invalid compat value "": must be "helm4" or "helm3"`},
		"a version":      {in: "v4.3.1", wantErr: `invalid compat value "v4.3.1": must be "helm4" or "helm3"`},
		"case matters":   {in: "Helm4", wantErr: `invalid compat value "Helm4": must be "helm4" or "helm3"`},
		"no other major": {in: "helm2", wantErr: `invalid compat value "helm2": must be "helm4" or "helm3"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := dialect.Parse(tc.in)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Parse(%q) error = %v, want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestDialectProperties(t *testing.T) {
	tests := map[string]struct {
		d           dialect.Dialect
		helm4       bool
		name, helmV string
	}{
		"zero value is unset": {d: "", helm4: false, name: "unset", helmV: "v3.22.0"},
		"helm3":               {d: dialect.Helm3, helm4: false, name: "helm3", helmV: "v3.22.0"},
		"helm4":               {d: dialect.Helm4, helm4: true, name: "helm4", helmV: "v4.3.1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.d.IsHelm4() != tc.helm4 || tc.d.String() != tc.name || tc.d.HelmVersion() != tc.helmV {
				t.Errorf("%q: IsHelm4 %v, String %q, HelmVersion %q", tc.d, tc.d.IsHelm4(), tc.d.String(), tc.d.HelmVersion())
			}
		})
	}
	if dialect.Default != dialect.Helm4 {
		t.Errorf("Default = %q, want helm4", dialect.Default)
	}
}

// The zero value is refused, never taken for either Helm.
func TestCheck(t *testing.T) {
	tests := map[string]struct {
		d       dialect.Dialect
		wantErr error
	}{
		"helm3":          {d: dialect.Helm3},
		"helm4":          {d: dialect.Helm4},
		"the zero value": {d: dialect.Unset, wantErr: dialect.ErrUnset},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := tc.d.Check(); !errors.Is(err, tc.wantErr) {
				t.Errorf("Check() = %v, want %v", err, tc.wantErr)
			}
		})
	}
	if err := dialect.Dialect("helm5").Check(); err == nil {
		t.Error("an unknown dialect passed")
	}
}
