package cmdtree

import (
	"reflect"
	"strings"
	"testing"
)

const repoHelp = `Manage repositories.

Usage:
  helm repo [command]

Aliases:
  repo, repos

Available Commands:
  add         add a chart repository
  list        list chart repositories

Flags:
  -h, --help   help for repo

Global Flags:
      --burst-limit int                 client-side default throttling limit (default 100)
      --debug                           enable verbose output
  -n, --namespace string                namespace scope for this request

Use "helm repo [command] --help" for more information about a command.
`

func TestParseHelp(t *testing.T) {
	h, ok := ParseHelp(repoHelp)
	if !ok {
		t.Fatal("not a help")
	}
	want := Help{
		Usage: []string{"helm repo [command]"}, Aliases: "repo, repos", Commands: []string{"add", "list"},
		Flags:   []Flag{{Long: "help", Short: "h"}},
		Globals: []Flag{{Long: "burst-limit", Type: "int"}, {Long: "debug"}, {Long: "namespace", Short: "n", Type: "string"}},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("ParseHelp = %+v, want %+v", h, want)
	}
	if _, ok := ParseHelp("Error: unknown flag: --x\n"); ok {
		t.Error("an error is no help")
	}
}

func TestProbes(t *testing.T) {
	helm := Tree{"": {Commands: []string{"repo"}, Flags: []Flag{{Long: "debug"}}}, "repo": {Commands: []string{"add"}, Flags: []Flag{{Long: "help", Short: "h"}}}, "repo add": {}}
	ours := Tree{"": {Commands: []string{"repo"}, Flags: []Flag{{Long: "debug"}, {Long: "compat"}}}, "repo": {Commands: []string{"add"}}, "repo add": {}}
	var got []string
	for _, p := range Probes([]Tree{helm, ours}, Hidden{Flags: map[string][]string{"repo add": {"force"}}}) {
		got = append(got, p.String())
	}
	want := []string{
		"help: helm --help", "unknown-flag: helm --no-such-flag", "unknown-subcommand: helm nope",
		"flag: helm --compat=1 --help", "flag: helm --debug=1 --help",
		"help: helm repo --help", "unknown-flag: helm repo --no-such-flag", "bare-parent: helm repo", "unknown-subcommand: helm repo nope",
		"flag: helm repo --help=1 --help", "flag: helm repo -h=1 --help",
		"help: helm repo add --help", "unknown-flag: helm repo add --no-such-flag", "flag: helm repo add --force=1 --help",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Probes =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(Sample(Probes([]Tree{helm}, Hidden{}), 3, 1)); n != 3 {
		t.Errorf("Sample kept %d, want 3", n)
	}
}

func TestUnder(t *testing.T) {
	probes := []Probe{
		{Kind: "help", Args: []string{"--help"}},
		{Kind: "help", Args: []string{"repo", "--help"}},
		{Kind: "help", Args: []string{"repo", "add", "--help"}},
		{Kind: "help", Args: []string{"repository", "--help"}},
		{Kind: "bare-parent", Args: []string{"install"}},
	}
	tests := map[string]struct {
		paths []string
		want  int
	}{
		"none":           {want: 5},
		"a parent":       {paths: []string{"repo"}, want: 2},
		"a leaf":         {paths: []string{"repo add"}, want: 1},
		"two":            {paths: []string{"repo add", "install"}, want: 2},
		"not a prefix":   {paths: []string{"rep"}, want: 0},
		"longer than it": {paths: []string{"install x"}, want: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := len(Under(probes, tc.paths)); got != tc.want {
				t.Errorf("Under(%q) kept %d, want %d", tc.paths, got, tc.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	p := Probe{Kind: "help", Args: []string{"repo", "--help"}}
	ourProse := strings.Replace(repoHelp, "Manage repositories.", "Our own words.", 1)
	tests := map[string]struct {
		helm, ours Outcome
		aspects    []string
	}{
		"same":                  {helm: Outcome{Stdout: repoHelp}, ours: Outcome{Stdout: repoHelp}},
		"prose":                 {helm: Outcome{Stdout: repoHelp}, ours: Outcome{Stdout: ourProse}},
		"a flag more":           {helm: Outcome{Stdout: repoHelp}, ours: Outcome{Stdout: strings.Replace(repoHelp, "      --debug", "      --compat string\n      --debug", 1)}, aspects: []string{"help"}},
		"error for help":        {helm: Outcome{Stdout: repoHelp}, ours: Outcome{Stderr: "Error: unknown flag: --x\n", Exit: 1}, aspects: []string{"stdout", "stderr", "exit"}},
		"another error's words": {helm: Outcome{Stderr: "Error: a\n", Exit: 1}, ours: Outcome{Stderr: "Error: b\n", Exit: 1}, aspects: []string{"stderr"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, ok := Compare(p, tc.helm, tc.ours)
			if ok != (tc.aspects == nil) || !reflect.DeepEqual(d.Aspects, tc.aspects) {
				t.Errorf("Compare = %v, %v; want %v", d.Aspects, ok, tc.aspects)
			}
		})
	}
}
