package helmfile

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
)

// memHost is a Host over files in memory; commands echo their arguments.
type memHost struct {
	files fstest.MapFS
	env   map[string]string
}

func newMemHost(files map[string]string) memHost {
	m := fstest.MapFS{}
	for name, content := range files {
		m[name] = &fstest.MapFile{Data: []byte(content)}
	}
	return memHost{files: m, env: map[string]string{}}
}

func clean(p string) string { return strings.TrimPrefix(path.Clean(p), "./") }

func (h memHost) ReadFile(p string) ([]byte, error)       { return fs.ReadFile(h.files, clean(p)) }
func (h memHost) ReadDir(p string) ([]fs.DirEntry, error) { return fs.ReadDir(h.files, clean(p)) }
func (h memHost) Stat(p string) (fs.FileInfo, error)      { return fs.Stat(h.files, clean(p)) }
func (h memHost) Glob(pattern string) ([]string, error)   { return fs.Glob(h.files, clean(pattern)) }
func (h memHost) LookupEnv(name string) (string, bool)    { v, ok := h.env[name]; return v, ok }
func (h memHost) Exec(_ context.Context, command string, args []string, _ string) (string, error) {
	if command == "fail" {
		return "", errors.New("failed")
	}
	return command + " " + strings.Join(args, " "), nil
}
