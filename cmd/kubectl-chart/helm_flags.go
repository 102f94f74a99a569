package main

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Installed as helm, a command's flags are what dialect d's Helm's parser
// knows, and behave there as in Helm: a flag that Helm lacks is unknown, a
// deprecated one says so and a value Helm refuses is refused, all while the
// command line is parsed, so also ahead of --help. As kubectl chart the
// flags of both dialects stay, checked once the dialect is known.

// helmOnlyAnnotation marks a flag that Helm lacks in some dialect: its
// values are the dialects whose Helm has it (none: neither Helm).
const helmOnlyAnnotation = "kubectl-chart/helm-only"

// helmOnly marks fs's flags names as dialect in's Helm's alone: installed as
// helm, the other dialect's parsing does not know them (showHelmFace drops
// them); as kubectl chart they stay, ours.
func helmOnly(fs *pflag.FlagSet, in dialect.Dialect, names ...string) {
	markHelms(fs, []string{string(in)}, names)
}

// helmLacks marks fs's flags names as ones neither Helm's command has:
// installed as helm they are unknown to parsing. (Our flags Helm lacks but
// that change no output Helm prints are accepted, hidden: oursOnlyFlags.)
func helmLacks(fs *pflag.FlagSet, names ...string) {
	markHelms(fs, []string{}, names)
}

// markHelms annotates fs's flags names with the dialects whose Helm has them.
func markHelms(fs *pflag.FlagSet, in []string, names []string) {
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			if f.Annotations == nil {
				f.Annotations = map[string][]string{}
			}
			f.Annotations[helmOnlyAnnotation] = in
		}
	}
}

// unknownToHelm are c's own flags, persistent ones too (the root's global
// flags), that dialect d's Helm lacks, as marked.
func unknownToHelm(c *cobra.Command, d dialect.Dialect) []string {
	var names []string
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		in, ok := f.Annotations[helmOnlyAnnotation]
		if ok && !slices.ContainsFunc(in, func(h string) bool { return dialect.Dialect(h).IsHelm4() == d.IsHelm4() }) {
			names = append(names, f.Name)
		}
	})
	return names
}

// helmFormatOutputs are the commands whose -o Helm checks while it parses
// but ours once the dialect is known (dialectOnlyFlags.checked); the others
// check it while parsing already (addOutputFlag).
func helmFormatOutputs() map[string]bool {
	return map[string]bool{"install": true, "upgrade": true}
}

// helmUses are Helm's usage lines where ours name the arguments Helm
// requires more precisely.
func helmUses() map[string]string {
	return map[string]string{
		"template": "template [NAME] [CHART]",
		"upgrade":  "upgrade [RELEASE] [CHART]",
		"test":     "test [RELEASE]",
	}
}

// helmFaceDialect is the dialect installed as helm: --compat on the command
// line (args; its last), else $KUBECTL_CHART_COMPAT, else Helm 4.
func helmFaceDialect(s *settings, args []string) dialect.Dialect {
	value := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--compat="); ok {
			value = v
		} else if a == "--compat" && i+1 < len(args) {
			value = args[i+1]
		}
	}
	if d, err := dialect.Parse(value); err == nil {
		return d
	}
	return commandDialect(s)
}

// fitHelmFlags makes c's own flags, at command path path, dialect d's
// Helm's as its parser sees them; what Helm logs while parsing goes to errOut.
func fitHelmFlags(c *cobra.Command, path string, d dialect.Dialect, errOut io.Writer) {
	if use, ok := helmUses()[path]; ok {
		c.Use = use
	}
	c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		switch v := f.Value.(type) {
		case dialectOnlyValue:
			// Listed unless deprecated; the other dialect's are dropped
			// (unknownToHelm).
			if v.in != "" {
				f.Hidden = false
			}
			if v.deprecation != "" {
				deprecateFlag(f, v.deprecation)
			}
		case deprecatedValue:
			// pflag prints the deprecation as Helm's does, while parsing;
			// Helm 3 lists the flag.
			f.Value, f.Hidden = v.Value, d.IsHelm4()
			if d.IsHelm4() {
				deprecateFlag(f, v.instead)
			}
		case orderedValue:
			f.Value, f.Hidden = v.Value, d.IsHelm4()
			if d.IsHelm4() {
				deprecateFlag(f, strings.ReplaceAll(v.deprecation, "'kubectl chart ", "'helm "))
			}
		}
		fitHelmValue(f, path, d, errOut)
	})
}

