package plan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

func TestChangesAndUnified(t *testing.T) {
	p := samplePlan()
	secretLive := ports.Object{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds", "namespace": "prod"},
		"data": map[string]any{"same": "YQ==", "changed": "Yg==", "gone": "Yw=="}}
	secretNew := ports.Object{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds", "namespace": "prod"},
		"data": map[string]any{"same": "YQ==", "changed": "ZA==", "added": "ZQ=="}}
	p.Stages = append(p.Stages, Stage{Name: "more", Steps: []Step{
		{Ref: ports.RefOf(secretNew), Action: ActionUpdate, Live: secretLive, Desired: secretNew, Result: secretNew},
		{Ref: ports.RefOf(configMap("added", "x")), Action: ActionCreate, Desired: configMap("added", "x")},
		{Ref: ports.RefOf(configMap("gone", "y")), Action: ActionDelete, Live: configMap("gone", "y")},
		{Ref: ports.RefOf(configMap("same", "z")), Action: ActionNoOp, Live: configMap("same", "z"), Desired: configMap("same", "z")},
	}})
	tests := map[string]struct {
		showSecrets bool
		want        []string
		not         []string
	}{
		"masked": {
			want: []string{
				"ConfigMap prod/web (update)\n", "-  key: old\n", "+  key: new\n",
				"Secret prod/creds (update)\n", "-  changed: '*** (before)'\n", "+  changed: '*** (after)'\n", "+  added: '***'\n", "-  gone: '***'\n",
				"ConfigMap prod/added (create)\n", "+kind: ConfigMap\n",
				"ConfigMap prod/gone (delete)\n", "-kind: ConfigMap\n",
			},
			not: []string{"Yg==", "ZA==", "ConfigMap prod/same", "resourceVersion"},
		},
		"shown": {
			showSecrets: true,
			want:        []string{"-  changed: Yg==\n", "+  changed: ZA==\n"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			changes, err := p.Changes(tc.showSecrets)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			for _, c := range changes {
				if err := WriteUnified(&out, c, UnifiedOptions{Context: 3}); err != nil {
					t.Fatal(err)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("diff lacks %q:\n%s", w, out.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("diff shows %q:\n%s", n, out.String())
				}
			}
		})
	}
}

func TestUnifiedContextAndColour(t *testing.T) {
	before := []byte("a\nb\nc\nd\ne\nf\ng\n")
	after := []byte("a\nb\nc\nD\ne\nf\ng\n")
	c := Change{Step: Step{Ref: ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Name: "x"}, Action: ActionUpdate}, Before: before, After: after}
	tests := map[string]struct {
		opts UnifiedOptions
		want string
	}{
		"no context": {UnifiedOptions{}, "ConfigMap x (update)\n--- live/v1.ConfigMap.x\n+++ planned/v1.ConfigMap.x\n@@ -4 +4 @@\n-d\n+D\n"},
		"one line":   {UnifiedOptions{Context: 1}, "ConfigMap x (update)\n--- live/v1.ConfigMap.x\n+++ planned/v1.ConfigMap.x\n@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n"},
		"colour":     {UnifiedOptions{Colour: true}, "\x1b[1mConfigMap x (update)\x1b[0m\n\x1b[31m--- live/v1.ConfigMap.x\x1b[0m\n\x1b[32m+++ planned/v1.ConfigMap.x\x1b[0m\n\x1b[36m@@ -4 +4 @@\x1b[0m\n\x1b[31m-d\x1b[0m\n\x1b[32m+D\x1b[0m\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := WriteUnified(&out, c, tc.opts); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", out.String(), tc.want)
			}
		})
	}
}
