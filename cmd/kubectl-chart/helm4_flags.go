package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Helm 4's command line: --wait takes a strategy, --server-side chooses the
// apply method, and Helm 3's spellings (--wait=true, --atomic, --force, a
// bare or boolean --dry-run) still work with the warnings Helm 4 prints.

// flagWarnings collects what flags have to say while they are parsed, in
// command-line order, for the command to print on stderr before it runs.
type flagWarnings struct {
	lines []string
}

// deprecated adds pflag's words for a deprecated flag, as Helm 4 prints them
// (through cobra).
func (w *flagWarnings) deprecated(name, instead string) {
	w.lines = append(w.lines, fmt.Sprintf("Flag --%s has been deprecated, %s", name, instead))
}

// warn adds a warning as Helm 4 logs it: slog's text format without the time
// (level=WARN msg="...").
func (w *flagWarnings) warn(msg string) {
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})).Warn(msg)
	w.lines = append(w.lines, string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))))
}

// print writes the warnings once.
func (w *flagWarnings) print(out io.Writer) {
	for _, l := range w.lines {
		fmt.Fprintln(out, l)
	}
	w.lines = nil
}

// deprecatedValue warns when a deprecated spelling of a flag is used.
type deprecatedValue struct {
	pflag.Value
	name, instead string
	warnings      *flagWarnings
}

func (d deprecatedValue) Set(s string) error {
	d.warnings.deprecated(d.name, d.instead)
	return d.Value.Set(s)
}

// deprecate hides a flag of fs and makes it warn, with Helm 4's words, when used.
func deprecate(fs *pflag.FlagSet, name, instead string, w *flagWarnings) {
	f := fs.Lookup(name)
	f.Value = deprecatedValue{Value: f.Value, name: name, instead: instead, warnings: w}
	f.Hidden = true
}

// exclusiveForceFlags refuses --force-replace (or --force) with
// --force-conflicts, as Helm 4 does.
func exclusiveForceFlags(cmd *cobra.Command) {
	cmd.MarkFlagsMutuallyExclusive("force-replace", "force-conflicts")
	cmd.MarkFlagsMutuallyExclusive("force", "force-conflicts")
}

// Helm 4's --wait strategies.
const (
	// waitWatcher watches the objects until they are ready (bare --wait).
	waitWatcher = "watcher"
	// waitHookOnly waits for hooks only (no --wait).
	waitHookOnly = "hookOnly"
	// waitLegacy is Helm 3's readiness rules.
	waitLegacy = "legacy"
	// waitOrdered waits as watcher and sequences the release (HIP-0025):
	// batches in the chart's order, each ready before the next. Helm 4.3
	// does not offer it yet.
	waitOrdered = "ordered"
)

// waitValue is --wait: a strategy, Helm 3's booleans (deprecated), or
// nothing after the flag for watcher.
type waitValue struct {
	strategy *string
	warnings *flagWarnings
}

func (v waitValue) String() string { return *v.strategy }

func (v waitValue) Type() string { return "WaitStrategy" }

func (v waitValue) Set(s string) error {
	switch s {
	case waitWatcher, waitHookOnly, waitLegacy:
		*v.strategy = s
	case "true":
		v.warnings.warn("--wait=true is deprecated (boolean value) and can be replaced with --wait=watcher")
		*v.strategy = waitWatcher
	case "false":
		v.warnings.warn("--wait=false is deprecated (boolean value) and can be replaced with --wait=hookOnly")
		*v.strategy = waitHookOnly
	case waitOrdered:
		*v.strategy = s
	default:
		return fmt.Errorf("invalid wait input %q. Valid inputs are %s, %s, and %s", s, waitWatcher, waitHookOnly, waitLegacy)
	}
	return nil
}

// addWaitFlag adds --wait to fs: hookOnly when omitted, watcher when given
// without a value.
func addWaitFlag(fs *pflag.FlagSet, strategy *string, w *flagWarnings, usage string) {
	*strategy = waitHookOnly
	fs.Var(waitValue{strategy: strategy, warnings: w}, "wait", usage)
	fs.Lookup("wait").NoOptDefVal = waitWatcher
}

// waitsForObjects reports whether a strategy waits for the objects to be
// ready. kubectl chart has one way of waiting, which watches the objects with
// readiness rules for each kind: watcher and legacy both use it.
func waitsForObjects(strategy string) bool {
	return strategy == waitWatcher || strategy == waitLegacy || strategy == waitOrdered
}

// dryRunUnset is --dry-run given without a value (client, deprecated).
const dryRunUnset = "unset"

// dryRunWarnings adds Helm 4's warnings for the deprecated spellings of
// --dry-run: bare, true and false.
func dryRunWarnings(v string, w *flagWarnings) {
	switch v {
	case dryRunUnset:
		w.warn("--dry-run is deprecated and should be replaced with '--dry-run=client'")
	case "true":
		w.warn("boolean '--dry-run=true' flag is deprecated and must be replaced with '--dry-run=client'")
	case "false":
		w.warn("boolean '--dry-run=false' flag is deprecated and must be replaced with '--dry-run=none'")
	}
}

// serverSideUsage describes --server-side of upgrade and rollback.
const serverSideUsage = `how objects are applied, "auto", "true" or "false": kubectl chart always applies server-side; the value chooses the apply method the revision records for Helm 4 (auto keeps the previous revision's; false is refused)`
