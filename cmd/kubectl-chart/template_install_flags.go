package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Helm's template is install run client-side: it accepts all of install's
// flags. Most change nothing a template prints (--create-namespace,
// --description, --wait, --timeout, --atomic ...) and are accepted and
// ignored as Helm does; the rest are applied: --labels is checked for
// reserved names, --validate asks the cluster (--verify is the chart
// source's, chartVerifyFlags).
// Which flags exist, and which ones Helm 4 calls deprecated, depends on the
// dialect, which is known only once the command line is parsed: the flags
// are the union of both dialects', and Validate refuses or warns per dialect.

// templateInstallFlags are install's flags on template.
type templateInstallFlags struct {
	wait              rawFlag
	waitForJobs       bool
	timeout           time.Duration
	createNamespace   bool
	description       string
	labels            map[string]string
	disableOpenAPI    bool
	replace           bool
	takeOwnership     bool
	atomic            bool
	rollbackOnFailure bool
	force             bool
	forceReplace      bool
	forceConflicts    bool
	serverSide        bool
	hideNotes         bool
	validate          bool
	helm4Only         []string
	helm4Deprecated   map[string]string
	helm4Exclusive    [][2]string
	order             []string
	helm4Given        []*helm4OnlyValue
	waitStrategy      string
}

// rawFlag keeps a flag's text for the dialect to read once it is known.
type rawFlag struct {
	value string
	set   bool
}

func (r *rawFlag) String() string { return r.value }

func (r *rawFlag) Set(s string) error {
	r.value, r.set = s, true
	return nil
}

func (r *rawFlag) Type() string { return "WaitStrategy" }

// orderedValue records, in command-line order, which flags were given: the
// flags Helm 4 deprecates, with its words (deprecation).
type orderedValue struct {
	pflag.Value
	name, deprecation string
	order             *[]string
}

func (v orderedValue) Set(s string) error {
	*v.order = append(*v.order, v.name)
	return v.Value.Set(s)
}

// helm4OnlyValue is a flag only Helm 4 has: Helm 3 knows no such flag,
// whatever its value, so a bad value is reported once the dialect is known.
type helm4OnlyValue struct {
	pflag.Value
	name  string
	given *[]*helm4OnlyValue
	err   error
}

func (v *helm4OnlyValue) Set(s string) error {
	*v.given = append(*v.given, v)
	if err := v.Value.Set(s); err != nil {
		v.err = fmt.Errorf("invalid argument %q for %q flag: %w", s, "--"+v.name, err)
	}
	return nil
}

// noEffectOnTemplate is what Helm 4 says of a notes flag on template.
const noEffectOnTemplate = "this flag has no effect for 'kubectl chart template' and will be removed in Helm 5"

// AddFlags adds install's flags that template lacks to fs, after template's
// own (its --render-subchart-notes is one Helm 4 deprecates).
func (t *templateInstallFlags) AddFlags(fs *pflag.FlagSet) {
	fs.Var(&t.wait, "wait", `accepted as Helm's template accepts it, with no effect: a strategy for Helm 4 ("watcher" alone, "hookOnly", "legacy"), a boolean for Helm 3`)
	fs.Lookup("wait").NoOptDefVal = waitWatcher
	fs.BoolVar(&t.waitForJobs, "wait-for-jobs", false, "accepted as Helm's template accepts it, with no effect")
	fs.DurationVar(&t.timeout, "timeout", 5*time.Minute, "accepted as Helm's template accepts it, with no effect")
	fs.BoolVar(&t.createNamespace, "create-namespace", false, "accepted as Helm's template accepts it, with no effect")
	fs.StringVar(&t.description, "description", "", "accepted as Helm's template accepts it, with no effect")
	fs.StringToStringVarP(&t.labels, "labels", "l", nil, "release labels: no effect on the output, but names Helm reserves are refused as Helm does")
	fs.BoolVar(&t.disableOpenAPI, "disable-openapi-validation", false, "accepted as Helm's template accepts it, with no effect")
	fs.BoolVar(&t.replace, "replace", false, "accepted as Helm's template accepts it, with no effect")
	fs.BoolVar(&t.takeOwnership, "take-ownership", false, "accepted as Helm's template accepts it, with no effect")
	fs.BoolVar(&t.atomic, "atomic", false, "accepted as Helm's template accepts it, with no effect (Helm 4: deprecated)")
	fs.BoolVar(&t.force, "force", false, "accepted as Helm's template accepts it, with no effect (Helm 4: deprecated)")
	fs.BoolVar(&t.hideNotes, "hide-notes", false, "accepted as Helm's template accepts it, with no effect (Helm 4: deprecated)")
	fs.BoolVar(&t.validate, "validate", false, `render against the cluster, as --dry-run=server (Helm 4: deprecated)`)
	// Helm 4 only.
	fs.BoolVar(&t.rollbackOnFailure, "rollback-on-failure", false, "Helm 4 only: accepted as Helm's template accepts it, with no effect")
	fs.BoolVar(&t.forceReplace, "force-replace", false, "Helm 4 only: accepted as Helm's template accepts it, with no effect")
	fs.BoolVar(&t.forceConflicts, "force-conflicts", false, "Helm 4 only: accepted as Helm's template accepts it, with no effect")
	fs.BoolVar(&t.serverSide, "server-side", true, "Helm 4 only: accepted as Helm's template accepts it, with no effect")
	t.helm4Only = []string{"rollback-on-failure", "force-replace", "force-conflicts", "server-side"}
	for _, name := range t.helm4Only {
		f := fs.Lookup(name)
		f.Value = &helm4OnlyValue{Value: f.Value, name: name, given: &t.helm4Given}
	}
	helmOnly(fs, dialect.Helm4, t.helm4Only...)
	t.helm4Deprecated = map[string]string{
		"atomic":                "use --rollback-on-failure instead",
		"force":                 "use --force-replace instead",
		"hide-notes":            noEffectOnTemplate,
		"render-subchart-notes": noEffectOnTemplate,
		"validate":              "use '--dry-run=server' instead",
	}
	t.helm4Exclusive = [][2]string{{"force-replace", "force-conflicts"}, {"force", "force-conflicts"}, {"validate", "dry-run"}}
	for _, name := range []string{"atomic", "force", "hide-notes", "render-subchart-notes", "validate"} {
		if f := fs.Lookup(name); f != nil {
			f.Value = orderedValue{Value: f.Value, name: name, deprecation: t.helm4Deprecated[name], order: &t.order}
			f.Hidden = true
		}
	}
}

