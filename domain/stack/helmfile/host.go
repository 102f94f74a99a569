package helmfile

import (
	"context"
	"io/fs"
)

// Host is what reading a state file needs from the machine: files by their
// host paths (state files, values files, readFile/readDir/isFile), the
// environment (env, requiredEnv) and, only when allowed, commands (exec).
type Host interface {
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]fs.DirEntry, error)
	Stat(path string) (fs.FileInfo, error)
	Glob(pattern string) ([]string, error)
	LookupEnv(name string) (string, bool)
	// Exec runs command with args and input on stdin and returns its stdout;
	// the loader calls it only when the user allowed exec.
	Exec(ctx context.Context, command string, args []string, input string) (string, error)
}
