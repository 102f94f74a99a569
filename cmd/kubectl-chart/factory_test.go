package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// testNow is the time of the test factory's clock.
func testNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// testFactory hands the release commands in-memory adapters: a memcluster,
// the memory release store, a locker in memory, a fixed clock and charts from
// local paths only. --storage and --bbolt-path are validated, then ignored:
// every command of a test shares one store.
type testFactory struct {
	flags   *genericclioptions.ConfigFlags
	cluster *memcluster.Cluster
	store   *memory.Store
	locker  *memLocker
	clock   fixedClock
	// settings are the test process's environment, read per run.
	settings *settings
	// server is the cluster's URL ("" is the default context's).
	server string
	// contexts are the other kube contexts (withContext), each its own
	// cluster and store.
	contexts map[string]*testFactory
}

// withContext adds a kube context of its own memcluster (with namespaces)
// and memory store, and returns its factory.
func (f *testFactory) withContext(name string, namespaces ...string) *testFactory {
	c := &testFactory{
		flags: f.flags, settings: f.settings, clock: f.clock, server: "https://" + name + ".test:6443",
		cluster: memcluster.New(memcluster.WithClock(f.clock), memcluster.WithNamespaces(namespaces...)),
		store:   memory.New(), locker: newMemLocker(),
	}
	if f.contexts == nil {
		f.contexts = map[string]*testFactory{}
	}
	f.contexts[name] = c
	return c
}

func (f *testFactory) ForContext(name string) (Factory, error) {
	if name == "" {
		return f, nil
	}
	c, ok := f.contexts[name]
	if !ok {
		return nil, fmt.Errorf("kube context %q %w", name, ErrUnknownContext)
	}
	return c, nil
}

var _ Factory = (*testFactory)(nil)

// newTestFactory makes empty adapters (the cluster has namespace prod
// besides the default ones) and reads -n from flags.
func newTestFactory(t *testing.T, flags *genericclioptions.ConfigFlags) *testFactory {
	t.Helper()
	clock := fixedClock{testNow()}
	f := &testFactory{
		cluster: memcluster.New(memcluster.WithClock(clock), memcluster.WithNamespaces("prod")),
		store:   memory.New(), locker: newMemLocker(), clock: clock,
	}
	return f.forFlags(t, flags)
}

// forFlags is f for another run of the program: the same adapters, read
// with flags, whose kubeconfig leads nowhere.
func (f *testFactory) forFlags(t *testing.T, flags *genericclioptions.ConfigFlags) *testFactory {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "no-kubeconfig")
	flags.KubeConfig = &kubeconfig
	run := *f
	run.flags = flags
	s := loadSettings(os.Getenv, os.UserHomeDir)
	run.settings = &s
	return &run
}

func (f *testFactory) Namespace() string {
	if f.flags.Namespace != nil && *f.flags.Namespace != "" {
		return *f.flags.Namespace
	}
	return "default"
}

func (f *testFactory) ServerURL() (string, error) {
	if f.server != "" {
		return f.server, nil
	}
	return "https://cluster.test:6443", nil
}

func (f *testFactory) Cluster() (ports.Cluster, error) { return f.cluster, nil }
func (f *testFactory) Settings() *settings             { return f.settings }

func (f *testFactory) StorageDefaults() StorageSettings {
	return StorageSettings{Driver: storageSecret}
}

func (f *testFactory) ReleaseStore(s StorageSettings) (ports.ReleaseStore, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return f.store, nil
}

func (f *testFactory) ReleaseLocker(s StorageSettings, _ time.Duration) (ports.ReleaseLocker, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return f.locker, nil
}

func (f *testFactory) LockHolder() ports.LockHolder {
	return ports.LockHolder{User: "tester", Host: "test-host", PID: 1, Command: "kubectl chart (test)", Since: f.clock.t}
}

func (f *testFactory) Clock() ports.Clock { return f.clock }

func (f *testFactory) ChartSource(ports.ChartSource) ports.ChartSource { return chartsource.NewLocal() }

// memLocker locks releases in memory; its locks are never lost.
type memLocker struct {
	mu   sync.Mutex
	held map[string]ports.LockHolder
}

func newMemLocker() *memLocker { return &memLocker{held: map[string]ports.LockHolder{}} }

func (l *memLocker) Acquire(_ context.Context, namespace, name string, h ports.LockHolder) (ports.Lock, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := namespace + "/" + name
	if other, ok := l.held[key]; ok {
		return nil, &ports.LockedError{Namespace: namespace, Name: name, Holder: other, Expires: testNow().Add(time.Minute)}
	}
	l.held[key] = h
	return &memLock{l: l, key: key}, nil
}

type memLock struct {
	l   *memLocker
	key string
}

func (k *memLock) Release(context.Context) error {
	k.l.mu.Lock()
	defer k.l.mu.Unlock()
	delete(k.l.held, k.key)
	return nil
}

func (k *memLock) Lost() <-chan struct{}               { return nil }
func (k *memLock) Recovered() (ports.LockHolder, bool) { return ports.LockHolder{}, false }

