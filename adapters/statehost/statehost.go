// Package statehost gives the state-file reader (domain/stack/helmfile) the
// machine: files, environment variables and commands.
package statehost

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Host reads the real file system and environment and runs real commands.
type Host struct{}

// ReadFile reads path.
func (Host) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

// ReadDir lists path, sorted by name.
func (Host) ReadDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }

// Stat follows links.
func (Host) Stat(path string) (fs.FileInfo, error) { return os.Stat(path) }

// Glob matches pattern as filepath.Glob does.
func (Host) Glob(pattern string) ([]string, error) { return filepath.Glob(pattern) }

// LookupEnv reads the process environment.
func (Host) LookupEnv(name string) (string, bool) { return os.LookupEnv(name) }

// Exec runs command; a failure carries its stderr.
func (Host) Exec(ctx context.Context, command string, args []string, input string) (string, error) {
	cmd := exec.CommandContext(ctx, command, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(input)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("exec %s: %w: %s", command, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
