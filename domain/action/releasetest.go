package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// TestRequest runs a release's test hooks.
type TestRequest struct {
	ReleaseName string
	Namespace   string
	Timeout     time.Duration
	// Filter selects tests: "name=NAME" runs only those named, "!name=NAME" skips them.
	Filter []string
	// Logs writes the logs of the test pods to LogOutput.
	Logs      bool
	LogOutput io.Writer
}

// Test runs the release's test hooks in weight order and records their runs.
func (l *Lifecycle) Test(ctx context.Context, req TestRequest) (*release.Release, error) {
	ctx, unlock, err := l.lock(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	h, err := l.history(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	rel := h.Latest()
	if rel == nil {
		return nil, fmt.Errorf("release: not found")
	}
	include, exclude := map[string]bool{}, map[string]bool{}
	for _, f := range req.Filter {
		switch {
		case strings.HasPrefix(f, "!name="):
			exclude[strings.TrimPrefix(f, "!name=")] = true
		case strings.HasPrefix(f, "name="):
			include[strings.TrimPrefix(f, "name=")] = true
		default:
			return nil, fmt.Errorf("invalid --filter %q: want name=NAME or !name=NAME", f)
		}
	}
	selected := &release.Release{Name: rel.Name, Namespace: rel.Namespace}
	for _, hk := range rel.Hooks {
		if !hk.IsTest() || exclude[hk.Name] || (len(include) > 0 && !include[hk.Name]) {
			continue
		}
		selected.Hooks = append(selected.Hooks, hk)
	}
	timeout := WaitSpec{Timeout: req.Timeout}.timeout()
	runErr := l.runHooks(ctx, selected, release.HookTest, timeout)
	if err := l.Store.Update(context.WithoutCancel(ctx), rel); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("record test runs: %w", err))
	}
	if req.Logs && req.LogOutput != nil {
		for _, hk := range selected.Hooks {
			if hk.LastRun.Phase == release.HookPhaseUnknown || hk.LastRun.Phase == "" {
				continue
			}
			var pods []string
			switch hk.Kind {
			case "Pod":
				pods = []string{hk.Name}
			case "Job":
				// A test Job's logs are its pods'.
				items, err := l.Cluster.List(ctx, "v1", "Pod", rel.Namespace, "job-name="+hk.Name)
				if err == nil {
					for _, p := range items {
						pods = append(pods, p.GetName())
					}
				}
			}
			for _, pod := range pods {
				fmt.Fprintf(req.LogOutput, "POD LOGS: %s\n", pod)
				if err := l.Cluster.PodLogs(ctx, rel.Namespace, pod, req.LogOutput); err != nil && !errors.Is(err, ports.ErrObjectNotFound) {
					fmt.Fprintf(req.LogOutput, "(logs unavailable: %v)\n", err)
				}
				// Helm ends each pod's logs with an empty line.
				fmt.Fprintln(req.LogOutput)
			}
		}
	}
	return rel, runErr
}
