// Package cluster builds, starts and stops a throw-away Kubernetes control
// plane on 127.0.0.1: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok with one fake node, so that Deployments become
// Available and Jobs Complete without a container runtime. End-to-end tests
// use it through Main and Env; `make dev-cluster` through hack/devcluster.
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options configures Start.
type Options struct {
	Binaries Binaries
	// StateDir receives the kubeconfig, keys, logs and the PID records.
	StateDir string
	// Detach leaves the processes running after this process exits (the dev
	// cluster); otherwise they die with it.
	Detach bool
	// Log receives progress; discarded when nil.
	Log io.Writer
}

// Cluster is a running control plane.
type Cluster struct {
	StateDir   string
	Kubeconfig string // admin kubeconfig
	Server     string // https://127.0.0.1:<port>

	// mu guards components and state against Restart.
	mu sync.Mutex
	// components is empty for a cluster read back by Attach: then only the
	// PID records in state can stop it.
	components []*component
	state      state
}

// state is what StateDir/cluster.json keeps for Attach and Stop.
type state struct {
	Server     string   `json:"server"`
	Kubeconfig string   `json:"kubeconfig"`
	EtcdData   string   `json:"etcdData"`
	Processes  []record `json:"processes"`
}

const (
	stateFile = "cluster.json"
	// NodeName is the fake node that kwok keeps Ready.
	NodeName = "kwok-node-0"
	// stopGrace is how long a component gets to exit after SIGTERM. A
	// throw-away cluster has nothing worth a longer graceful shutdown.
	stopGrace = 5 * time.Second
)

// Start starts a control plane and returns once the API server is ready, the
// fake node is Ready and schedulable, and the default ServiceAccount exists.
// On failure it stops what it started and the error ends with the failing
// component's last log lines. A port taken between choosing and binding it
// (parallel test packages) is retried with fresh ports.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.StateDir == "" {
		return nil, errors.New("start control plane: no state directory")
	}
	if old, err := Attach(opts.StateDir); err == nil {
		if old.Running() {
			return nil, fmt.Errorf("start control plane: one is already running from %s", opts.StateDir)
		}
		// What is left of an earlier one (a component died) goes first.
		if err := old.Stop(ctx); err != nil {
			return nil, fmt.Errorf("start control plane: clear the previous one: %w", err)
		}
	}
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		var c *Cluster
		c, err = start(ctx, opts)
		if err == nil {
			return c, nil
		}
		if !strings.Contains(err.Error(), "address already in use") || ctx.Err() != nil {
			break
		}
		fmt.Fprintf(opts.Log, "cluster: a port was taken, retrying (%d)\n", attempt)
	}
	return nil, fmt.Errorf("start control plane: %w", err)
}

