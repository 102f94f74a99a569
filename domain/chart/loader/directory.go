package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// maxLinkHops bounds symlink chains (and loops) inside a chart directory.
const maxLinkHops = 40

// LoadDir reads a chart from a directory tree whose root is the chart's root.
// Symbolic links are followed when fsys can read them (fs.ReadLinkFS, as os.DirFS
// does) and refused when they lead outside the chart.
func LoadDir(fsys fs.FS, limits Limits) (*chart.Chart, error) {
	rules := &ignoreRules{}
	if data, err := fs.ReadFile(fsys, ignoreFile); err == nil {
		if rules, err = parseIgnore(data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", ignoreFile, err)
	}
	for _, r := range defaultIgnoreRules() {
		_ = rules.add(r)
	}

	w := &dirWalker{fsys: fsys, rules: rules, limits: limits, remaining: limits.MaxChartSize, visiting: map[string]bool{}}
	if err := w.walk(".", "."); err != nil {
		return nil, err
	}
	// Subchart archives in the directory take what the directory's files left.
	limits.budget = &budget{left: w.remaining}
	return LoadFiles(w.files, limits)
}

type dirWalker struct {
	fsys      fs.FS
	rules     *ignoreRules
	limits    Limits
	remaining int64
	files     []*BufferedFile
	// visiting holds the real directories on the current path, to stop link loops.
	visiting map[string]bool
}

// walk reads directory real (its path after resolving links) and reports its
// entries under the chart path name.
func (w *dirWalker) walk(name, real string) error {
	if w.visiting[real] {
		return fmt.Errorf("chart directory %q: symbolic link loop", name)
	}
	w.visiting[real] = true
	defer delete(w.visiting, real)

	entries, err := fs.ReadDir(w.fsys, real)
	if err != nil {
		return fmt.Errorf("read directory %q: %w", name, err)
	}
	for _, e := range entries {
		childName, childReal := join(name, e.Name()), join(real, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			if childReal, err = w.resolve(childName, childReal); err != nil {
				return err
			}
		}
		info, err := fs.Stat(w.fsys, childReal)
		if err != nil {
			return fmt.Errorf("stat %q: %w", childName, err)
		}
		if w.rules.ignored(childName, info.IsDir()) {
			continue
		}
		if info.IsDir() {
			if err := w.walk(childName, childReal); err != nil {
				return err
			}
			continue
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", childName)
		}
		if w.limits.fileTooLarge(info.Size()) {
			// Helm names the file without its directory.
			return fmt.Errorf("chart file %q is larger than the maximum file size %d", path.Base(childName), w.limits.MaxFileSize)
		}
		if info.Size() > w.remaining {
			if w.limits.Dialect.IsHelm4() {
				return fmt.Errorf("chart exceeds maximum decompressed size of %d bytes", w.limits.MaxChartSize)
			}
			return fmt.Errorf("chart is larger than the maximum size %d", w.limits.MaxChartSize)
		}
		data, err := fs.ReadFile(w.fsys, childReal)
		if err != nil {
			return fmt.Errorf("error reading %s: %w", childName, err)
		}
		w.remaining -= int64(len(data))
		w.files = append(w.files, &BufferedFile{Name: childName, Data: trimBOM(data)})
	}
	return nil
}

// resolve follows a chain of links from real and returns the target's path in fsys,
// refusing targets outside the chart root.
func (w *dirWalker) resolve(name, real string) (string, error) {
	for range maxLinkHops {
		info, err := fs.Lstat(w.fsys, real)
		if err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				return real, nil
			}
			return "", fmt.Errorf("stat %q: %w", name, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return real, nil
		}
		target, err := fs.ReadLink(w.fsys, real)
		if err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				return real, nil
			}
			return "", fmt.Errorf("read symbolic link %q: %w", name, err)
		}
		target = strings.ReplaceAll(target, "\\", "/")
		if path.IsAbs(target) || drivePath.MatchString(target) {
			return "", fmt.Errorf("symbolic link %q points outside the chart (to %q)", name, target)
		}
		next := path.Clean(path.Join(path.Dir(real), target))
		if next == ".." || strings.HasPrefix(next, "../") {
			return "", fmt.Errorf("symbolic link %q points outside the chart (to %q)", name, target)
		}
		real = next
	}
	return "", fmt.Errorf("symbolic link %q: too many levels of links", name)
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == utf8BOM[0] && b[1] == utf8BOM[1] && b[2] == utf8BOM[2] {
		return b[3:]
	}
	return b
}
