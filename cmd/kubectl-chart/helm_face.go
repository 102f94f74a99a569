package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// oursOnlyFlags are our commands' flags that no Helm command has: installed
// as helm they are accepted but hidden, so that help lists Helm's flags.
func oursOnlyFlags() map[string]bool {
	return map[string]bool{
		"bbolt-path": true, "compat": true, "correct-drift": true, "crds": true, "field-manager": true,
		"graph": true, "json-events": true, "lint-namespace": true, "lock-lease-duration": true,
		"progress": true, "recover-pending": true, "render-max-depth": true, "render-max-output-bytes": true,
		"render-max-schema-nodes": true, "render-max-schema-steps": true, "render-max-value-bytes": true,
		"render-timeout": true, "show-drift": true, "skip-preflight": true, "storage": true, "use-plan": true,
		"save-plan": true,
	}
}

// oursOnlySubcommands are subcommands of Helm's commands that Helm lacks,
// by parent: run, installed as helm, but hidden from help.
func oursOnlySubcommands() map[string]bool {
	return map[string]bool{"plugin run": true}
}

// helmTypes are the type words Helm's help shows for flags of its own value
// types, by flag name.
func helmTypes() map[string]string {
	return map[string]string{"output": "format", "post-renderer": "postRendererString", "post-renderer-args": "postRendererArgsSlice"}
}

// typedValue is a flag value that help shows with another type word.
type typedValue struct {
	pflag.Value
	typ string
}

func (v typedValue) Type() string { return v.typ }

// showHelmFace makes help, installed as helm, list what dialect d's Helm's
// does: our own flags and subcommands are hidden, flags the dialect's Helm
// lacks are dropped (unknown, as there), Helm 4's deprecated ones are listed
// in Helm 3's dialect (where they are not deprecated), and the commands' own
// copies of Helm's global flags (--repository-config ...) are listed among
// the global ones. The flags parse as Helm's (fitHelmFlags), warning on errOut.
func showHelmFace(root *cobra.Command, d dialect.Dialect, errOut io.Writer) {
	ours, subs := oursOnlyFlags(), oursOnlySubcommands()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && helmCommand(c) {
			fitHelmFlags(c, strings.TrimPrefix(c.CommandPath(), root.Name()+" "), d, errOut)
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			switch f.Value.(type) {
			case deprecatedValue, orderedValue:
				f.Hidden = d.IsHelm4()
			}
			if ours[f.Name] {
				f.Hidden = true
			}
			if typ, ok := helmTypes()[f.Name]; ok {
				f.Value = typedValue{Value: f.Value, typ: typ}
			}
		})
		dropFlags(c, unknownToHelm(c, d))
		for _, sub := range c.Commands() {
			if subs[strings.TrimPrefix(sub.CommandPath(), root.Name()+" ")] {
				sub.Hidden = true
			}
			walk(sub)
		}
	}
	walk(root)
	root.SetUsageFunc(func(c *cobra.Command) error { return helmUsage(c.OutOrStderr(), c, root.PersistentFlags()) })
}

// helmCommand reports whether c is one of Helm's commands: neither c nor a
// parent is hidden (ours).
func helmCommand(c *cobra.Command) bool {
	for ; c != nil; c = c.Parent() {
		if c.Hidden {
			return false
		}
	}
	return true
}

// helmUsage is cobra's usage text, but a local flag named like one of
// globals is listed as that global flag, as Helm lists it.
func helmUsage(w io.Writer, c *cobra.Command, globals *pflag.FlagSet) error {
	local := pflag.NewFlagSet("local", pflag.ContinueOnError)
	inherited := pflag.NewFlagSet("inherited", pflag.ContinueOnError)
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if g := globals.Lookup(f.Name); g != nil && c != c.Root() {
			// Listed as the global flag is: hidden where it is hidden
			// (--content-cache in the Helm 3 dialect).
			inherited.AddFlag(&pflag.Flag{Name: f.Name, Shorthand: f.Shorthand, Usage: f.Usage, Value: f.Value, DefValue: f.DefValue, Hidden: g.Hidden})
			return
		}
		local.AddFlag(f)
	})
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if inherited.Lookup(f.Name) == nil {
			inherited.AddFlag(f)
		}
	})
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		fmt.Fprintf(&b, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n  %s [command]", c.CommandPath())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(&b, "\n\nAliases:\n  %s", c.NameAndAliases())
	}
	if c.HasExample() {
		fmt.Fprintf(&b, "\n\nExamples:\n%s", c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if usages := local.FlagUsages(); usages != "" {
		fmt.Fprintf(&b, "\n\nFlags:\n%s", strings.TrimRight(usages, " \t\n"))
	}
	if usages := inherited.FlagUsages(); usages != "" {
		fmt.Fprintf(&b, "\n\nGlobal Flags:\n%s", strings.TrimRight(usages, " \t\n"))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
