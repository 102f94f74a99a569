package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chart/kubectl-chart/adapters/kube"
	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/configmap"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/postgres"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Factory hands a command the adapters it works with, as kubectl's
// cmdutil.Factory and kapp's deps factory do: the release commands ask for
// them instead of building them, and their tests hand in-memory ones
// (newTestFactory). The program's factory (newFactory) builds each adapter
// from kubectl's connection flags when first asked and keeps it, so the
// kubeconfig is read once per command. Its methods are safe for concurrent use.
type Factory interface {
	// Namespace is the namespace of -n, else the kubeconfig context's, else
	// "default".
	Namespace() string
	// ServerURL is the URL of the cluster's API server (the REST config's
	// Host); saved plans are bound to it.
	ServerURL() (string, error)
	// Cluster is the cluster releases are deployed to.
	Cluster() (ports.Cluster, error)
	// Settings are the environment's settings, which Helm's global flags
	// change once parsed.
	Settings() *settings
	// StorageDefaults are the defaults of --storage and --bbolt-path.
	StorageDefaults() StorageSettings
	// ReleaseStore is the release store s selects.
	ReleaseStore(s StorageSettings) (ports.ReleaseStore, error)
	// ReleaseLocker locks the releases of the store s selects: in the file
	// for bbolt, with Leases in the cluster otherwise. lease is how long a
	// lock outlives a holder that died; 0 takes $KUBECTL_CHART_LOCK_DURATION,
	// else the lock's default.
	ReleaseLocker(s StorageSettings, lease time.Duration) (ports.ReleaseLocker, error)
	// LockHolder names this process in release locks.
	LockHolder() ports.LockHolder
	// Clock tells the time records and generated names carry.
	Clock() ports.Clock
	// ChartSource loads charts as refs (a command's chart reference flags)
	// does, and through the getter plugins.
	ChartSource(refs ports.ChartSource) ports.ChartSource
	// ForContext is the factory of the kubeconfig's context name ("" is
	// this one): the same settings, flags and kubeconfig, another cluster
	// and credentials (a stack's kubeContext). A context the kubeconfig does
	// not hold is an ErrUnknownContext naming it.
	ForContext(name string) (Factory, error)
}

// ErrUnknownContext is a kube context the kubeconfig does not hold.
var ErrUnknownContext = errors.New("is not in the kubeconfig")

// factory is the program's Factory: kubectl's connection flags and the
// environment's settings, and the adapters built from them so far.
type factory struct {
	flags    *genericclioptions.ConfigFlags
	settings settings

	mu sync.Mutex
	// config and configErr are the REST config, read once (configRead).
	config     *rest.Config
	configErr  error
	configRead bool
	cluster    ports.Cluster
	stores     map[StorageSettings]ports.ReleaseStore
	holder     *ports.LockHolder
	// contexts are the factories of other kube contexts asked for so far.
	contexts map[string]*factory
}

var _ Factory = (*factory)(nil)

// newFactory builds adapters from flags and s.
func newFactory(flags *genericclioptions.ConfigFlags, s settings) *factory {
	f := &factory{flags: flags, settings: s, stores: map[StorageSettings]ports.ReleaseStore{}, contexts: map[string]*factory{}}
	// Getter plugins get Helm 4's plugin environment.
	f.settings.plugins.helmEnv = func() map[string]string { return helmEnv(flags, f, dialect.Helm4) }
	return f
}

// restConfig reads the kubeconfig once; f.mu must be held.
func (f *factory) restConfig() (*rest.Config, error) {
	if !f.configRead {
		f.configRead = true
		f.config, f.configErr = f.flags.ToRESTConfig()
		if f.configErr != nil {
			f.configErr = fmt.Errorf("%w: %w", errClusterUnreachable, f.configErr)
		} else {
			// Every client (cluster, release store, lock) retries transient
			// API failures: throttling, 5xx, cut connections, restarts.
			f.config = kube.WithRetries(f.config, f.retryOptions())
			f.config = f.settings.withLimits(f.settings.withRequestLog(f.config))
			f.settings.logger().Debug("cluster", "server", f.config.Host, "namespace", f.Namespace())
		}
	}
	return f.config, f.configErr
}

// retryOptions log each retry at -v 6, beside the request log (whose line
// for the request tells how it ended).
func (f *factory) retryOptions() kube.RetryOptions {
	if f.settings.level() < verbosityRequests {
		return kube.RetryOptions{}
	}
	log := f.settings.logger()
	return kube.RetryOptions{OnRetry: func(e kube.RetryEvent) {
		log.Debug("api request retried", "method", e.Method, "url", e.URL, "attempt", e.Attempt, "reason", e.Reason, "wait", e.Wait)
	}}
}

func (f *factory) Namespace() string {
	if f.flags.Namespace != nil && *f.flags.Namespace != "" {
		return *f.flags.Namespace
	}
	if ns, _, err := f.flags.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

func (f *factory) ServerURL() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cfg, err := f.restConfig()
	if err != nil {
		return "", err
	}
	return cfg.Host, nil
}

