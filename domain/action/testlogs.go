package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// TestLogs writes the logs of a release's test pods to w as the dialect's
// Helm does for `test --logs`, the tests the filter selects in weight order:
// Helm 4 reads the hooks that are Pods, each container (init containers
// first) under "POD LOGS: POD (CONTAINER)", and names what it could not
// read once it has tried every container of a pod; Helm 3 reads the pod
// named as each test hook (a Job's name is no pod's: an error) under
// "POD LOGS: POD", and stops at the first it cannot read.
func (l *Lifecycle) TestLogs(ctx context.Context, rel *release.Release, filter []string, d dialect.Dialect, w io.Writer) error {
	f := parseTestFilter(filter)
	hooks := append([]*release.Hook(nil), rel.Hooks...)
	sort.SliceStable(hooks, func(i, j int) bool {
		if hooks[i].Weight != hooks[j].Weight {
			return hooks[i].Weight < hooks[j].Weight
		}
		return hooks[i].Name < hooks[j].Name
	})
	for _, h := range hooks {
		for _, ev := range h.Events {
			if ev != release.HookTest || !f.selects(h.Name) {
				continue
			}
			var err error
			switch {
			case !d.IsHelm4():
				err = l.helm3PodLogs(ctx, rel.Namespace, h.Name, w)
			case h.Kind == "Pod":
				err = l.containerLogs(ctx, rel.Namespace, h.Name, w)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// helm3PodLogs writes the logs of a pod, all its containers.
func (l *Lifecycle) helm3PodLogs(ctx context.Context, namespace, pod string, w io.Writer) error {
	var buf bytes.Buffer
	if err := l.Cluster.PodLogs(ctx, namespace, pod, "", &buf); err != nil {
		return fmt.Errorf("unable to get pod logs for %s: %w", pod, apiNotFound(err, pod))
	}
	fmt.Fprintf(w, "POD LOGS: %s\n", pod)
	_, _ = buf.WriteTo(w)
	fmt.Fprintln(w)
	return nil
}

// containerLogs writes the logs of each container of a pod, init containers
// first, and the errors of those it could not read.
func (l *Lifecycle) containerLogs(ctx context.Context, namespace, pod string, w io.Writer) error {
	obj, err := l.Cluster.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: namespace, Name: pod})
	if err != nil {
		return fmt.Errorf("unable to get pod %s: %w", pod, apiNotFound(err, pod))
	}
	var errs []error
	for _, c := range containerNames(obj) {
		var buf bytes.Buffer
		if err := l.Cluster.PodLogs(ctx, namespace, pod, c, &buf); err != nil {
			errs = append(errs, fmt.Errorf("unable to get logs for pod %s, container %s: %w", pod, c, apiNotFound(err, pod)))
			continue
		}
		fmt.Fprintf(w, "POD LOGS: %s (%s)\n", pod, c)
		_, _ = buf.WriteTo(w)
		fmt.Fprintln(w)
	}
	return errors.Join(errs...)
}

// containerNames are the names of a pod's init containers, then of its
// containers.
func containerNames(pod ports.Object) []string {
	spec, _ := pod["spec"].(map[string]any)
	var names []string
	for _, key := range []string{"initContainers", "containers"} {
		list, _ := spec[key].([]any)
		for _, c := range list {
			if m, ok := c.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					names = append(names, name)
				}
			}
		}
	}
	return names
}

// apiNotFound is a missing pod as the API server words it, which Helm
// passes on.
func apiNotFound(err error, pod string) error {
	if errors.Is(err, ports.ErrObjectNotFound) {
		return fmt.Errorf("pods %q not found", pod)
	}
	return err
}
