package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Installed as helm, help lists Helm's global flags of the dialect and
// Helm's commands; kubectl's names and our own commands stay out of it.
func TestHelpAsHelm(t *testing.T) {
	tests := map[string]struct {
		compat     string
		asHelm     bool
		args       []string
		want, lack []string
	}{
		"a command's copy of a global flag": {compat: "helm4", asHelm: true, args: []string{"dependency", "build", "--help"},
			want: []string{"Global Flags:\n      --burst-limit int", "      --repository-config string"},
			lack: []string{"--plain-http                     use insecure HTTP connections for OCI dependencies\n      --registry-config"}},
		"our flags hidden": {compat: "helm4", asHelm: true, args: []string{"install", "--help"},
			want: []string{"--dry-run"}, lack: []string{"--compat string", "--storage string", "--field-manager string", "--render-timeout duration"}},
		"our subcommands hidden": {compat: "helm4", asHelm: true, args: []string{"plugin", "--help"},
			want: []string{"  list "}, lack: []string{"  run "}},
		"helm4": {compat: "helm4", asHelm: true,
			want: []string{"--kube-context string", "--color string", "--colour string", "--content-cache string", "--burst-limit int", "-n, --namespace string"},
			lack: []string{"--context string", "--as string", "-v, --v", "  diff ", "  drift ", "  storage "}},
		"helm3": {compat: "helm3", asHelm: true,
			want: []string{"--kube-context string", "--repository-config string"},
			lack: []string{"--color", "--content-cache", "--context string", "  diff "}},
		"kubectl chart": {compat: "helm4",
			want: []string{"--context string", "  diff ", "  drift ", "  storage "},
			lack: []string{"--kube-context string", "--color"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("KUBECTL_CHART_COMPAT", tc.compat)
			var out, errOut bytes.Buffer
			args := tc.args
			if args == nil {
				args = []string{"--help"}
			}
			root := newRootCmdFor(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, BuildInfo{Version: "v9.9.9", AsHelm: tc.asHelm}, args)
			root.SetArgs(args)
			root.SetOut(&out)
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			hasAndLacks(t, out.String(), tc.want, tc.lack)
		})
	}
}

// hasAndLacks checks that out has each of want and none of lack.
func hasAndLacks(t *testing.T, out string, want, lack []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	for _, l := range lack {
		if strings.Contains(out, l) {
			t.Errorf("output has %q:\n%s", l, out)
		}
	}
}

func TestColorModeError(t *testing.T) {
	tests := map[string]struct {
		args []string
		env  string
		want string
	}{
		"default":            {env: "auto"},
		"flag":               {args: []string{"list", "--color", "always"}, env: "auto"},
		"colour":             {args: []string{"--colour=never", "version"}, env: "auto"},
		"invalid":            {args: []string{"--color=1", "--help"}, env: "auto", want: `invalid color mode "1": must be one of: never, auto, always`},
		"after unknown flag": {args: []string{"nope", "--bogus", "--color=red"}, env: "auto", want: `invalid color mode "red": must be one of: never, auto, always`},
		"help first":         {args: []string{"--help", "--color=1"}, env: "auto"},
		"diff's switch":      {args: []string{"diff", "upgrade", "r", "c", "--color", "--suppress-secrets"}, env: "never"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := colorModeError(tc.args, tc.env)
			if got := errString(err); got != tc.want {
				t.Errorf("colorModeError(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

func TestEnvColorMode(t *testing.T) {
	tests := map[string]struct {
		env  map[string]string
		want string
	}{
		"unset":    {want: "auto"},
		"no color": {env: map[string]string{"NO_COLOR": "1", "HELM_COLOR": "always"}, want: "never"},
		"helm":     {env: map[string]string{"HELM_COLOR": "ALWAYS"}, want: "always"},
		"invalid":  {env: map[string]string{"HELM_COLOR": "red"}, want: "auto"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := envColorMode(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("envColorMode = %q, want %q", got, tc.want)
			}
		})
	}
}

// cobra's unknown command is followed by its hint, as Helm prints it.
func TestPrintErrorUnknownCommand(t *testing.T) {
	tests := map[string]struct {
		err  error
		want string
	}{
		"unknown command": {err: errors.New(`unknown command "nope" for "helm"`), want: "Error: unknown command \"nope\" for \"helm\"\nRun 'helm --help' for usage.\n"},
		"suggestions": {err: errors.New("unknown command \"instal\" for \"helm\"\n\nDid you mean this?\n\tinstall\n"),
			want: "Error: unknown command \"instal\" for \"helm\"\n\nDid you mean this?\n\tinstall\n\nRun 'helm --help' for usage.\n"},
		"other": {err: errors.New("unknown flag: --nope"), want: "Error: unknown flag: --nope\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var errOut bytes.Buffer
			printError(genericiooptions.IOStreams{ErrOut: &errOut}, BuildInfo{AsHelm: true}, tc.err)
			if errOut.String() != tc.want {
				t.Errorf("printed %q, want %q", errOut.String(), tc.want)
			}
		})
	}
}
