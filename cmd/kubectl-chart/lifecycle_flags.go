package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/kube"
	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// LeaseDurationEnv overrides the release lock's lease duration (tests use a short one).
const LeaseDurationEnv = "KUBECTL_CHART_LOCK_DURATION"

// waitFlags are --wait, --wait-for-jobs and --timeout.
type waitFlags struct {
	wait        bool
	waitForJobs bool
	timeout     time.Duration
}

func (w *waitFlags) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&w.wait, "wait", false, "wait until all resources are ready (watching them) before marking the release successful; bounded by --timeout")
	fs.BoolVar(&w.waitForJobs, "wait-for-jobs", false, "wait until all Jobs have completed before marking the release successful; bounded by --timeout")
	fs.DurationVar(&w.timeout, "timeout", 5*time.Minute, "time to wait for any individual Kubernetes operation (like Jobs for hooks)")
}

func (w *waitFlags) spec() action.WaitSpec {
	return action.WaitSpec{Wait: w.wait, WaitForJobs: w.waitForJobs, Timeout: w.timeout}
}

// lifecycleFlags are shared by the commands that change releases.
type lifecycleFlags struct {
	output string
	// planOutput makes -o choose how a plan is printed (diff), not events.
	planOutput    bool
	leaseDuration time.Duration
	storage       *storageFlags
}

func (l *lifecycleFlags) AddFlags(fs *pflag.FlagSet) {
	l.storage = newStorageFlags()
	l.storage.AddFlags(fs)
	fs.StringVarP(&l.output, "output", "o", "", "output format: empty for text, json for one JSON event per line")
	fs.DurationVar(&l.leaseDuration, "lock-lease-duration", 0, "how long the release lock lasts if this process dies (default 60s, or $"+LeaseDurationEnv+")")
}

func (l *lifecycleFlags) validate() error {
	switch {
	case l.planOutput && l.output != "" && l.output != "json" && l.output != "yaml":
		return fmt.Errorf("invalid output format %q: want json or yaml", l.output)
	case !l.planOutput && l.output != "" && l.output != "json" && l.output != "table":
		return fmt.Errorf("invalid output format %q: want json", l.output)
	}
	return l.storage.Validate()
}

// lifecycle wires the cluster, the release store and the lock for a command.
func (l *lifecycleFlags) lifecycle(cf *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) (*action.Lifecycle, *eventPrinter, error) {
	cfg, err := cf.ToRESTConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes cluster unreachable: %w", err)
	}
	cluster, err := kube.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	d := l.leaseDuration
	if d == 0 {
		if v := os.Getenv(LeaseDurationEnv); v != "" {
			if d, err = time.ParseDuration(v); err != nil {
				return nil, nil, fmt.Errorf("$%s: %w", LeaseDurationEnv, err)
			}
		}
	}
	store, err := l.storage.ReleaseStore(cf)
	if err != nil {
		return nil, nil, err
	}
	var locker ports.ReleaseLocker
	if local, ok := store.(*bbolt.Store); ok {
		// Releases kept in a local file are locked in that file.
		locker = local.Locker(d, time.Now)
	} else if locker, err = lock.New(cfg, d); err != nil {
		return nil, nil, err
	}
	p := newEventPrinter(streams, l.output == "json" && !l.planOutput)
	return &action.Lifecycle{
		Cluster: cluster, Store: store, Locker: locker, Holder: holder(), Events: p.print,
		ClusterServer: cfg.Host,
	}, p, nil
}

// holder describes this process in release locks.
func holder() ports.LockHolder {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	cmd := "kubectl chart"
	if len(os.Args) > 1 {
		cmd += " " + strings.Join(os.Args[1:], " ")
	}
	if len(cmd) > 200 {
		cmd = cmd[:200] + "..."
	}
	return ports.LockHolder{User: name, Host: host, PID: os.Getpid(), Command: cmd, Since: time.Now()}
}

// result reports the outcome with -o json; callers print text otherwise.
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
