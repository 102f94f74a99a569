package main

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Installed as helm, flags are checked as Helm's parser checks them, so
// also ahead of --help; as kubectl chart our flags stay.
func TestHelmFlagsWhileParsing(t *testing.T) {
	tests := map[string]struct {
		compat  string
		asHelm  bool
		args    []string
		wantErr string
		// out and lack are what stdout (help, and cobra's deprecations in
		// this test) has and lacks.
		out, lack []string
		// errOut is what stderr has (Helm's logged warnings).
		errOut []string
	}{
		"helm4: -o refused": {compat: "helm4", asHelm: true, args: []string{"install", "-o=1", "--help"},
			wantErr: `invalid argument "1" for "-o, --output" flag: invalid format type`},
		"helm4: -o taken": {compat: "helm4", asHelm: true, args: []string{"upgrade", "-o", "json", "--help"}, out: []string{"helm upgrade [RELEASE] [CHART] [flags]"}},
		"helm4: rollback has no -o": {compat: "helm4", asHelm: true, args: []string{"rollback", "-o=1", "--help"},
			wantErr: "unknown shorthand flag: 'o' in -o=1"},
		"helm4: uninstall has no --output": {compat: "helm4", asHelm: true, args: []string{"uninstall", "--output=json", "--help"},
			wantErr: "unknown flag: --output"},
		"helm4: test has no --hide-notes": {compat: "helm4", asHelm: true, args: []string{"test", "--hide-notes", "--help"},
			wantErr: "unknown flag: --hide-notes"},
		"helm3: test has --hide-notes": {compat: "helm3", asHelm: true, args: []string{"test", "--hide-notes", "--help"},
			out: []string{"helm test [RELEASE] [flags]", "--hide-notes"}, lack: []string{"--output"}},
		"helm4: template's --wait checked": {compat: "helm4", asHelm: true, args: []string{"template", "--wait=1", "--help"},
			wantErr: `invalid argument "1" for "--wait" flag: invalid wait input "1". Valid inputs are watcher, hookOnly, and legacy`},
		"helm4: a deprecated flag says so": {compat: "helm4", asHelm: true, args: []string{"install", "--atomic", "--help"},
			out: []string{"Flag --atomic has been deprecated, use --rollback-on-failure instead\n"}, lack: []string{"      --atomic "}},
		"helm4: a boolean --wait logged at once": {compat: "helm4", asHelm: true, args: []string{"upgrade", "--wait=true", "--help"},
			errOut: []string{`level=WARN msg="--wait=true is deprecated (boolean value) and can be replaced with --wait=watcher"` + "\n"}},
		"helm4: template's notes flag": {compat: "helm4", asHelm: true, args: []string{"template", "--hide-notes", "--help"},
			out: []string{"Flag --hide-notes has been deprecated, this flag has no effect for 'helm template' and will be removed in Helm 5\n"}},
		"helm4: --recreate-pods unknown": {compat: "helm4", asHelm: true, args: []string{"rollback", "--recreate-pods", "--help"},
			wantErr: "unknown flag: --recreate-pods"},
		"helm4: post-renderer looked up": {compat: "helm4", asHelm: true, args: []string{"upgrade", "--post-renderer=nope", "--help"},
			wantErr: `invalid argument "nope" for "--post-renderer" flag: plugin: {Name:nope Type:postrenderer/v1} not found`},
		"helm3: Helm 4's flags unknown": {compat: "helm3", asHelm: true, args: []string{"install", "--server-side=true", "--help"},
			wantErr: "unknown flag: --server-side"},
		"helm3: template's Helm 4 flags unknown": {compat: "helm3", asHelm: true, args: []string{"template", "--force-conflicts", "--help"},
			wantErr: "unknown flag: --force-conflicts"},
		"helm3: rollback's Helm 4 flag": {compat: "helm3", asHelm: true, args: []string{"rollback", "--description=x", "--help"},
			wantErr: "unknown flag: --description"},
		"helm3: --wait a boolean": {compat: "helm3", asHelm: true, args: []string{"install", "--wait=1", "--help"},
			out: []string{"      --wait   ", `--dry-run string[="client"]`}},
		"helm3: --wait refused as a boolean": {compat: "helm3", asHelm: true, args: []string{"uninstall", "--wait=watcher", "--help"},
			wantErr: `invalid argument "watcher" for "--wait" flag: strconv.ParseBool: parsing "watcher": invalid syntax`},
		"helm3: rollback --dry-run a boolean": {compat: "helm3", asHelm: true, args: []string{"rollback", "--dry-run=1", "--help"},
			out: []string{"      --dry-run   "}},
		"helm3: deprecated --recreate-pods": {compat: "helm3", asHelm: true, args: []string{"upgrade", "--recreate-pods", "--help"},
			out:  []string{"Flag --recreate-pods has been deprecated, functionality will no longer be updated. Consult the documentation for other methods to recreate pods\n"},
			lack: []string{"      --recreate-pods "}},
		"helm3: --compat on the line chooses": {compat: "helm4", asHelm: true, args: []string{"--compat", "helm3", "install", "--server-side", "--help"},
			wantErr: "unknown flag: --server-side"},
		"helm3: Helm 4's global flags unknown": {compat: "helm3", asHelm: true, args: []string{"--content-cache=x", "list", "--help"},
			wantErr: "unknown flag: --content-cache"},
		"helm4: --disable-openapi-validation": {compat: "helm4", asHelm: true, args: []string{"install", "--disable-openapi-validation", "--help"},
			out: []string{"--disable-openapi-validation"}},
		"docs":                             {compat: "helm4", asHelm: true, args: []string{"docs", "--help"}, out: []string{"helm docs [flags]", "--generate-headers"}},
		"kubectl chart: rollback -o":       {compat: "helm4", args: []string{"rollback", "-o", "json", "--help"}, out: []string{"-o, --output"}},
		"kubectl chart: test --hide-notes": {compat: "helm4", args: []string{"test", "--hide-notes", "--help"}, out: []string{"test NAME"}},
		"helm4: list --all":                {compat: "helm4", asHelm: true, args: []string{"list", "--all", "--help"}, wantErr: "unknown flag: --all"},
		"helm4: list -a":                   {compat: "helm4", asHelm: true, args: []string{"list", "-a=1", "--help"}, wantErr: "unknown shorthand flag: 'a' in -a=1"},
		"helm3: list -a":                   {compat: "helm3", asHelm: true, args: []string{"list", "-a", "--help"}, out: []string{"Usage:"}},
		"helm3 by --compat: list -a":       {compat: "helm4", asHelm: true, args: []string{"list", "--compat", "helm3", "-a", "--help"}, out: []string{"Usage:"}},
		"helm4 by --compat=: list -a":      {compat: "helm3", asHelm: true, args: []string{"list", "--compat=helm4", "-a", "--help"}, wantErr: "unknown shorthand flag: 'a' in -a"},
		"kubectl chart: list -a":           {compat: "helm4", args: []string{"list", "-a", "--help"}, out: []string{"Usage:"}},
		"helm4: repo update --fail-on...":  {compat: "helm4", asHelm: true, args: []string{"repo", "update", "--fail-on-repo-update-fail", "--help"}, wantErr: "unknown flag: --fail-on-repo-update-fail"},
		"helm4: version --client":          {compat: "helm4", asHelm: true, args: []string{"version", "--client=1", "--help"}, wantErr: "unknown flag: --client"},
		"helm4: status --show-desc":        {compat: "helm4", asHelm: true, args: []string{"status", "--show-desc", "--help"}, wantErr: "unknown flag: --show-desc"},
		"helm3: create --chart-api-...":    {compat: "helm3", asHelm: true, args: []string{"create", "--chart-api-version=1", "--help"}, wantErr: "unknown flag: --chart-api-version"},
		"helm3: history --show-rollback":   {compat: "helm3", asHelm: true, args: []string{"history", "--show-rollback-revision", "--help"}, wantErr: "unknown flag: --show-rollback-revision"},
		"helm3: plugin install --verify":   {compat: "helm3", asHelm: true, args: []string{"plugin", "install", "--verify=1", "--help"}, wantErr: "unknown flag: --verify"},
		"helm3: plugin list --type":        {compat: "helm3", asHelm: true, args: []string{"plugin", "list", "--type=1", "--help"}, wantErr: "unknown flag: --type"},
		"helm3: repo list --no-headers":    {compat: "helm3", asHelm: true, args: []string{"repo", "list", "--no-headers", "--help"}, wantErr: "unknown flag: --no-headers"},
		"helm4: repo add --no-update":      {compat: "helm4", asHelm: true, args: []string{"repo", "add", "--no-update", "--help"}, wantErr: "unknown flag: --no-update"},
		"helm3: repo add --no-update":      {compat: "helm3", asHelm: true, args: []string{"repo", "add", "--no-update", "--help"}, out: []string{"Usage:"}},
		"repo add --timeout":               {compat: "helm4", asHelm: true, args: []string{"repo", "add", "--timeout=1", "--help"}, wantErr: `invalid argument "1" for "--timeout" flag: time: missing unit in duration "1"`},
		"package --username":               {compat: "helm4", asHelm: true, args: []string{"package", "--username=1", "--ca-file=1", "--help"}, out: []string{"Usage:"}},
		"list -o":                          {compat: "helm3", asHelm: true, args: []string{"list", "-o=1", "--help"}, wantErr: `invalid argument "1" for "-o, --output" flag: invalid format type`},
		"repo list --output":               {compat: "helm4", args: []string{"repo", "list", "--output", "xml", "--help"}, wantErr: `invalid argument "xml" for "-o, --output" flag: invalid format type`},
		"get values -o json":               {compat: "helm4", asHelm: true, args: []string{"get", "values", "-o", "json", "--help"}, out: []string{"Usage:"}},
		"helm3: global --colour":           {compat: "helm3", asHelm: true, args: []string{"--colour=1", "--help"}, wantErr: "unknown flag: --colour"},
		"helm3: template --content-cache":  {compat: "helm3", asHelm: true, args: []string{"template", "--content-cache=1", "--help"}, wantErr: "unknown flag: --content-cache"},
		"helm4: template --content-cache":  {compat: "helm4", asHelm: true, args: []string{"template", "--content-cache=1", "--help"}, out: []string{"Usage:"}},
		"kubectl chart: --content-cache":   {compat: "helm3", args: []string{"list", "--content-cache=1", "--help"}, out: []string{"Usage:"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("KUBECTL_CHART_COMPAT", tc.compat)
			t.Setenv("HELM_PLUGINS", t.TempDir())
			var out, errOut bytes.Buffer
			root := newRootCmdFor(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, BuildInfo{Version: "v9.9.9", AsHelm: tc.asHelm}, tc.args)
			root.SetArgs(tc.args)
			root.SetOut(&out)
			err := root.Execute()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			hasAndLacks(t, out.String(), tc.out, tc.lack)
			hasAndLacks(t, errOut.String(), tc.errOut, nil)
		})
	}
}

func TestHelmFaceDialect(t *testing.T) {
	tests := map[string]struct {
		env  string
		args []string
		want dialect.Dialect
	}{
		"default":            {want: dialect.Helm4},
		"environment":        {env: "helm3", args: []string{"install"}, want: dialect.Helm3},
		"flag":               {env: "helm3", args: []string{"install", "--compat", "helm4"}, want: dialect.Helm4},
		"flag with =":        {args: []string{"--compat=helm3", "install"}, want: dialect.Helm3},
		"the last flag":      {args: []string{"--compat=helm3", "--compat=helm4"}, want: dialect.Helm4},
		"after --":           {args: []string{"install", "--", "--compat=helm3"}, want: dialect.Helm4},
		"an invalid value":   {env: "helm3", args: []string{"--compat=helm9"}, want: dialect.Helm3},
		"flag without value": {env: "helm3", args: []string{"install", "--compat"}, want: dialect.Helm3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := helmFaceDialect(&settings{compat: tc.env}, tc.args); got != tc.want {
				t.Errorf("helmFaceDialect = %s, want %s", got, tc.want)
			}
		})
	}
}
