package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/engine"
)

// sharedGraph is $b, a dict that holds one dict twice, 60 levels deep.
const sharedGraph = `{{ $b := dict "v" "x" }}{{ range until 60 }}{{ $b = dict "x" $b "y" $b }}{{ end }}`

// Each bomb is refused at its limit, with the limit and the place named.
func TestRenderBudget(t *testing.T) {
	const fanOut = `{{ define "a" }}x{{ end }}` +
		`{{ define "b" }}{{ range until 100 }}{{ include "a" . }}{{ end }}{{ end }}` +
		`{{ define "c" }}{{ range until 100 }}{{ include "b" . }}{{ end }}{{ end }}` +
		`{{ define "d" }}{{ range until 100 }}{{ include "c" . }}{{ end }}{{ end }}` +
		`{{ range until 100 }}{{ include "d" . }}{{ end }}`
	for name, tc := range map[string]struct {
		text    string
		budget  engine.Budget
		want    string
		wantErr string
	}{
		"within the defaults": {text: `{{ repeat 3 "ab" }}{{ until 3 }}{{ seq 3 }}{{ randAlpha 4 | len }}{{ indent 2 "x" }}`,
			want: "ababab[0 1 2]1 2 34  x"},
		"until 1e8": {text: `{{ until 100000000 }}`,
			wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: until would build a value of 800000000 bytes, more than 268435456 (raise it with --render-max-value-bytes)"},
		"untilStep 1e8": {text: `{{ untilStep 0 100000000 1 }}`,
			wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: untilStep would build a value of 800000000 bytes"},
		"seq 1e8": {text: `{{ seq 1 100000000 }}`, wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: seq would build a value of 800000000 bytes"},
		"repeat 3e9": {text: `{{ repeat 3000000000 "x" }}`,
			wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: repeat would build a value of 3000000000 bytes"},
		"randAlpha 2e9": {text: `{{ randAlpha 2000000000 }}`,
			wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: randAlpha would build a value of 2000000000 bytes"},
		"indent 3e9": {text: `{{ indent 3000000000 "x" }}`, wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: indent would build a value of 3000000001 bytes"},
		"a raised value limit": {text: `{{ repeat 10 "x" | len }}`, budget: engine.Budget{MaxValueBytes: 9},
			wantErr: "repeat would build a value of 10 bytes, more than 9 (raise it with --render-max-value-bytes)"},
		"self-referential tpl": {text: `{{ tpl .Values.t . }}`, budget: engine.Budget{MaxDepth: 50},
			wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: tpl calls nested deeper than 50 (raise it with --render-max-depth)"},
		"mutually recursive includes": {text: `{{ define "p" }}{{ include "q" . }}{{ end }}{{ define "q" }}{{ include "p" . }}{{ end }}{{ include "p" . }}`,
			budget:  engine.Budget{MaxDepth: 50},
			wantErr: "template: et/templates/t.yaml:1:91: render budget exceeded: include calls nested deeper than 50 (raise it with --render-max-depth)"},
		"include fan-out of 1e8 calls": {text: fanOut, budget: engine.Budget{Timeout: 50 * time.Millisecond},
			wantErr: "template: et/templates/t.yaml:1:272: render budget exceeded: rendering took longer than 50ms (raise it with --render-timeout)"},
		// Iterations that write nothing and call nothing count as well.
		"empty nested range over 1e8": {text: `{{ range 100000000 }}{{ range 100000000 }}{{ end }}{{ end }}`,
			budget:  engine.Budget{Timeout: 50 * time.Millisecond},
			wantErr: "template: et/templates/t.yaml: render budget exceeded: rendering took longer than 50ms (raise it with --render-timeout)"},
		"empty range in a defined template": {text: `{{ define "r" }}{{ range $i := 100000000 }}{{ if $i }}{{ else }}{{ end }}{{ end }}{{ end }}{{ range 100000000 }}{{ template "r" }}{{ end }}`,
			budget:  engine.Budget{Timeout: 50 * time.Millisecond},
			wantErr: "template: et/templates/t.yaml: render budget exceeded: rendering took longer than 50ms (raise it with --render-timeout)"},
		"empty range in tpl text": {text: `{{ tpl "{{ range 100000000 }}{{ range 100000000 }}{{ end }}{{ end }}" . }}`,
			budget:  engine.Budget{Timeout: 50 * time.Millisecond},
			wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: rendering took longer than 50ms (raise it with --render-timeout)"},
		"empty range in a template tpl defines": {text: `{{ tpl "{{ define \"r\" }}{{ range 100000000 }}{{ range 100000000 }}{{ end }}{{ end }}{{ end }}{{ template \"r\" }}" . }}`,
			budget:  engine.Budget{Timeout: 50 * time.Millisecond},
			wantErr: "template: et/templates/t.yaml:1:3: render budget exceeded: rendering took longer than 50ms (raise it with --render-timeout)"},
		"ranges render unchanged": {text: `{{ range 3 }}{{ range $i, $v := list "a" "b" }}{{ $i }}{{ $v }}{{ else }}none{{ end }}{{ end }}{{ range 0 }}x{{ else }}-{{ end }}{{ range $k, $v := dict "k" 1 }}{{ $k }}{{ break }}{{ end }}`,
			want: "0a1b0a1b0a1b-k"},
		// One dict twice at each of 60 levels: 2^60 leaves to print.
		"printing a shared graph": {text: sharedGraph + `{{ $b }}`, budget: engine.Budget{MaxValueBytes: 1 << 20},
			wantErr: "template: et/templates/t.yaml:1:85: render budget exceeded: output would build a value of more than 1048576 bytes (raise it with --render-max-value-bytes)"},
		"toYaml of a shared graph": {text: sharedGraph + `{{ toYaml $b }}`, budget: engine.Budget{MaxValueBytes: 1 << 20},
			wantErr: "template: et/templates/t.yaml:1:85: render budget exceeded: toYaml would build a value of more than 1048576 bytes"},
		"toJson of a shared graph": {text: sharedGraph + `{{ toJson $b }}`, budget: engine.Budget{MaxValueBytes: 1 << 20},
			wantErr: "template: et/templates/t.yaml:1:85: render budget exceeded: toJson would build a value of more than 1048576 bytes"},
		"print of a shared graph": {text: sharedGraph + `{{ print $b }}`, budget: engine.Budget{MaxValueBytes: 1 << 20},
			wantErr: "template: et/templates/t.yaml:1:85: render budget exceeded: print would build a value of more than 1048576 bytes"},
		"deepCopy of a shared graph": {text: sharedGraph + `{{ deepCopy $b }}`, budget: engine.Budget{MaxValueBytes: 1 << 20},
			wantErr: "template: et/templates/t.yaml:1:85: render budget exceeded: deepCopy would build a value of more than 1048576 bytes"},
		"a shared graph stopped at the time limit": {text: sharedGraph + `{{ toPrettyJson $b }}`, budget: engine.Budget{Timeout: 50 * time.Millisecond},
			wantErr: "template: et/templates/t.yaml:1:85: render budget exceeded: rendering took longer than 50ms"},
		"output bytes": {text: `{{ range until 1000 }}0123456789{{ end }}`, budget: engine.Budget{MaxOutputBytes: 5000},
			wantErr: "template: et/templates/t.yaml: render budget exceeded: templates wrote more than 5000 bytes (raise it with --render-max-output-bytes)"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := engine.Engine{Budget: tc.budget}.Render(helm4Chart(tc.text), topValues(M{"t": "{{ tpl .Values.t . }}"}))
			if checkError(t, err, tc.wantErr) {
				if _, ok := errors.AsType[*engine.BudgetError](err); !ok {
					t.Errorf("error %v is no *engine.BudgetError", err)
				}
				return
			}
			if got := out["et/templates/t.yaml"]; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A render stops when its context ends (SIGTERM cancels it).
func TestRenderContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := engine.Engine{}.RenderContext(ctx, helm4Chart(`{{ range until 100000 }}x{{ end }}`), topValues(M{}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if want := "template: et/templates/t.yaml: context canceled"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// Where Helm's own functions fail at once or build nothing, the budget stays
// out of the way and the result is Helm's: an allocation Go refuses outright
// fails with the runtime's words, and seq's end wrapping past MaxInt64 prints
// nothing (found by the differential tester).
func TestRenderBudgetKeepsHelmsCheapOutcomes(t *testing.T) {
	for name, tc := range map[string]struct {
		text, want, wantErr string
	}{
		"seq wraps past MaxInt64":       {text: `[{{ seq 9223372036854775807 }}]`, want: "[]"},
		"seq with three parameters":     {text: `[{{ seq 9223372036854775806 1 9223372036854775807 }}]`, want: "[]"},
		"nindent beyond any allocation": {text: `{{ nindent 9223372036854775807 "x" }}`, wantErr: "error calling nindent: runtime error: makeslice: len out of range"},
		"repeat overflowing int":        {text: `{{ repeat 9223372036854775807 "ab" }}`, wantErr: "error calling repeat: strings: Repeat output length overflow"},
		"randAlpha beyond allocation":   {text: `{{ randAlpha 9223372036854775807 }}`, wantErr: "error calling randAlpha: runtime error: makeslice: len out of range"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := engine.Engine{}.Render(helm4Chart(tc.text), topValues(M{}))
			if checkError(t, err, tc.wantErr) {
				if _, ok := errors.AsType[*engine.BudgetError](err); ok {
					t.Errorf("error %v is the budget's, want the function's own", err)
				}
				return
			}
			if got := out["et/templates/t.yaml"]; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
