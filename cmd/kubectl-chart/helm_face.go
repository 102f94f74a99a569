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

// faceDialect is the dialect whose Helm the command line args meets
// installed as helm: the one its --compat (ours) names, else
// commandDialect's. It is read ahead of parsing because it decides which
// flags the commands have.
func faceDialect(s *settings, args []string) dialect.Dialect {
	d := commandDialect(s)
	for i, a := range args {
		if a == "--" {
			break
		}
		v, ok := strings.CutPrefix(a, "--compat=")
		if !ok && a == "--compat" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if p, err := dialect.Parse(v); ok && err == nil {
			d = p
		}
	}
	return d
}

// helmOnlyAnnotation marks a flag that one Helm has and the other lacks; its
// value is the dialect that has it.
const helmOnlyAnnotation = "kubectl-chart/helm-only"

// helmOnly marks fs's flags names as dialect in's Helm's alone: installed as
// helm, the other dialect's command line does not know them (showHelmFace
// drops them); as kubectl chart they stay, ours.
func helmOnly(fs *pflag.FlagSet, in dialect.Dialect, names ...string) {
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			if f.Annotations == nil {
				f.Annotations = map[string][]string{}
			}
			f.Annotations[helmOnlyAnnotation] = []string{string(in)}
		}
	}
}

// dropFlags removes c's own flags names (persistent ones too): pflag then refuses them while it
// parses, before --help or the arguments are looked at, in the words Helm's
// own parsing uses for a flag it lacks ("unknown flag: --all", "unknown
// shorthand flag: 'a' in -a").
func dropFlags(c *cobra.Command, names []string) {
	if len(names) == 0 {
		return
	}
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	var local, persistent []*pflag.Flag
	c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !drop[f.Name] {
			local = append(local, f)
		}
	})
	c.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !drop[f.Name] {
			persistent = append(persistent, f)
		}
	})
	c.ResetFlags()
	for _, f := range local {
		c.Flags().AddFlag(f)
	}
	for _, f := range persistent {
		c.PersistentFlags().AddFlag(f)
	}
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
// does: our own flags and subcommands are hidden, flags of the other Helm
// alone are dropped (unknown, as there), Helm 4's deprecated ones are listed in Helm 3's dialect (where
// they are not deprecated), and the commands' own copies of Helm's global
// flags (--repository-config ...) are listed among the global ones.
func showHelmFace(root *cobra.Command, d dialect.Dialect) {
	ours, subs := oursOnlyFlags(), oursOnlySubcommands()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var unknown []string
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if in := f.Annotations[helmOnlyAnnotation]; len(in) == 1 && dialect.Dialect(in[0]).IsHelm4() != d.IsHelm4() {
				unknown = append(unknown, f.Name)
			}
		})
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			switch f.Value.(type) {
			case *helm4OnlyValue:
				f.Hidden = !d.IsHelm4()
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
		dropFlags(c, unknown)
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