func TestLoadSettings(t *testing.T) {
	home := func() (string, error) { return "/home/u", nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	tests := map[string]struct {
		env      map[string]string
		home     func() (string, error)
		want     StorageSettings
		lease    time.Duration
		leaseErr string
	}{
		"defaults": {
			home: home, want: StorageSettings{Driver: "secret", BboltPath: "/home/u/.local/share/kubectl-chart/releases.db"},
		},
		"xdg data home": {
			env:  map[string]string{"XDG_DATA_HOME": "/data"},
			home: noHome, want: StorageSettings{Driver: "secret", BboltPath: "/data/kubectl-chart/releases.db"},
		},
		"environment": {
			env:  map[string]string{StorageEnv: "bbolt", BboltPathEnv: "/tmp/r.db", LeaseDurationEnv: "5s"},
			home: home, want: StorageSettings{Driver: "bbolt", BboltPath: "/tmp/r.db"}, lease: 5 * time.Second,
		},
		"malformed lease": {
			env:  map[string]string{LeaseDurationEnv: "soon"},
			home: home, want: StorageSettings{Driver: "secret", BboltPath: "/home/u/.local/share/kubectl-chart/releases.db"},
			leaseErr: `$KUBECTL_CHART_LOCK_DURATION: time: invalid duration "soon"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := loadSettings(func(k string) string { return tc.env[k] }, tc.home)
			if s.storage != tc.want || s.leaseDuration != tc.lease {
				t.Errorf("settings = %+v, lease %v; want %+v, lease %v", s.storage, s.leaseDuration, tc.want, tc.lease)
			}
			if got := errString(s.leaseErr); got != tc.leaseErr {
				t.Errorf("lease error = %q, want %q", got, tc.leaseErr)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The program's factory builds each adapter once, and a bbolt store is
// locked in its own file.
func TestFactoryBuildsOnce(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(true)
	kubeconfig := filepath.Join(t.TempDir(), "no-kubeconfig")
	ns := "prod"
	flags.KubeConfig, flags.Namespace = &kubeconfig, &ns
	s := loadSettings(func(string) string { return "" }, func() (string, error) { return t.TempDir(), nil })
	f := newFactory(flags, s)

	if got := f.Namespace(); got != "prod" {
		t.Errorf("Namespace = %q, want prod", got)
	}
	bolt := StorageSettings{Driver: storageBbolt, BboltPath: filepath.Join(t.TempDir(), "releases.db")}
	a, err := f.ReleaseStore(bolt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.ReleaseStore(bolt)
	if a != b {
		t.Error("ReleaseStore built the bbolt store twice")
	}
	mem, _ := f.ReleaseStore(StorageSettings{Driver: storageMemory})
	if mem == a {
		t.Error("the memory store is the bbolt one")
	}
	if _, err := f.ReleaseLocker(bolt, 0); err != nil {
		t.Errorf("ReleaseLocker for bbolt needs no cluster, got %v", err)
	}
	if _, err := f.ReleaseStore(StorageSettings{Driver: "etcd"}); err == nil || err.Error() != `invalid --storage "etcd": want secret, configmap, bbolt, memory or sql` {
		t.Errorf("ReleaseStore(etcd) error = %v", err)
	}
	if _, err := f.ReleaseStore(StorageSettings{Driver: storageBbolt}); err == nil {
		t.Error("bbolt without a path: no error")
	}
	if _, err := f.ReleaseStore(StorageSettings{Driver: storageSQL}); err == nil || !strings.Contains(err.Error(), SQLConnectionEnv) {
		t.Errorf("sql without a connection string: %v", err)
	}
	if _, err := f.ReleaseStore(StorageSettings{Driver: storageSQL, SQLConnection: "postgres://u:s3cret@127.0.0.1:1/helm?connect_timeout=1"}); err == nil ||
		!strings.HasPrefix(err.Error(), "unable to instantiate SQL driver: ") || !strings.Contains(err.Error(), "127.0.0.1:1/helm") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("sql on a closed port: %v", err)
	}
	h := f.LockHolder()
	if h.PID == 0 || h.Since.IsZero() || h != f.LockHolder() {
		t.Errorf("LockHolder = %+v, then %+v", h, f.LockHolder())
	}
}

// A malformed $KUBECTL_CHART_LOCK_DURATION fails the commands that lock,
// unless --lock-lease-duration is given.
func TestFactoryLeaseFromEnvironment(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(true)
	s := loadSettings(func(k string) string {
		if k == LeaseDurationEnv {
			return "soon"
		}
		return ""
	}, func() (string, error) { return t.TempDir(), nil })
	f := newFactory(flags, s)
	bolt := StorageSettings{Driver: storageBbolt, BboltPath: filepath.Join(t.TempDir(), "releases.db")}
	if _, err := f.ReleaseLocker(bolt, 0); err == nil {
		t.Error("malformed lease duration: no error")
	}
	if _, err := f.ReleaseLocker(bolt, time.Second); err != nil {
		t.Errorf("--lock-lease-duration given: %v", err)
	}
}