func start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	begin := time.Now()
	c := &Cluster{StateDir: opts.StateDir, Kubeconfig: filepath.Join(opts.StateDir, "kubeconfig")}
	defer func() {
		if err != nil {
			if stopErr := c.Stop(context.WithoutCancel(ctx)); stopErr != nil {
				err = fmt.Errorf("%w (and stop: %v)", err, stopErr)
			}
		}
	}()
	// The failure of any component ends every wait at once, with its log.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	logDir := filepath.Join(opts.StateDir, "logs")
	for _, dir := range []string{logDir, filepath.Join(opts.StateDir, "kwok-home")} {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("clean %s: %w", dir, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", dir, err)
		}
	}
	ports, err := freePorts(4)
	if err != nil {
		return nil, fmt.Errorf("choose ports: %w", err)
	}
	etcdPort, peerPort, apiPort, kubeletPort := ports[0], ports[1], ports[2], ports[3]
	c.Server = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	c.state = state{Server: c.Server, Kubeconfig: c.Kubeconfig}

	// The first address of the service range belongs to the kubernetes Service.
	keys, err := writePKI(filepath.Join(opts.StateDir, "pki"), net.IPv4(10, 96, 0, 1))
	if err != nil {
		return nil, fmt.Errorf("generate keys: %w", err)
	}
	creds, err := writeCredentials(opts.StateDir, c.Server, keys)
	if err != nil {
		return nil, err
	}
	if c.state.EtcdData, err = etcdDataDir(opts.StateDir); err != nil {
		return nil, fmt.Errorf("create etcd data directory: %w", err)
	}
	if err := c.saveState(); err != nil {
		return nil, err
	}

	run := func(name, path string, args []string, env ...string) (*component, error) {
		comp, err := startComponent(name, path, args, env, logDir, opts.Detach)
		if err != nil {
			return nil, err
		}
		c.components = append(c.components, comp)
		c.state.Processes = append(c.state.Processes, comp.record())
		go func() {
			select {
			case <-comp.done:
				cancel(comp.exited())
			case <-ctx.Done():
			}
		}()
		return comp, c.saveState()
	}
	fail := func(what string, err error) error {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, ctx.Err()) {
			return fmt.Errorf("%s: %w", what, cause)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	bin := opts.Binaries

	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	etcd, err := run("etcd", bin.Etcd, etcdArgs(c.state.EtcdData, etcdURL, "http://127.0.0.1:"+strconv.Itoa(peerPort)))
	if err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, http.DefaultClient, etcdURL+"/health"); err != nil {
		return nil, fail("wait for etcd", withLog(err, etcd))
	}

	apiserver, err := run("kube-apiserver", bin.APIServer, apiserverArgs(apiPort, etcdURL, keys, creds))
	if err != nil {
		return nil, err
	}
	cfg := &rest.Config{Host: c.Server, BearerToken: creds.admin, TLSClientConfig: rest.TLSClientConfig{CAData: keys.caPEM}}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("api client: %w", err)
	}
	if err := waitHTTP(ctx, httpClient, c.Server+"/readyz"); err != nil {
		return nil, fail("wait for kube-apiserver", withLog(err, apiserver))
	}
	fmt.Fprintf(opts.Log, "cluster: kube-apiserver ready at %s after %s\n", c.Server, time.Since(begin).Round(10*time.Millisecond))

	kcm, err := run("kube-controller-manager", bin.ControllerManager, controllerManagerArgs(opts.StateDir, creds, keys))
	if err != nil {
		return nil, err
	}
	if _, err := run("kube-scheduler", bin.Scheduler, schedulerArgs(creds)); err != nil {
		return nil, err
	}
	kwokHome := filepath.Join(opts.StateDir, "kwok-home")
	// HOME keeps kwok away from the user's ~/.kwok configuration.
	logsConfig, err := writeLogsConfig(kwokHome)
	if err != nil {
		return nil, fmt.Errorf("write kwok logs configuration: %w", err)
	}
	kwok, err := run("kwok", bin.Kwok, kwokArgs(creds, keys, bin.KwokStages, logsConfig, kubeletPort), "HOME="+kwokHome)
	if err != nil {
		return nil, err
	}

	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("api client: %w", err)
	}
	if err := createNode(ctx, client); err != nil {
		return nil, fail("create fake node", err)
	}
	if err := waitNodeReady(ctx, client); err != nil {
		return nil, fail("wait for fake node", withLog(withLog(err, kwok), kcm))
	}
	// The controller manager creates it; pods in a namespace need it.
	if _, err := WaitFor(ctx, client, coreResource("serviceaccounts"), "default", "default", func(*unstructured.Unstructured) bool { return true }); err != nil {
		return nil, fail("wait for the default service account", withLog(err, kcm))
	}
	fmt.Fprintf(opts.Log, "cluster: ready in %s (state in %s)\n", time.Since(begin).Round(10*time.Millisecond), opts.StateDir)
	return c, nil
}

// Attach reads back the control plane recorded in stateDir, for Stop or
// Running from another process.
func Attach(stateDir string) (*Cluster, error) {
	data, err := os.ReadFile(filepath.Join(stateDir, stateFile))
	if err != nil {
		return nil, fmt.Errorf("read control plane state: %w", err)
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read control plane state: %w", err)
	}
	return &Cluster{StateDir: stateDir, Kubeconfig: s.Kubeconfig, Server: s.Server, state: s}, nil
}

// Running reports whether every recorded process is still alive.
func (c *Cluster) Running() bool {
	if len(c.state.Processes) == 0 {
		return false
	}
	for _, r := range c.state.Processes {
		if !running(r) {
			return false
		}
	}
	return true
}

