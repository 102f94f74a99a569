package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// helmTemplateFlags reads testdata/helm-flags/template-DIALECT.txt, the
// flags the dialect's Helm accepts on template (hack/helm-template-flags.sh
// writes it from the real binaries): name → type.
func helmTemplateFlags(t *testing.T, d dialect.Dialect) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "helm-flags", "template-"+string(d)+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	flags := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, typ, _ := strings.Cut(s.Text(), " ")
		flags[strings.TrimPrefix(name, "--")] = typ
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(flags) < 40 {
		t.Fatalf("only %d flags in the list", len(flags))
	}
	return flags
}

// sampleValue is a value a flag of Helm's type parses.
func sampleValue(typ string) string {
	switch typ {
	case "bool":
		return "true"
	case "duration":
		return "1s"
	case "stringToString":
		return "a=b"
	case "WaitStrategy":
		return "watcher"
	}
	return "x"
}

// Every flag the dialect's Helm accepts on template is accepted, and Helm 4's
// own flags are unknown in the Helm 3 dialect, as Helm 3 has them.
func TestTemplateAcceptsHelmFlags(t *testing.T) {
	for _, d := range []dialect.Dialect{dialect.Helm4, dialect.Helm3} {
		flags := helmTemplateFlags(t, d)
		other := helmTemplateFlags(t, map[dialect.Dialect]dialect.Dialect{dialect.Helm4: dialect.Helm3, dialect.Helm3: dialect.Helm4}[d])
		for name, typ := range other {
			if _, ok := flags[name]; !ok {
				flags[name] = "unknown " + typ
			}
		}
		for name, typ := range flags {
			t.Run(string(d)+"/"+name, func(t *testing.T) {
				o := &TemplateOptions{}
				cmd := newCmdTemplate(nil, o)
				arg := "--" + name + "=" + sampleValue(strings.TrimPrefix(typ, "unknown "))
				if err := cmd.ParseFlags([]string{"--compat", string(d), arg}); err != nil {
					t.Fatalf("%s: %v", arg, err)
				}
				dia, err := o.compat.Dialect()
				if err != nil {
					t.Fatal(err)
				}
				_, err = o.install.validateFor(dia, cmd.Flags())
				if strings.HasPrefix(typ, "unknown ") {
					if err == nil || err.Error() != "unknown flag: --"+name {
						t.Fatalf("%s in %s: error = %v, want unknown flag", arg, d, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s in %s: %v", arg, d, err)
				}
			})
		}
	}
}

// What Helm v4.3.1 and v3.22.0 print for install's flags on template (stderr
// and error as `helm template x CHART FLAGS...` gives them).
func TestTemplateInstallFlags(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
		"templates/NOTES.txt": "notes\n",
	})
	tests := map[string]struct {
		compat  string
		args    []string
		stderr  string
		wantErr string
	}{
		"helm4: ignored": {compat: "helm4", args: []string{"--create-namespace", "--description=d", "-l", "a=b", "--disable-openapi-validation", "--wait", "--wait-for-jobs", "--timeout=1s", "--replace", "--take-ownership", "--server-side=false", "--rollback-on-failure"}},
		"helm3: ignored": {compat: "helm3", args: []string{"--create-namespace", "--description=d", "-l", "a=b", "--disable-openapi-validation", "--wait", "--wait-for-jobs", "--timeout=1s", "--replace", "--take-ownership", "--atomic", "--force", "--hide-notes"}},
		"helm4: deprecated": {compat: "helm4", args: []string{"--dry-run", "--atomic", "--wait=true", "--hide-notes", "--render-subchart-notes", "--force"}, stderr: `level=WARN msg="--wait=true is deprecated (boolean value) and can be replaced with --wait=watcher"
Flag --atomic has been deprecated, use --rollback-on-failure instead
Flag --hide-notes has been deprecated, this flag has no effect for 'kubectl chart template' and will be removed in Helm 5
Flag --render-subchart-notes has been deprecated, this flag has no effect for 'kubectl chart template' and will be removed in Helm 5
Flag --force has been deprecated, use --force-replace instead
level=WARN msg="--dry-run is deprecated and should be replaced with '--dry-run=client'"
`},
		"helm4: exclusive":           {compat: "helm4", args: []string{"--force", "--force-conflicts"}, stderr: "Flag --force has been deprecated, use --force-replace instead\n", wantErr: "if any flags in the group [force force-conflicts] are set none of the others can be; [force force-conflicts] were all set"},
		"helm4: validate or dry-run": {compat: "helm4", args: []string{"--validate", "--dry-run"}, stderr: "Flag --validate has been deprecated, use '--dry-run=server' instead\n", wantErr: "if any flags in the group [validate dry-run] are set none of the others can be; [dry-run validate] were all set"},
		"helm4: bad wait":            {compat: "helm4", args: []string{"--wait=bad"}, wantErr: `invalid argument "bad" for "--wait" flag: invalid wait input "bad". Valid inputs are watcher, hookOnly, and legacy`},
		"helm3: wait is a bool":      {compat: "helm3", args: []string{"--wait=legacy"}, wantErr: `invalid argument "legacy" for "--wait" flag: strconv.ParseBool: parsing "legacy": invalid syntax`},
		"helm3: Helm 4's flag":       {compat: "helm3", args: []string{"--server-side=bad", "--force-conflicts"}, wantErr: "unknown flag: --server-side"},
		"helm4: bad server-side":     {compat: "helm4", args: []string{"--server-side=bad"}, wantErr: `invalid argument "bad" for "--server-side" flag: strconv.ParseBool: parsing "bad": invalid syntax`},
		"reserved label":             {compat: "helm3", args: []string{"--labels", "owner=me"}, wantErr: "user supplied labels contains system reserved label name. System labels: [name owner status version createdAt modifiedAt]"},
		"helm4: reserved label":      {compat: "helm4", args: []string{"--labels", "status=x"}, wantErr: "user supplied labels contains system reserved label name. System labels: [name owner status version createdAt modifiedAt]"},
		"verify a directory":         {compat: "helm4", args: []string{"--verify"}, wantErr: "unpacked charts cannot be verified"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, stderr, err := runRoot(t, append([]string{"template", "x", dir, "--compat", tc.compat}, tc.args...)...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if !strings.Contains(out, "name: x\n") {
				t.Errorf("manifest not printed:\n%s", out)
			}
			if stderr != tc.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tc.stderr)
			}
		})
	}
}
