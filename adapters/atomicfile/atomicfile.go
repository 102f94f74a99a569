// Package atomicfile writes files through a temporary file in the same
// directory that is renamed into place: a reader never sees half a file, and
// a symlink at the path is replaced, never written through.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data, with mode. The directory must exist.
func Write(path string, data []byte, mode os.FileMode) error {
	if err := write(path, "."+filepath.Base(path)+".*", data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteLikeHelm is Write through a temporary file named as Helm names it (the
// file's name and a random number), failing with the file system's error alone,
// as Helm's pull does when the directory is missing ("open DIR/NAME.tgz123:
// no such file or directory").
func WriteLikeHelm(path string, data []byte, mode os.FileMode) error {
	return write(path, filepath.Base(path), data, mode)
}

func write(path, pattern string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}
