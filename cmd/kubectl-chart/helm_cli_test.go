package main

import (
	"strings"
	"testing"
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