// deprecateFlag makes f deprecated as pflag's MarkDeprecated does: hidden,
// and said so on stderr when given.
func deprecateFlag(f *pflag.Flag, deprecation string) {
	f.Deprecated, f.Hidden = deprecation, true
}

// fitHelmValue makes the values Helm checks while it parses checked so, and
// gives Helm 3's --wait and rollback --dry-run its booleans.
func fitHelmValue(f *pflag.Flag, path string, d dialect.Dialect, errOut io.Writer) {
	switch {
	case f.Name == "output" && helmFormatOutputs()[path]:
		f.Value = checkedValue{Value: f.Value, check: checkFormat}
	case f.Name == "post-renderer":
		if v, ok := f.Value.(postRendererValue); ok {
			f.Value = checkedValue{Value: f.Value, check: func(s string) error { return v.f.check(s, d) }}
		}
	case f.Name == "wait" && !d.IsHelm4():
		f.Value, f.NoOptDefVal = helm3Wait(f.Value), "true"
	case f.Name == "wait":
		f.Value = helm4WaitValue{Value: f.Value, out: errOut}
	case f.Name == "dry-run" && !d.IsHelm4() && path == "rollback":
		v := f.Value
		f.Value, f.NoOptDefVal = helm3Bool(v, func() bool { return v.String() != "none" && v.String() != "false" }), "true"
	case f.Name == "dry-run" && !d.IsHelm4() && f.NoOptDefVal == dryRunUnset:
		// Helm 3's bare --dry-run is client's.
		f.NoOptDefVal = "client"
	}
}

// helm4WaitValue is Helm 4's --wait as it parses it: a strategy, else
// refused, and a boolean's deprecation logged at once, ahead of the flags'
// deprecations. The value below (ours, or template's text) gets the strategy.
type helm4WaitValue struct {
	pflag.Value
	out io.Writer
}

func (v helm4WaitValue) Set(s string) error {
	var strategy string
	var w flagWarnings
	if err := (waitValue{strategy: &strategy, warnings: &w}).Set(s); err != nil {
		return err
	}
	w.print(v.out)
	return v.Value.Set(strategy)
}

// checkedValue refuses, while parsing, the values check refuses.
type checkedValue struct {
	pflag.Value
	check func(string) error
}

func (v checkedValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	return v.Value.Set(s)
}

// helm3BoolValue is a flag Helm 3 has as a boolean and we with more values:
// set takes the boolean, its text refused as pflag's booleans refuse it.
type helm3BoolValue struct {
	pflag.Value
	set func(bool) error
	get func() bool
}

func (v helm3BoolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	return v.set(b)
}

func (v helm3BoolValue) String() string   { return strconv.FormatBool(v.get()) }
func (v helm3BoolValue) Type() string     { return "bool" }
func (v helm3BoolValue) IsBoolFlag() bool { return true }

// helm3Wait is --wait as Helm 3's boolean: our watcher when true, no wait
// for the objects when false.
func helm3Wait(v pflag.Value) pflag.Value {
	if w, ok := v.(waitValue); ok {
		return helm3BoolValue{Value: v, set: func(b bool) error {
			*w.strategy = waitHookOnly
			if b {
				*w.strategy = waitWatcher
			}
			return nil
		}, get: func() bool { return waitsForObjects(*w.strategy) }}
	}
	// template's, read once the dialect is known.
	return helm3Bool(v, func() bool { b, _ := strconv.ParseBool(helm3Bare(v.String())); return b })
}

// helm3Bool is v as a boolean flag: it is set to "true" or "false", and
// truth reads it.
func helm3Bool(v pflag.Value, truth func() bool) pflag.Value {
	return helm3BoolValue{Value: v, set: func(b bool) error { return v.Set(strconv.FormatBool(b)) }, get: truth}
}

// dropFlags removes c's own flags names (persistent ones too): pflag then
// refuses them while it parses, before --help or the arguments are looked
// at, in the words Helm's own parsing uses for a flag it lacks ("unknown
// flag: --all", "unknown shorthand flag: 'a' in -a"). cobra has no removal:
// the others are added again to fresh sets (the same flags, their
// annotations and completions kept).
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
