package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/configmap"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Environment variables that set the defaults of --storage and --bbolt-path.
const (
	StorageEnv   = "KUBECTL_CHART_STORAGE"
	BboltPathEnv = "KUBECTL_CHART_BBOLT_PATH"
)

// Release storage drivers.
const (
	storageSecret    = "secret"
	storageConfigMap = "configmap"
	storageBbolt     = "bbolt"
	storageMemory    = "memory"
)

// storageFlags are --storage and --bbolt-path, on every command that reads or
// writes releases. Use:
//
//	storage := newStorageFlags()
//	storage.AddFlags(cmd.Flags())
//	...
//	store, err := storage.ReleaseStore(configFlags)
type storageFlags struct {
	driver    string
	bboltPath string
}

// newStorageFlags takes its defaults from the environment.
func newStorageFlags() *storageFlags {
	s := &storageFlags{driver: os.Getenv(StorageEnv), bboltPath: os.Getenv(BboltPathEnv)}
	if s.driver == "" {
		s.driver = storageSecret
	}
	if s.bboltPath == "" {
		s.bboltPath = defaultBboltPath()
	}
	return s
}

// defaultBboltPath is $XDG_DATA_HOME/kubectl-chart/releases.db, with XDG's
// fallback of ~/.local/share.
func defaultBboltPath() string {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "share")
		}
	}
	return filepath.Join(dir, "kubectl-chart", "releases.db")
}

func (s *storageFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.driver, "storage", s.driver, "where releases are stored: secret, configmap, bbolt (a local file) or memory (default $"+StorageEnv+", else secret)")
	fs.StringVar(&s.bboltPath, "bbolt-path", s.bboltPath, "file of --storage bbolt (default $"+BboltPathEnv+", else $XDG_DATA_HOME/kubectl-chart/releases.db)")
}

// Validate checks the driver name.
func (s *storageFlags) Validate() error {
	switch s.driver {
	case storageSecret, storageConfigMap, storageBbolt, storageMemory:
		return nil
	}
	return fmt.Errorf("invalid --storage %q: want secret, configmap, bbolt or memory", s.driver)
}

// ReleaseStore returns the selected store. Kubernetes stores use the kubeconfig
// of cf; bbolt and memory need no cluster. Namespaces are per call.
func (s *storageFlags) ReleaseStore(cf genericclioptions.RESTClientGetter) (ports.ReleaseStore, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	switch s.driver {
	case storageBbolt:
		if s.bboltPath == "" {
			return nil, fmt.Errorf("--storage bbolt needs --bbolt-path or $%s", BboltPathEnv)
		}
		return bbolt.New(s.bboltPath, 0), nil
	case storageMemory:
		return memory.New(), nil
	}
	client, meta, err := releaseClients(cf)
	if err != nil {
		return nil, err
	}
	if s.driver == storageConfigMap {
		return configmap.NewWithMetadata(client, meta), nil
	}
	return secret.NewWithMetadata(client, meta), nil
}

// releaseClients are a typed client tuned for release records (protobuf on the
// wire, as records are large and many, and a rate limit that does not throttle
// listing thousands of revisions) and a metadata client, with which listing
// transfers no record payloads.
func releaseClients(cf genericclioptions.RESTClientGetter) (kubernetes.Interface, metadata.Interface, error) {
	cfg, err := cf.ToRESTConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes cluster unreachable: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		// Concurrency is bounded by the store (a few workers), not by client-side throttling.
		cfg.QPS, cfg.Burst = 500, 1000
	}
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

// releaseNamespace is the namespace of -n, else the kubeconfig context's, else default.
func releaseNamespace(cf *genericclioptions.ConfigFlags) string {
	if cf.Namespace != nil && *cf.Namespace != "" {
		return *cf.Namespace
	}
	if ns, _, err := cf.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}
