package main

import (
	"fmt"
	"path/filepath"
	"time"
)

// Environment variables the release commands read, all in loadSettings.
const (
	// StorageEnv sets the default of --storage.
	StorageEnv = "KUBECTL_CHART_STORAGE"
	// BboltPathEnv sets the default of --bbolt-path.
	BboltPathEnv = "KUBECTL_CHART_BBOLT_PATH"
	// LeaseDurationEnv overrides the release lock's lease duration (tests use a short one).
	LeaseDurationEnv = "KUBECTL_CHART_LOCK_DURATION"
)

// settings are what the environment says about releases, read once, when the
// root command is built.
type settings struct {
	// storage holds the defaults of --storage and --bbolt-path.
	storage StorageSettings
	// leaseDuration is $KUBECTL_CHART_LOCK_DURATION, 0 when unset; leaseErr
	// says why it could not be read, which only the commands that lock report.
	leaseDuration time.Duration
	leaseErr      error
	// user is $USER, which names this process in release locks when the
	// user database does not.
	user string
}

// loadSettings reads the environment through getenv; homeDir locates the
// default bbolt file when $XDG_DATA_HOME is unset.
func loadSettings(getenv func(string) string, homeDir func() (string, error)) settings {
	s := settings{
		storage: StorageSettings{Driver: getenv(StorageEnv), BboltPath: getenv(BboltPathEnv)},
		user:    getenv("USER"),
	}
	if s.storage.Driver == "" {
		s.storage.Driver = storageSecret
	}
	if s.storage.BboltPath == "" {
		s.storage.BboltPath = defaultBboltPath(getenv("XDG_DATA_HOME"), homeDir)
	}
	if v := getenv(LeaseDurationEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			s.leaseErr = fmt.Errorf("$%s: %w", LeaseDurationEnv, err)
		}
		s.leaseDuration = d
	}
	return s
}

// defaultBboltPath is $XDG_DATA_HOME/kubectl-chart/releases.db, with XDG's
// fallback of ~/.local/share.
func defaultBboltPath(dataHome string, homeDir func() (string, error)) string {
	if dataHome == "" {
		if home, err := homeDir(); err == nil {
			dataHome = filepath.Join(home, ".local", "share")
		}
	}
	return filepath.Join(dataHome, "kubectl-chart", "releases.db")
}
