package main

import (
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Installed as helm, a release command prints no progress on a stderr that is
// not a terminal (tools such as chart-testing copy it into their logs, scripts
// treat any of it as a failure), unless --progress asks; as kubectl chart it
// prints plain progress lines there, as before.
func TestProgressOffTerminal(t *testing.T) {
	tests := map[string]struct {
		asHelm bool
		extra  []string
		want   bool
	}{
		"kubectl chart":            {want: true},
		"helm":                     {asHelm: true},
		"helm with --progress":     {asHelm: true, extra: []string{"--progress"}, want: true},
		"helm with --json-events":  {asHelm: true, extra: []string{"--json-events"}},
		"kubectl chart, -o json":   {extra: []string{"-o", "json"}, want: true},
		"helm, upgrade --install":  {asHelm: true, extra: []string{"--wait"}},
		"helm, --atomic (warning)": {asHelm: true, extra: []string{"--atomic"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			isolatePlugins(t)
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			args := append([]string{"upgrade", "--install", "web", writeDemoChart(t)}, tc.extra...)
			_, stderr, err := runLifecycleAs(t, f, BuildInfo{Version: "test", AsHelm: tc.asHelm}, args...)
			if err != nil {
				t.Fatal(err)
			}
			progress := strings.Contains(stderr, "applied: ") || strings.Contains(stderr, "installing web revision 1")
			if progress != tc.want {
				t.Errorf("progress on stderr = %v, want %v; stderr:\n%s", progress, tc.want, stderr)
			}
			if tc.asHelm && !tc.want && strings.Contains(stderr, "web-config") {
				t.Errorf("stderr names an object:\n%s", stderr)
			}
		})
	}
}

// status says on stderr whether the release drifted as kubectl chart, not as
// helm off a terminal (where Helm says nothing).
func TestStatusDriftLineOffTerminal(t *testing.T) {
	for name, asHelm := range map[string]bool{"kubectl chart": false, "helm": true} {
		t.Run(name, func(t *testing.T) {
			isolatePlugins(t)
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			if _, _, err := runLifecycle(t, f, "install", "web", writeDemoChart(t)); err != nil {
				t.Fatal(err)
			}
			_, stderr, err := runLifecycleAs(t, f, BuildInfo{Version: "test", AsHelm: asHelm}, "status", "web", "--storage", "secret", "--compat", "helm3")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(stderr, "DRIFT") == asHelm {
				t.Errorf("stderr:\n%s", stderr)
			}
		})
	}
}
