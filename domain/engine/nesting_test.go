package engine_test

import (
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
)

// renderOne renders one template in the Helm 4 dialect (it has every must* form).
func renderOne(t *testing.T, text string, vals M) (string, error) {
	t.Helper()
	out, err := engine.Engine{Dialect: dialect.Helm4}.Render(helm4Chart(text), topValues(vals))
	return out["et/templates/t.yaml"], err
}

// Values nested too deep, or containing themselves, end as Helm's encoders end
// them (toYaml's YAML re-parse stops past 10,000 levels) or, where Helm's encoders
// overflow the stack, with an error; never with a crash.
func TestSerialisersBoundNesting(t *testing.T) {
	const selfDict = `{{ $d := dict }}{{ $_ := set $d "self" $d }}`
	const cycle = "json: unsupported value: encountered a cycle via map[string]interface {}"
	nested := func(kind, call string) string {
		return `{{ $d := ` + strings.Fields(kind)[0] + ` }}{{ range until (int .Values.n) }}{{ $d = ` + kind + ` $d }}{{ end }}` + call
	}
	// 200,000 levels (past every bound, and as deep as a million for the stack), built
	// here: a template takes seconds to build it.
	var deep any = M{}
	for range 200000 {
		deep = M{"a": []any{deep}}
	}
	for name, tc := range map[string]struct {
		text    string
		n       int
		want    string
		wantErr string
	}{
		"toYaml of a self-containing dict":       {text: selfDict + `[{{ toYaml $d }}]`, want: "[]"},
		"toYaml 10,000 dicts deep":               {text: nested(`dict "a"`, `{{ toYaml $d | len }}`), n: 9999, want: "100000001"},
		"toYaml 10,001 dicts deep":               {text: nested(`dict "a"`, `[{{ toYaml $d }}]`), n: 10000, want: "[]"},
		"toYaml 10,000 lists deep":               {text: nested(`list`, `{{ toYaml $d | len }}`), n: 9999, want: "20000"},
		"toYaml 10,001 lists deep":               {text: nested(`list`, `[{{ toYaml $d }}]`), n: 10000, want: "[]"},
		"toYaml 200,000 deep":                    {text: nested(`list`, `[{{ toYaml $d }}]`), n: 1000000, want: "[]"},
		"toYamlPretty of a self-containing dict": {text: selfDict + `[{{ toYamlPretty $d }}]`, want: "[]"},
		"mustToYaml of a self-containing dict":   {text: selfDict + `{{ mustToYaml $d }}`, wantErr: "error calling mustToYaml: error marshaling into JSON: " + cycle},
		"mustToYaml 10,001 deep":                 {text: nested(`list`, `{{ mustToYaml $d }}`), n: 10000, wantErr: "error calling mustToYaml: yaml: exceeded max depth of 10000"},
		"toJson 10,001 deep":                     {text: nested(`list`, `{{ toJson $d | len }}`), n: 10000, want: "20002"},
		"toJson of a self-containing dict":       {text: selfDict + `[{{ toJson $d }}]`, want: "[]"},
		"toJson 200,000 deep":                    {text: nested(`list`, `[{{ toJson $d }}]`), n: 1000000, want: "[]"},
		"mustToJson 200,000 deep":                {text: `{{ mustToJson .Values.deep }}`, wantErr: "error calling mustToJson: exceeded max depth of 100000"},
		"mustToJson of a self-containing dict":   {text: selfDict + `{{ mustToJson $d }}`, wantErr: "error calling mustToJson: " + cycle},
		"toPrettyJson of a self-containing dict": {text: selfDict + `[{{ toPrettyJson $d }}]`, want: "[]"},
		"toRawJson of a self-containing dict":    {text: selfDict + `{{ toRawJson $d }}`, wantErr: "error calling toRawJson: " + cycle},
		"toToml of a self-containing dict":       {text: selfDict + `{{ toToml $d }}`, want: cycle},
		"mustToToml 200,000 deep":                {text: `{{ mustToToml .Values.deep }}`, wantErr: "error calling mustToToml: exceeded max depth of 10000"},
		"deepCopy of a self-containing dict":     {text: selfDict + `{{ deepCopy $d }}`, wantErr: "error calling deepCopy: deepCopy error: " + cycle},
		"mustDeepCopy of a self-containing dict": {text: selfDict + `{{ mustDeepCopy $d }}`, wantErr: "error calling mustDeepCopy: " + cycle},
		"deepCopy of a shared, acyclic dict":     {text: `{{ $a := dict "x" 1 }}{{ $b := dict "l" $a "r" $a }}{{ deepCopy $b | toJson }}`, want: `{"l":{"x":1},"r":{"x":1}}`},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := renderOne(t, tc.text, M{"n": tc.n, "deep": deep})
			if checkError(t, err, tc.wantErr) {
				return
			}
			if got != tc.want {
				t.Errorf("got %.200q, want %q", got, tc.want)
			}
		})
	}
}

// checkError fails the test unless err is as wanted: one containing want, or
// none when want is empty. It reports whether an error was wanted.
func checkError(t *testing.T, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error = %v, want one containing %q", err, want)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}
