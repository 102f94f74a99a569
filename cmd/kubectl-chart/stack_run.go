package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/stackrun"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// stackLoader reads the stack a command works on: loadStack, or a fixed
// stack in tests.
type stackLoader func(context.Context, Factory, *stackFlags) (stack.Stack, error)

// stackRunFlags are the flags of the stack subcommands that reach clusters.
type stackRunFlags struct {
	stack          stackFlags
	storage        *storageFlags
	compat         compatFlags
	concurrency    int
	skipPreflight  bool
	recoverPending bool
	fieldManager   string
}

func (s *stackRunFlags) addFlags(fs *pflag.FlagSet, f Factory) {
	s.stack.addFlags(fs)
	s.storage = newStorageFlags(f.StorageDefaults())
	s.storage.AddFlags(fs)
	s.compat.AddFlags(fs, "")
	fs.IntVar(&s.concurrency, "concurrency", 0, "maximum number of releases planned or applied at once, 0 is unlimited")
	fs.BoolVar(&s.skipPreflight, "skip-preflight", false, "do not check first, in every context, that you have every permission the stack needs")
	fs.BoolVar(&s.recoverPending, "recover-pending", false, "mark failed a revision left pending by another tool's operation even if it is recent")
	fs.StringVar(&s.fieldManager, "field-manager", ports.DefaultFieldManager, "name of the manager used to track field ownership")
}

func (s *stackRunFlags) validate() error {
	if s.concurrency < 0 {
		return fmt.Errorf("--concurrency %d: want 0 (unlimited) or more", s.concurrency)
	}
	if err := validateFieldManager(s.fieldManager); err != nil {
		return err
	}
	return s.storage.Validate()
}

// targets are the lifecycles of the kube contexts the factory hands.
func (s *stackRunFlags) targets(f Factory) *stackTargets {
	return &stackTargets{f: f, flags: s, lifecycles: map[string]*action.Lifecycle{}}
}

// planner plans the stack's releases with charts from its repositories.
func (s *stackRunFlags) planner(f Factory, st stack.Stack, warn io.Writer) (*stackrun.Planner, error) {
	d, err := s.compat.Dialect()
	if err != nil {
		return nil, err
	}
	// Charts are read by Helm 4's rules unless the user chose (each
	// release then renders as its own dialect says).
	charts := &stackCharts{f: f, repos: st.Repositories, dialect: d, warn: warn}
	if d == "" {
		charts.dialect = dialect.Helm4
	}
	return &stackrun.Planner{Targets: s.targets(f), Charts: charts, Dialect: d, Concurrency: s.concurrency}, nil
}

// stackTargets build one lifecycle per kube context, from the factory of
// that context (Factory.ForContext), once.
type stackTargets struct {
	f          Factory
	flags      *stackRunFlags
	mu         sync.Mutex
	lifecycles map[string]*action.Lifecycle
}

func (t *stackTargets) Lifecycle(_ context.Context, name string) (*action.Lifecycle, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if lc, ok := t.lifecycles[name]; ok {
		return lc, nil
	}
	lc, err := t.build(name)
	switch {
	case errors.Is(err, ErrUnknownContext):
		return nil, err
	case err != nil:
		if name == "" {
			return nil, fmt.Errorf("the current kube context: %w", err)
		}
		return nil, fmt.Errorf("kube context %q: %w", name, err)
	}
	t.lifecycles[name] = lc
	return lc, nil
}

func (t *stackTargets) build(name string) (*action.Lifecycle, error) {
	f, err := t.f.ForContext(name)
	if err != nil {
		return nil, err
	}
	cluster, err := f.Cluster()
	if err != nil {
		return nil, err
	}
	store, err := f.ReleaseStore(t.flags.storage.StorageSettings)
	if err != nil {
		return nil, err
	}
	locker, err := f.ReleaseLocker(t.flags.storage.StorageSettings, 0)
	if err != nil {
		return nil, err
	}
	server, err := f.ServerURL()
	if err != nil {
		return nil, err
	}
	return &action.Lifecycle{
		Cluster: cluster, Store: store, Locker: locker, Clock: f.Clock(), Holder: f.LockHolder(), ClusterServer: server,
		RecoverPending: t.flags.recoverPending, SkipPreflight: t.flags.skipPreflight, FieldManager: t.flags.fieldManager,
	}, nil
}

// stackCharts load a release's chart as helmfile has Helm load it: a
// `repo/chart` of one of the stack's repositories from that repository (an
// OCI one as oci://URL/chart), anything else as Helm reads a chart reference,
// at the release's version.
type stackCharts struct {
	f       Factory
	repos   []stack.Repository
	dialect dialect.Dialect
	warn    io.Writer
}

func (c *stackCharts) LoadChart(ctx context.Context, r stack.Release) (*chart.Chart, error) {
	flags := chartRefFlags{version: r.Version}
	files := c.f.Settings().files
	flags.paths.Config, flags.paths.Cache = files.repositoryConfig, files.repositoryCache
	flags.registryConfig, flags.contentCache = files.registryConfig, files.contentCache
	ref := r.Chart
	if name, rest, ok := strings.Cut(r.Chart, "/"); ok {
		for _, repo := range c.repos {
			if repo.Name != name {
				continue
			}
			flags.username, flags.password = repo.Username, repo.Password
			if repo.OCI {
				ref = "oci://" + strings.TrimSuffix(repo.URL, "/") + "/" + rest
			} else {
				flags.repoURL, ref = repo.URL, rest
			}
		}
	}
	res, err := flags.resolver(c.warn, c.dialect)
	if err != nil {
		return nil, err
	}
	res.Local.Limits = loader.LimitsFor(c.dialect)
	ch, err := c.f.ChartSource(res).LoadChart(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", r.Chart, err)
	}
	return ch, nil
}
