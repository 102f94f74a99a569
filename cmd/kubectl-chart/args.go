package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Argument checks that fail as Helm's commands do: the command, what it
// needs, and its usage line.

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%q accepts no arguments\n\nUsage:  %s", cmd.CommandPath(), cmd.UseLine())
	}
	return nil
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return argsError(cmd, "requires", n)
		}
		return nil
	}
}

func minimumNArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return argsError(cmd, "requires at least", n)
		}
		return nil
	}
}

func maximumNArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return argsError(cmd, "accepts at most", n)
		}
		return nil
	}
}

func rangeArgs(least, most int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := minimumNArgs(least)(cmd, args); err != nil {
			return err
		}
		return maximumNArgs(most)(cmd, args)
	}
}

func argsError(cmd *cobra.Command, need string, n int) error {
	noun := "arguments"
	if n == 1 {
		noun = "argument"
	}
	return fmt.Errorf("%q %s %d %s\n\nUsage:  %s", cmd.CommandPath(), need, n, noun, cmd.UseLine())
}
