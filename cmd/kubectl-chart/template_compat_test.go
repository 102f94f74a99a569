package main

import "testing"

// template's --dry-run as Helm v4.3.1 reads it (`helm template r CHART --dry-run...`).
func TestHelm4TemplateDryRun(t *testing.T) {
	tests := map[string]struct {
		in, mode, warning, err string
	}{
		"not given":     {in: "", mode: "client"},
		"client":        {in: "client", mode: "client"},
		"server":        {in: "server", mode: "server"},
		"bare":          {in: dryRunUnset, mode: "client", warning: "--dry-run is deprecated and should be replaced with '--dry-run=client'"},
		"true":          {in: "true", mode: "client", warning: "boolean '--dry-run=true' flag is deprecated and must be replaced with '--dry-run=client'"},
		"1 is true":     {in: "1", mode: "client", warning: "boolean '--dry-run=1' flag is deprecated and must be replaced with '--dry-run=client'"},
		"none":          {in: "none", err: `invalid dry-run value ("none"). Must be "server" or "client"`},
		"false":         {in: "false", err: `invalid dry-run value ("false"). Must be "server" or "client"`},
		"0 is false":    {in: "0", err: `invalid dry-run value ("0"). Must be "server" or "client"`},
		"anything else": {in: "bogus", err: `invalid dry-run value ("bogus"). Must be "none", "server", or "client"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mode, warning, err := helm4TemplateDryRun(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || mode != tc.mode || warning != tc.warning {
				t.Fatalf("= %q, %q, %v; want %q, %q", mode, warning, err, tc.mode, tc.warning)
			}
		})
	}
}

func TestHelm3TemplateDryRun(t *testing.T) {
	for _, ok := range []string{"", "client", "true", "server", "none", "false"} {
		if err := helm3DryRun(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if err := helm3DryRun("1"); err == nil || err.Error() != "Invalid dry-run flag. Flag must one of the following: false, true, none, client, server" {
		t.Errorf("1: %v", err)
	}
}
