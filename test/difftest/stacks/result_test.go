package stacks

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
)

func TestResultAspects(t *testing.T) {
	tests := map[string]struct {
		helmfile, ours runner.Outcome
		want           []string
	}{
		"the same":               {runner.Outcome{Stdout: "a\n"}, runner.Outcome{Stdout: "a\n"}, nil},
		"both fail in own words": {runner.Outcome{Stderr: "in ./x: y\n", Exit: 3}, runner.Outcome{Stderr: "Error: x:1: y\n", Exit: 1}, nil},
		"stderr":                 {runner.Outcome{Stderr: "W\nW\n"}, runner.Outcome{Stderr: "W\n"}, []string{"stderr"}},
		"only we fail":           {runner.Outcome{Stdout: "a\n"}, runner.Outcome{Stderr: "Error: x\n", Exit: 1}, []string{"stdout", "stderr", "exit"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := Result{Helmfile: tt.helmfile, Ours: tt.ours}
			if got := res.Aspects(); !slices.Equal(got, tt.want) {
				t.Errorf("aspects %q, want %q", got, tt.want)
			}
			if res.Differs() != (tt.want != nil) {
				t.Errorf("differs %v", res.Differs())
			}
		})
	}
}

func TestResultSignature(t *testing.T) {
	repeated := Result{Helmfile: runner.Outcome{Stderr: "W r4\nBuilding r4\nW r4\nTemplating r4\n"}, Ours: runner.Outcome{Stderr: "W r4\nBuilding r4\nTemplating r4\n"}}
	tests := map[string]struct {
		other Result
		same  bool
	}{
		"the same difference with other lines before it": {Result{
			Helmfile: runner.Outcome{Stderr: "W r1\nW r4\nBuilding r4\nW r4\nTemplating r4\n"},
			Ours:     runner.Outcome{Stderr: "W r1\nW r4\nBuilding r4\nTemplating r4\n"}}, true},
		"another line repeated": {Result{
			Helmfile: runner.Outcome{Stderr: "W r1\nW r1\n"}, Ours: runner.Outcome{Stderr: "W r1\n"}}, false},
		"helmfile refuses the case": {Result{
			Helmfile: runner.Outcome{Stderr: "W r4\nBuilding r4\nW r4\nTemplating r4\n", Exit: 1}, Ours: repeated.Ours}, false},
		"stdout differs too": {Result{
			Helmfile: runner.Outcome{Stdout: "a\n", Stderr: repeated.Helmfile.Stderr}, Ours: repeated.Ours}, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tt.other.Signature() == repeated.Signature(); got != tt.same {
				t.Errorf("same signature %v, want %v:\n%s\n%s", got, tt.same, tt.other.Signature(), repeated.Signature())
			}
		})
	}
	d := repeated.Describe()
	for _, want := range []string{"differs in: stderr\n", `helmfile: "W r4"`, `ours:     "Templating r4"`, "our stderr:\n  W r4\n  Building r4\n  Templating r4\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q:\n%s", want, d)
		}
	}
}
