//go:build unix

package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockConfig takes an exclusive lock on the repository configuration, so concurrent
// commands cannot lose each other's changes; the returned function releases it.
func lockConfig(config string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(config), err)
	}
	f, err := os.OpenFile(config+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock repository config: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock repository config: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