// validate reads the flags as the dialect's Helm does: flags it does not
// have are unknown, --wait is read its way, and Helm 4's deprecations and
// exclusive flags are reported. It returns the messages Helm prints on
// stderr before the command runs.
func (t *templateInstallFlags) validateFor(d dialect.Dialect, fs *pflag.FlagSet) ([]string, error) {
	if !d.IsHelm4() {
		if len(t.helm4Given) > 0 {
			return nil, fmt.Errorf("unknown flag: --%s", t.helm4Given[0].name)
		}
		if t.wait.set {
			if _, err := strconv.ParseBool(helm3Bare(t.wait.value)); err != nil {
				return nil, fmt.Errorf("invalid argument %q for %q flag: %w", t.wait.value, "--wait", err)
			}
		}
		return nil, nil
	}
	for _, v := range t.helm4Given {
		if v.err != nil {
			return nil, v.err
		}
	}
	var w flagWarnings
	if t.wait.set {
		if err := (waitValue{strategy: &t.waitStrategy, warnings: &w}).Set(t.wait.value); err != nil {
			return nil, fmt.Errorf("invalid argument %q for %q flag: %w", t.wait.value, "--wait", err)
		}
	}
	for _, name := range t.order {
		w.deprecated(name, t.helm4Deprecated[name])
	}
	for _, g := range t.helm4Exclusive {
		if fs.Changed(g[0]) && fs.Changed(g[1]) {
			set := []string{g[0], g[1]}
			slices.Sort(set)
			return w.lines, fmt.Errorf("if any flags in the group [%s %s] are set none of the others can be; [%s] were all set", g[0], g[1], strings.Join(set, " "))
		}
	}
	return w.lines, nil
}

// helm3Bare is Helm 3's reading of a bare --wait: true.
func helm3Bare(v string) string {
	if v == waitWatcher {
		return "true"
	}
	return v
}

// errReservedLabel is Helm's refusal of a reserved release label.
var errReservedLabel = errors.New("user supplied labels contains system reserved label name. System labels: [name owner status version createdAt modifiedAt]")

// checkLabels refuses labels Helm reserves.
func checkLabels(labels map[string]string) error {
	for k := range labels {
		switch k {
		case "name", "owner", "status", "version", "createdAt", "modifiedAt":
			return errReservedLabel
		}
	}
	return nil
}

// printLines writes each line to out.
func printLines(out io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
}

// unreachableError is a cluster --validate could not reach, in the
// dialect's words (Helm 4 also logs it).
func unreachableError(d dialect.Dialect, errOut io.Writer, debug bool, err error) error {
	if !d.IsHelm4() {
		return helm3Unreachable{err}
	}
	err = fmt.Errorf("cluster reachability check failed: %w: %w", errClusterUnreachable, err)
	helm4Logger(errOut, debug).Error(err.Error())
	return err
}

// helm3Unreachable is errClusterUnreachable in Helm 3's words, which start
// with a capital.
type helm3Unreachable struct{ err error }

func (e helm3Unreachable) Error() string   { return "Kubernetes cluster unreachable: " + e.err.Error() }
func (e helm3Unreachable) Unwrap() []error { return []error{errClusterUnreachable, e.err} }