// Stop stops every component, last started first, waits until each is gone,
// and removes etcd's data (it lives in memory when /dev/shm is available).
// Once ctx is done, components get no grace period before SIGKILL.
func (c *Cluster) Stop(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	grace := stopGrace
	if ctx.Err() != nil {
		grace = 0
	}
	var errs []error
	if len(c.components) > 0 {
		for i := len(c.components) - 1; i >= 0; i-- {
			errs = append(errs, c.components[i].stop(grace))
		}
	} else {
		for i := len(c.state.Processes) - 1; i >= 0; i-- {
			errs = append(errs, stopRecord(c.state.Processes[i], grace))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stop control plane: %w", err)
	}
	if c.state.EtcdData != "" {
		if err := os.RemoveAll(c.state.EtcdData); err != nil {
			return fmt.Errorf("remove etcd data: %w", err)
		}
	}
	if err := os.Remove(filepath.Join(c.StateDir, stateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove control plane state: %w", err)
	}
	return nil
}

func (c *Cluster) saveState() error {
	data, err := json.MarshalIndent(c.state, "", "  ")
	if err != nil {
		return fmt.Errorf("save control plane state: %w", err)
	}
	tmp := filepath.Join(c.StateDir, stateFile+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("save control plane state: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(c.StateDir, stateFile)); err != nil {
		return fmt.Errorf("save control plane state: %w", err)
	}
	return nil
}

// RestartOptions configures Restart.
type RestartOptions struct {
	// Kill ends the component with SIGKILL rather than SIGTERM (a crash
	// rather than a shutdown).
	Kill bool
	// Down is how long the component stays stopped before it starts again.
	Down time.Duration
}

// Restart stops one component of a control plane this process started
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok) and
// starts it again with the same arguments, on the same ports and data. It
// returns once the component serves again (kube-apiserver: /readyz answers
// ok; etcd: /health), with how long it was unavailable, from the signal to
// ready.
func (c *Cluster) Restart(ctx context.Context, name string, opts RestartOptions) (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.IndexFunc(c.components, func(comp *component) bool { return comp.name == name })
	if i < 0 {
		return 0, fmt.Errorf("restart %s: not a component this process started", name)
	}
	old := c.components[i]
	begin := time.Now()
	if opts.Kill {
		if err := old.kill(); err != nil {
			return 0, fmt.Errorf("restart %s: %w", name, err)
		}
	} else if err := old.stop(stopGrace); err != nil {
		return 0, fmt.Errorf("restart %s: %w", name, err)
	}
	select {
	case <-ctx.Done():
		return 0, fmt.Errorf("restart %s: %w", name, ctx.Err())
	case <-time.After(opts.Down):
	}
	comp, err := old.restart()
	if err != nil {
		return 0, err
	}
	c.components[i] = comp
	c.state.Processes[i] = comp.record()
	if err := c.saveState(); err != nil {
		return 0, err
	}
	var url string
	client := http.DefaultClient
	switch name {
	case "kube-apiserver":
		cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
		if err != nil {
			return 0, fmt.Errorf("restart %s: %w", name, err)
		}
		if client, err = rest.HTTPClientFor(cfg); err != nil {
			return 0, fmt.Errorf("restart %s: %w", name, err)
		}
		url = c.Server + "/readyz"
	case "etcd":
		for _, a := range comp.args {
			if v, ok := strings.CutPrefix(a, "--advertise-client-urls="); ok {
				url = v + "/health"
			}
		}
	}
	if url != "" {
		wctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		go func() {
			select {
			case <-comp.done:
				cancel(comp.exited())
			case <-wctx.Done():
			}
		}()
		if err := waitHTTP(wctx, client, url); err != nil {
			if cause := context.Cause(wctx); cause != nil && !errors.Is(cause, wctx.Err()) {
				err = cause
			}
			return 0, fmt.Errorf("restart %s: %w", name, withLog(err, comp))
		}
	}
	return time.Since(begin), nil
}

// etcdDataDir puts etcd's data on tmpfs when there is one: a throw-away
// cluster needs no durability, and fsync on disk dominates its latency.
func etcdDataDir(stateDir string) (string, error) {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		sweepEtcdData("/dev/shm/kubectl-chart-etcd-*")
		if dir, err := os.MkdirTemp("/dev/shm", "kubectl-chart-etcd-"); err == nil {
			return dir, nil
		}
	}
	dir := filepath.Join(stateDir, "etcd")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// freePorts asks the kernel for n free loopback ports, holding them all
// until every one is chosen so that none is handed out twice.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitHTTP polls url until it answers 200.
func waitHTTP(ctx context.Context, client *http.Client, url string) error {
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, body)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready (last answer: %s): %w", url, last, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func withLog(err error, c *component) error {
	return fmt.Errorf("%w; last lines of %s:\n%s", err, c.log, tailFile(c.log, 30))
}
