package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
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
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("help lacks %q:\n%s", w, out.String())
				}
			}
			for _, l := range tc.lack {
				if strings.Contains(out.String(), l) {
					t.Errorf("help has %q:\n%s", l, out.String())
				}
			}
		})
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

// Installed as helm, a flag the dialect's Helm lacks is unknown to parsing,
// and -o's value is checked there: both before --help is looked at, in the
// words of Helm's parsing. As kubectl chart, help shows the flags.
func TestFlagsParsedAsHelm(t *testing.T) {
	tests := map[string]struct {
		compat  string
		asHelm  bool
		args    []string
		wantErr string
	}{
		"helm4: list --all":               {compat: "helm4", asHelm: true, args: []string{"list", "--all", "--help"}, wantErr: "unknown flag: --all"},
		"helm4: list -a":                  {compat: "helm4", asHelm: true, args: []string{"list", "-a=1", "--help"}, wantErr: "unknown shorthand flag: 'a' in -a=1"},
		"helm3: list -a":                  {compat: "helm3", asHelm: true, args: []string{"list", "-a", "--help"}},
		"helm3 by --compat: list -a":      {compat: "helm4", asHelm: true, args: []string{"list", "--compat", "helm3", "-a", "--help"}},
		"helm4 by --compat=: list -a":     {compat: "helm3", asHelm: true, args: []string{"list", "--compat=helm4", "-a", "--help"}, wantErr: "unknown shorthand flag: 'a' in -a"},
		"kubectl chart: list -a":          {compat: "helm4", args: []string{"list", "-a", "--help"}},
		"helm4: repo update --fail-on...": {compat: "helm4", asHelm: true, args: []string{"repo", "update", "--fail-on-repo-update-fail", "--help"}, wantErr: "unknown flag: --fail-on-repo-update-fail"},
		"helm4: version --client":         {compat: "helm4", asHelm: true, args: []string{"version", "--client=1", "--help"}, wantErr: "unknown flag: --client"},
		"helm4: status --show-desc":       {compat: "helm4", asHelm: true, args: []string{"status", "--show-desc", "--help"}, wantErr: "unknown flag: --show-desc"},
		"helm3: create --chart-api-...":   {compat: "helm3", asHelm: true, args: []string{"create", "--chart-api-version=1", "--help"}, wantErr: "unknown flag: --chart-api-version"},
		"helm3: history --show-rollback":  {compat: "helm3", asHelm: true, args: []string{"history", "--show-rollback-revision", "--help"}, wantErr: "unknown flag: --show-rollback-revision"},
		"helm3: plugin install --verify":  {compat: "helm3", asHelm: true, args: []string{"plugin", "install", "--verify=1", "--help"}, wantErr: "unknown flag: --verify"},
		"helm3: plugin list --type":       {compat: "helm3", asHelm: true, args: []string{"plugin", "list", "--type=1", "--help"}, wantErr: "unknown flag: --type"},
		"helm3: repo list --no-headers":   {compat: "helm3", asHelm: true, args: []string{"repo", "list", "--no-headers", "--help"}, wantErr: "unknown flag: --no-headers"},
		"helm4: repo add --no-update":     {compat: "helm4", asHelm: true, args: []string{"repo", "add", "--no-update", "--help"}, wantErr: "unknown flag: --no-update"},
		"helm3: repo add --no-update":     {compat: "helm3", asHelm: true, args: []string{"repo", "add", "--no-update", "--help"}},
		"repo add --timeout":              {compat: "helm4", asHelm: true, args: []string{"repo", "add", "--timeout=1", "--help"}, wantErr: `invalid argument "1" for "--timeout" flag: time: missing unit in duration "1"`},
		"package --username":              {compat: "helm4", asHelm: true, args: []string{"package", "--username=1", "--ca-file=1", "--help"}},
		"list -o":                         {compat: "helm3", asHelm: true, args: []string{"list", "-o=1", "--help"}, wantErr: `invalid argument "1" for "-o, --output" flag: invalid format type`},
		"repo list --output":              {compat: "helm4", args: []string{"repo", "list", "--output", "xml", "--help"}, wantErr: `invalid argument "xml" for "-o, --output" flag: invalid format type`},
		"get values -o json":              {compat: "helm4", asHelm: true, args: []string{"get", "values", "-o", "json", "--help"}},
		"helm3: global --colour":          {compat: "helm3", asHelm: true, args: []string{"--colour=1", "--help"}, wantErr: "unknown flag: --colour"},
		"helm3: template --content-cache": {compat: "helm3", asHelm: true, args: []string{"template", "--content-cache=1", "--help"}, wantErr: "unknown flag: --content-cache"},
		"helm4: template --content-cache": {compat: "helm4", asHelm: true, args: []string{"template", "--content-cache=1", "--help"}},
		"kubectl chart: --content-cache":  {compat: "helm3", args: []string{"list", "--content-cache=1", "--help"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("KUBECTL_CHART_COMPAT", tc.compat)
			var out, errOut bytes.Buffer
			root := newRootCmdFor(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, BuildInfo{Version: "v9.9.9", AsHelm: tc.asHelm}, tc.args)
			root.SetArgs(tc.args)
			root.SetOut(&out)
			err := root.Execute()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("err = %v, want help", err)
			case tc.wantErr == "" && !strings.Contains(out.String(), "Usage:"):
				t.Fatalf("no help:\n%s", out.String())
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestFaceDialect(t *testing.T) {
	tests := map[string]struct {
		env  string
		args []string
		want dialect.Dialect
	}{
		"default":             {want: dialect.Helm4},
		"environment":         {env: "helm3", args: []string{"list"}, want: dialect.Helm3},
		"--compat value":      {env: "helm4", args: []string{"list", "--compat", "helm3"}, want: dialect.Helm3},
		"--compat=value":      {env: "helm3", args: []string{"list", "--compat=helm4"}, want: dialect.Helm4},
		"the last one":        {args: []string{"--compat=helm3", "list", "--compat", "helm4"}, want: dialect.Helm4},
		"bad value ignored":   {env: "helm3", args: []string{"--compat", "helm5"}, want: dialect.Helm3},
		"after -- ignored":    {args: []string{"template", "--", "--compat=helm3"}, want: dialect.Helm4},
		"no value at the end": {env: "helm3", args: []string{"list", "--compat"}, want: dialect.Helm3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := faceDialect(&settings{compat: tc.env}, tc.args); got != tc.want {
				t.Errorf("faceDialect = %s, want %s", got, tc.want)
			}
		})
	}
}
