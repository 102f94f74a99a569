package engine_test

import (
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
)

// A value that contains itself overflows the stack of fmt, which prints an
// action's output and the arguments of print, toString, the numeric
// conversions' error texts ...: Helm crashes on each. The engine refuses the
// value with an error naming the template, the position and the function.
func TestRenderRefusesToPrintCycles(t *testing.T) {
	const self = `{{ $d := dict }}{{ $_ := set $d "self" $d }}`
	const via = ": value contains itself (a cycle via map[string]interface {})"
	const at = "template: et/templates/t.yaml:1:47: "
	for name, tc := range map[string]struct {
		text, wantErr string
	}{
		"action output":                    {text: self + `{{ $d }}`, wantErr: at + "output" + via},
		"action output of a list":          {text: `{{ $l := list 1 }}{{ $d := dict "l" $l }}{{ $l = append $l $d }}{{ $_ := set $d "l" $l }}{{ $l }}`, wantErr: "template: et/templates/t.yaml:1:92: output: value contains itself (a cycle via []interface {})"},
		"the top object":                   {text: `{{ $_ := set . "self" . }}{{ . }}`, wantErr: "template: et/templates/t.yaml:1:29: output: value contains itself (a cycle via common.Values)"},
		"an index of it":                   {text: self + `{{ index $d "self" }}`, wantErr: at + "output" + via},
		"a default of it":                  {text: self + `{{ default $d .Values.none }}`, wantErr: at + "output" + via},
		"dot in with":                      {text: self + `{{ with $d }}{{ . }}{{ end }}`, wantErr: "template: et/templates/t.yaml:1:60: output" + via},
		"print":                            {text: self + `{{ print $d }}`, wantErr: at + "print" + via},
		"printf %v":                        {text: self + `{{ printf "%v" $d }}`, wantErr: at + "printf" + via},
		"printf %T with an extra argument": {text: self + `{{ printf "%T" $d $d }}`, wantErr: at + "printf" + via},
		"printf %[1]T":                     {text: self + `{{ printf "%[1]T" $d }}`, wantErr: at + "printf" + via},
		"println":                          {text: self + `{{ println $d }}`, wantErr: at + "println" + via},
		"html":                             {text: self + `{{ html $d }}`, wantErr: at + "html" + via},
		"toString":                         {text: self + `{{ toString $d }}`, wantErr: at + "toString" + via},
		"toString piped":                   {text: self + `{{ $d | toString | quote }}`, wantErr: "template: et/templates/t.yaml:1:52: toString" + via},
		"cat":                              {text: self + `{{ cat "a" $d }}`, wantErr: at + "cat" + via},
		"quote":                            {text: self + `{{ quote $d }}`, wantErr: at + "quote" + via},
		"squote":                           {text: self + `{{ squote $d }}`, wantErr: at + "squote" + via},
		"join":                             {text: self + `{{ join "," (list $d) }}`, wantErr: at + "join" + via},
		"toStrings":                        {text: self + `{{ toStrings (list $d) }}`, wantErr: at + "toStrings" + via},
		"int":                              {text: self + `{{ int $d }}`, wantErr: at + "int" + via},
		"add":                              {text: self + `{{ add 1 $d }}`, wantErr: at + "add" + via},
		"a slice index":                    {text: self + `{{ slice (list 1 2) $d }}`, wantErr: at + "slice" + via},
		"a dict key":                       {text: self + `{{ dict $d 1 }}`, wantErr: at + "dict" + via},
		"fail's message":                   {text: self + `{{ fail (printf "%v" $d) }}`, wantErr: "template: et/templates/t.yaml:1:53: printf" + via},
		"in an include":                    {text: self + `{{ include "x" $d }}{{ define "x" }}{{ . }}{{ end }}`, wantErr: at + "output" + via},
		"in a tpl":                         {text: self + `{{ tpl "{{ .self }}" $d }}`, wantErr: at + "output" + via},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := renderOne(t, tc.text, M{})
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			if _, ok := errors.AsType[*engine.UnprintableError](err); !ok {
				t.Errorf("error %v is no *engine.UnprintableError", err)
			}
		})
	}
}

// What holds no cycle prints as Helm prints it: guarding actions and functions
// changes no output (values shared but not cyclic, missing values, both dialects).
func TestRenderPrintsSharedValues(t *testing.T) {
	const shared = `{{ $a := dict "x" 1 }}{{ $b := dict "l" $a "r" $a }}`
	for name, tc := range map[string]struct {
		text, want string
	}{
		"a shared dict":      {text: shared + `{{ $b }}`, want: "map[l:map[x:1] r:map[x:1]]"},
		"print and toString": {text: shared + `{{ print $b }} {{ toString $b }}`, want: "map[l:map[x:1] r:map[x:1]] map[l:map[x:1] r:map[x:1]]"},
		"a missing value":    {text: `[{{ .Values.none }}]`, want: "[]"},
		"nil in print":       {text: `{{ print nil }}`, want: "<nil>"},
		"a list":             {text: `{{ list 1 "a" (list) }}`, want: "[1 a []]"},
		"numbers":            {text: `{{ add 1 2 }} {{ int "3" }} {{ max 1 5 2 }}`, want: "3 3 5"},
		"quote and cat":      {text: `{{ quote 1 "a" }} {{ cat 1 "a" }}`, want: `"1" "a" 1 a`},
		"a dict":             {text: `{{ dict "k" "v" }}`, want: "map[k:v]"},
		"printf of the type and length of a cycle": {text: `{{ $d := dict }}{{ $_ := set $d "self" $d }}{{ printf "%T %v %-3T|" $d (len $d) $d }}`, want: "map[string]interface {} 1 map[string]interface {}|"},
		"printf of the type of a cycle":            {text: `{{ $d := dict }}{{ $_ := set $d "self" $d }}{{ printf "%T %%" $d }}`, want: "map[string]interface {} %"},
		"slice":                                    {text: `{{ slice (list 1 2 3) 1 }} {{ mustSlice (list 1 2 3) 0 2 }}`, want: "[2 3] [1 2]"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, d := range []dialect.Dialect{dialect.Helm3, dialect.Helm4} {
				out, err := engine.Engine{Dialect: d}.Render(helm4Chart(tc.text), topValues(M{}))
				if err != nil {
					t.Fatal(err)
				}
				if got := out["et/templates/t.yaml"]; got != tc.want {
					t.Errorf("%v: got %q, want %q", d, got, tc.want)
				}
			}
		})
	}
}
