package main

import (
	"fmt"
	"slices"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestBuiltinCommandsAreNamedAsBuilt(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(true)
	for _, b := range builtinCommands(flags, newTestFactory(t, flags), genericiooptions.NewTestIOStreamsDiscard(), BuildInfo{}) {
		c := b.build()
		if c.Name() != b.name || !slices.Equal(c.Aliases, b.aliases) {
			t.Errorf("builtin %q %q builds %q %q", b.name, b.aliases, c.Name(), c.Aliases)
		}
	}
}

// TestRootBuiltForArgs: a root built for a command line finds the same
// command as the root with every command, and holds that command alone when
// it needs no other.
func TestRootBuiltForArgs(t *testing.T) {
	tests := map[string]struct {
		args  []string
		alone bool
	}{
		"version":                  {args: []string{"version"}, alone: true},
		"alias":                    {args: []string{"ls", "-A"}, alone: true},
		"other alias":              {args: []string{"delete", "web"}, alone: true},
		"nested":                   {args: []string{"repo", "add", "x", "https://example.com"}, alone: true},
		"nested alias":             {args: []string{"dep", "up", "./c"}, alone: true},
		"help flag":                {args: []string{"install", "--help"}, alone: true},
		"global flags first":       {args: []string{"-n", "install", "--kube-context", "list", "status", "web"}, alone: true},
		"global flag with =":       {args: []string{"--namespace=x", "history", "web"}, alone: true},
		"command's flag first":     {args: []string{"--set", "a=b", "template", "./c"}, alone: true},
		"after --":                 {args: []string{"--", "version"}},
		"no command":               {args: []string{"--debug"}},
		"none":                     {args: []string{}},
		"unknown":                  {args: []string{"instal", "web"}},
		"help":                     {args: []string{"help", "install"}},
		"plugin":                   {args: []string{"plugin", "list"}},
		"completion":               {args: []string{"completion", "bash"}},
		"completion request":       {args: []string{"__complete", "inst"}},
		"completion request flags": {args: []string{"__completeNoDesc", "install", "--"}},
		"prefix":                   {args: []string{"vers"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			streams := genericiooptions.NewTestIOStreamsDiscard()
			all, built := NewRootCmd(streams, BuildInfo{}), newRootCmdFor(streams, BuildInfo{}, tc.args)
			want, got := found(all, tc.args), found(built, tc.args)
			if got != want {
				t.Errorf("built for %q, the root finds %s; with every command, %s", tc.args, got, want)
			}
			if alone := len(built.Commands()) == 1; alone != tc.alone {
				t.Errorf("built for %q, the root has %d commands; want it alone: %v", tc.args, len(built.Commands()), tc.alone)
			}
		})
	}
}

// found says what root.Find finds for args.
func found(root *cobra.Command, args []string) string {
	c, rest, err := root.Find(args)
	return fmt.Sprintf("%s %q %v", c.CommandPath(), rest, err)
}
