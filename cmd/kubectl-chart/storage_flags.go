package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Release storage drivers.
const (
	storageSecret    = "secret"
	storageConfigMap = "configmap"
	storageBbolt     = "bbolt"
	storageMemory    = "memory"
	storageSQL       = "sql"
)

// StorageSettings select a release store: the values of --storage and
// --bbolt-path.
type StorageSettings struct {
	// Driver is secret, configmap, bbolt (a local file) or memory.
	Driver string
	// BboltPath is the file of the bbolt driver.
	BboltPath string
	// SQLConnection is the PostgreSQL connection string of the sql driver
	// ($HELM_DRIVER_SQL_CONNECTION_STRING, as Helm reads it); never a flag,
	// so that no password shows in a process list.
	SQLConnection string
}

// Validate checks the driver name.
func (s StorageSettings) Validate() error {
	switch s.Driver {
	case storageSecret, storageConfigMap, storageBbolt, storageMemory, storageSQL:
		return nil
	}
	return fmt.Errorf("invalid --storage %q: want secret, configmap, bbolt, memory or sql", s.Driver)
}

// storageFlags are --storage and --bbolt-path, on every command that reads or
// writes releases. Use:
//
//	storage := newStorageFlags(f.StorageDefaults())
//	storage.AddFlags(cmd.Flags())
//	...
//	store, err := f.ReleaseStore(storage.StorageSettings)
type storageFlags struct {
	StorageSettings
}

// newStorageFlags starts from the defaults the environment sets.
func newStorageFlags(defaults StorageSettings) *storageFlags {
	return &storageFlags{StorageSettings: defaults}
}

func (s *storageFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.Driver, "storage", s.Driver, "where releases are stored: secret, configmap, bbolt (a local file), memory or sql (PostgreSQL at $"+SQLConnectionEnv+") (default $"+StorageEnv+", else secret)")
	fs.StringVar(&s.BboltPath, "bbolt-path", s.BboltPath, "file of --storage bbolt (default $"+BboltPathEnv+", else $XDG_DATA_HOME/kubectl-chart/releases.db)")
}
