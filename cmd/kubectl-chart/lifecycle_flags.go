package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// waitFlags are --wait, --wait-for-jobs and --timeout.
type waitFlags struct {
	// strategy is Helm 4's --wait (see helm4_flags.go).
	strategy    string
	waitForJobs bool
	timeout     time.Duration
}

// AddFlags adds the flags; warnings collects what --wait says of Helm 3's spellings.
func (w *waitFlags) AddFlags(fs *pflag.FlagSet, warnings *flagWarnings) {
	addWaitFlag(fs, &w.strategy, warnings, `wait until all resources are ready (watching them) before marking the release successful, bounded by --timeout: "watcher" (--wait alone) or "legacy" wait, "hookOnly" (the default) waits for hooks only, "ordered" also applies the chart's resource groups and subcharts in order, each ready before the next (HIP-0025; charts that declare an order are sequenced anyway)`)
	fs.BoolVar(&w.waitForJobs, "wait-for-jobs", false, "wait until all Jobs have completed before marking the release successful; bounded by --timeout")
	fs.DurationVar(&w.timeout, "timeout", 5*time.Minute, "time to wait for any individual Kubernetes operation (like Jobs for hooks)")
}

// waits reports whether --wait asks to wait for the objects.
func (w *waitFlags) waits() bool { return waitsForObjects(w.strategy) }

func (w *waitFlags) spec() action.WaitSpec {
	return action.WaitSpec{Wait: w.waits(), WaitForJobs: w.waitForJobs, Timeout: w.timeout, Ordered: w.strategy == waitOrdered}
}

// lifecycleFlags are shared by the commands that change releases.
type lifecycleFlags struct {
	// output is -o: the release, as Helm prints it, with json or yaml.
	output string
	// jsonEvents is --json-events: one JSON event per line on stdout as the
	// operation goes, ending with a result event.
	jsonEvents bool
	// progress is --progress: progress lines on stderr also when it is not a
	// terminal, which installed as helm (where tools read stderr) gets none.
	progress       bool
	recoverPending bool
	skipPreflight  bool
	// planOutput makes -o choose how a plan is printed (diff), not events.
	planOutput    bool
	leaseDuration time.Duration
	// fieldManager is kubectl's --field-manager: the manager objects are
	// written as (Helm's by default), for the operation and its dry runs.
	fieldManager string
	storage      *storageFlags
}

// AddFlags adds the flags; storage holds the defaults of --storage and --bbolt-path.
func (l *lifecycleFlags) AddFlags(fs *pflag.FlagSet, storage StorageSettings) {
	l.storage = newStorageFlags(storage)
	l.storage.AddFlags(fs)
	fs.StringVarP(&l.output, "output", "o", "", "prints the output in the specified format. Allowed values: table, json, yaml (the release, as Helm prints it)")
	fs.BoolVar(&l.jsonEvents, "json-events", false, "print one JSON event per line on stdout as the operation progresses, ending with a result event, instead of text")
	fs.BoolVar(&l.progress, "progress", false, "print progress lines on stderr even when it is not a terminal (as kubectl chart they are printed anyway; installed as helm, where tools read stderr, only on a terminal)")
	fs.DurationVar(&l.leaseDuration, "lock-lease-duration", 0, "how long the release lock lasts if this process dies (default 60s, or $"+LeaseDurationEnv+")")
	fs.BoolVar(&l.recoverPending, "recover-pending", false, "mark failed a revision left pending by another tool's operation even if it is recent (say so only when that operation is no longer running)")
	fs.BoolVar(&l.skipPreflight, "skip-preflight", false, "do not check first that you have every permission the operation needs (it then fails where a permission is missing, possibly half done)")
	fs.StringVar(&l.fieldManager, "field-manager", ports.DefaultFieldManager, "name of the manager used to track field ownership (Helm's by default, so that Helm's next server-side upgrade meets no conflict with us)")
}

