package create

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// StarterLimits cap what a starter may hold: the limits of a chart directory, so that
// a starter can neither exhaust memory nor block on a file that never ends.
type StarterLimits struct {
	MaxFileSize  int64
	MaxTotalSize int64
}

// DefaultStarterLimits are a chart's limits: 5 MiB per file, 100 MiB in all.
func DefaultStarterLimits() StarterLimits {
	return StarterLimits{MaxFileSize: loader.DefaultMaxFileSize, MaxTotalSize: loader.DefaultMaxChartSize}
}

// LoadStarter reads the files of a starter chart rooted at fsys. Symbolic links and
// irregular files (FIFOs, devices, sockets) are refused before they are opened, and
// files over the limits are refused before they are read.
func LoadStarter(fsys fs.FS, limits StarterLimits) ([]File, error) {
	var files []File
	remaining := limits.MaxTotalSize
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch mode := d.Type(); {
		case mode&fs.ModeSymlink != 0:
			return fmt.Errorf("starter file %s is a symlink: not allowed", p)
		case d.IsDir():
			return nil
		case !mode.IsRegular():
			return fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", p)
		}
		if info.Size() > limits.MaxFileSize {
			return fmt.Errorf("starter file %q is larger than the maximum file size %d", p, limits.MaxFileSize)
		}
		if info.Size() > remaining {
			return fmt.Errorf("starter is larger than the maximum size %d", limits.MaxTotalSize)
		}
		data, err := readAtMost(fsys, p, min(limits.MaxFileSize, remaining))
		if err != nil {
			return err
		}
		if int64(len(data)) > limits.MaxFileSize {
			return fmt.Errorf("starter file %q is larger than the maximum file size %d", p, limits.MaxFileSize)
		}
		if int64(len(data)) > remaining {
			return fmt.Errorf("starter is larger than the maximum size %d", limits.MaxTotalSize)
		}
		remaining -= int64(len(data))
		files = append(files, File{Name: p, Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// readAtMost reads name, at most limit+1 bytes of it: a file that grew after its size
// was checked is still cut off.
func readAtMost(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("error reading %s: %w", name, err)
	}
	return data, nil
}