func (f *factory) Cluster() (ports.Cluster, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cluster != nil {
		return f.cluster, nil
	}
	cfg, err := f.restConfig()
	if err != nil {
		return nil, err
	}
	c, err := kube.New(cfg)
	if err != nil {
		return nil, err
	}
	f.cluster = c
	return c, nil
}

func (f *factory) Settings() *settings { return &f.settings }

func (f *factory) StorageDefaults() StorageSettings { return f.settings.storage }

func (f *factory) ReleaseStore(s StorageSettings) (ports.ReleaseStore, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.releaseStore(s)
}

// releaseStore builds the store s selects, once; f.mu must be held.
// Kubernetes stores use the kubeconfig; bbolt and memory need no cluster.
// Namespaces are per call.
func (f *factory) releaseStore(s StorageSettings) (ports.ReleaseStore, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	f.settings.logger().Debug("release storage", "driver", s.Driver)
	if store, ok := f.stores[s]; ok {
		return store, nil
	}
	var store ports.ReleaseStore
	switch s.Driver {
	case storageBbolt:
		if s.BboltPath == "" {
			return nil, fmt.Errorf("--storage bbolt needs --bbolt-path or $%s", BboltPathEnv)
		}
		store = bbolt.New(s.BboltPath, 0)
	case storageMemory:
		store = memory.New()
	case storageSQL:
		if s.SQLConnection == "" {
			return nil, fmt.Errorf("unable to instantiate SQL driver: --storage sql needs $%s", SQLConnectionEnv)
		}
		db, err := postgres.Open(context.Background(), s.SQLConnection)
		if err != nil {
			// Helm's words, then which database and why.
			return nil, fmt.Errorf("unable to instantiate SQL driver: %w", err)
		}
		store = db
	default:
		cfg, err := f.restConfig()
		if err != nil {
			return nil, err
		}
		client, meta, err := releaseClients(cfg)
		if err != nil {
			return nil, err
		}
		if s.Driver == storageConfigMap {
			store = configmap.NewWithMetadata(client, meta)
		} else {
			store = secret.NewWithMetadata(client, meta)
		}
	}
	f.stores[s] = store
	return store, nil
}

func (f *factory) ReleaseLocker(s StorageSettings, lease time.Duration) (ports.ReleaseLocker, error) {
	if lease == 0 {
		if f.settings.leaseErr != nil {
			return nil, f.settings.leaseErr
		}
		lease = f.settings.leaseDuration
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	store, err := f.releaseStore(s)
	if err != nil {
		return nil, err
	}
	switch st := store.(type) {
	case *bbolt.Store:
		// Releases kept in a local file are locked in that file.
		return st.Locker(lease, ports.SystemClock{}), nil
	case *postgres.Store:
		// Releases kept in a database are locked in it: no cluster needed.
		return st.Locker(lease, ports.SystemClock{}), nil
	}
	cfg, err := f.restConfig()
	if err != nil {
		return nil, err
	}
	return lock.New(cfg, lease)
}

// LockHolder describes this process: its user, host, process id and command
// line, and when it first asked.
func (f *factory) LockHolder() ports.LockHolder {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.holder != nil {
		return *f.holder
	}
	name := f.settings.user
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
	f.holder = &ports.LockHolder{User: name, Host: host, PID: os.Getpid(), Command: cmd, Since: f.Clock().Now()}
	return *f.holder
}

func (f *factory) Clock() ports.Clock { return ports.SystemClock{} }

func (f *factory) ChartSource(refs ports.ChartSource) ports.ChartSource {
	return withGetterPlugins(&f.Settings().plugins, refs)
}

func (f *factory) ForContext(name string) (Factory, error) {
	if name == "" || (f.flags.Context != nil && *f.flags.Context == name) {
		return f, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.contexts[name]; ok {
		return c, nil
	}
	raw, err := f.flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errClusterUnreachable, err)
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, fmt.Errorf("kube context %q %w", name, ErrUnknownContext)
	}
	// Only what says where the kubeconfig is and how to talk is kept: the
	// flags that pick a cluster or credentials would override the context's.
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig, flags.CacheDir, flags.Timeout = f.flags.KubeConfig, f.flags.CacheDir, f.flags.Timeout
	flags.Impersonate, flags.ImpersonateUID, flags.ImpersonateGroup = f.flags.Impersonate, f.flags.ImpersonateUID, f.flags.ImpersonateGroup
	flags.Context = &name
	c := newFactory(flags, f.settings)
	f.contexts[name] = c
	return c, nil
}

// releaseClients are a typed client tuned for release records (protobuf on the
// wire, as records are large and many, and a rate limit that does not throttle
// listing thousands of revisions) and a metadata client, with which listing
// transfers no record payloads.
func releaseClients(cfg *rest.Config) (kubernetes.Interface, metadata.Interface, error) {
	// Concurrency is bounded by the store (a few workers), not by client-side throttling.
	cfg = kube.WithOwnRate(cfg, 500, 1000)
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("create kubernetes metadata client: %w", err)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = strings.Join([]string{"application/vnd.kubernetes.protobuf", "application/json"}, ",")
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("create kubernetes client: %w", err)
	}
	return client, meta, nil
}
