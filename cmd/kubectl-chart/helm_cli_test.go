package main

import (
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func TestCompletionNoDescriptions(t *testing.T) {
	isolatePlugins(t)
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		t.Run(shell, func(t *testing.T) {
			with, _, err := runRoot(t, "completion", shell)
			if err != nil {
				t.Fatal(err)
			}
			without, _, err := runRoot(t, "completion", shell, "--no-descriptions")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(with, "__completeNoDesc") || !strings.Contains(without, "__completeNoDesc") {
				t.Errorf("--no-descriptions does not ask for completions without descriptions")
			}
		})
	}
}

// An empty list prints its header, as Helm's does.
func TestEmptyListHeader(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"header":       {args: []string{"list"}, want: "NAME   NAMESPACE   REVISION   UPDATED   STATUS   CHART   APP VERSION\n"},
		"--no-headers": {args: []string{"list", "--no-headers"}},
		"json":         {args: []string{"list", "-o", "json"}, want: "[]\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runLifecycle(t, newTestFactory(t, genericclioptions.NewConfigFlags(true)), tc.args...)
			if err != nil || out != tc.want {
				t.Errorf("%v = %q, %v; want %q", tc.args, out, err, tc.want)
			}
		})
	}
}