func (l *lifecycleFlags) validate() error {
	if err := validateFieldManager(l.fieldManager); err != nil {
		return err
	}
	switch {
	case l.planOutput && l.output != "" && l.output != "json" && l.output != "yaml":
		return fmt.Errorf("invalid output format %q: want json or yaml", l.output)
	case !l.planOutput && l.output != "":
		if err := validateOutput(l.output); err != nil {
			return err
		}
		if l.jsonEvents && l.output != "table" {
			return fmt.Errorf("--json-events and -o %s both print on stdout: choose one", l.output)
		}
	}
	return l.storage.Validate()
}

// lifecycle wires the use cases to the cluster, the release store and the
// lock the factory hands, and to a progress printer on streams.
// lifecycleMaker makes a command's lifecycle when it runs: what its Options
// keep of the factory, so that the adapters are built only once the flags
// were checked, and no Options holds the factory.
type lifecycleMaker func() (*action.Lifecycle, *eventPrinter, error)

// maker is the lifecycleMaker of these flags.
func (l *lifecycleFlags) maker(f Factory, streams genericiooptions.IOStreams) lifecycleMaker {
	return func() (*action.Lifecycle, *eventPrinter, error) { return l.lifecycle(f, streams) }
}

func (l *lifecycleFlags) lifecycle(f Factory, streams genericiooptions.IOStreams) (*action.Lifecycle, *eventPrinter, error) {
	cluster, err := f.Cluster()
	if err != nil {
		return nil, nil, err
	}
	locker, err := f.ReleaseLocker(l.storage.StorageSettings, l.leaseDuration)
	if err != nil {
		return nil, nil, err
	}
	store, err := f.ReleaseStore(l.storage.StorageSettings)
	if err != nil {
		return nil, nil, err
	}
	server, err := f.ServerURL()
	if err != nil {
		return nil, nil, err
	}
	p := newEventPrinter(streams, l.jsonEvents && !l.planOutput)
	// Installed as helm, stderr off a terminal is Helm's: no progress there.
	p.quiet = !ourLinesTo(f.Settings(), streams.ErrOut) && !p.json && !l.progress
	return &action.Lifecycle{
		Cluster: cluster, Store: store, Locker: locker, Clock: f.Clock(), Holder: f.LockHolder(),
		// The use cases call Events from many goroutines: print is safe for that.
		Events:         p.print,
		ClusterServer:  server,
		RecoverPending: l.recoverPending,
		Helm:           f.Settings().asHelm,
		SkipPreflight:  l.skipPreflight,
		FieldManager:   l.fieldManager,
	}, p, nil
}

// validateFieldManager refuses a --field-manager the API server would (it
// must be 1 to 128 printable characters), before anything is written.
func validateFieldManager(name string) error {
	switch {
	case name == "":
		return errors.New("--field-manager must not be empty")
	case len(name) > 128:
		return fmt.Errorf("--field-manager %q: must have at most 128 bytes", name)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return fmt.Errorf("--field-manager %q: must contain only printable characters", name)
	}
	return nil
}

// printRelease prints rel as -o json or yaml asks, as Helm prints it, and
// reports whether it did; callers print text otherwise.
func (l *lifecycleFlags) printRelease(w io.Writer, rel *release.Release) (bool, error) {
	if l.output != "json" && l.output != "yaml" {
		return false, nil
	}
	// As the Helm of the revision's dialect prints it.
	return true, writeRelease(w, l.output, rel.Dialect(), rel)
}

// result reports the outcome with --json-events; callers print text otherwise.
func (p *eventPrinter) result(r *release.Release, err error) bool {
	if !p.json {
		return false
	}
	out := map[string]any{"type": "result"}
	if r != nil {
		out["release"] = r.Name
		out["namespace"] = r.Namespace
		out["revision"] = r.Version
		if r.Info != nil {
			out["status"] = r.Info.Status
			out["description"] = r.Info.Description
		}
	}
	if err != nil {
		out["error"] = err.Error()
	}
	b, _ := json.Marshal(out)
	p.mu.Lock()
	fmt.Fprintf(p.out, "%s\n", b)
	p.mu.Unlock()
	return true
}

// parseLabels reads --labels key=value,...
func parseLabels(in map[string]string) (map[string]string, error) {
	for k := range in {
		if k == "" {
			return nil, errors.New("--labels: empty key")
		}
	}
	return in, nil
}
