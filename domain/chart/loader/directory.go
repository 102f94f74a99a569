package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

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
	w.startReaders()
	walkErr := w.walk(".", ".")
	if err := w.waitReaders(walkErr); err != nil {
		return nil, err
	}
	// Subchart archives in the directory take what the directory's files left.
	limits.budget = &budget{left: w.remaining}
	if early := w.earlyValues; early != nil && early.values.done != nil {
		limits.early = &earlyValues{data: early.file.Data, pending: early.values}
	}
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

	// Files are read on reader goroutines while the walk goes on (reading is
	// most of a big chart's walk), in the order of pending.
	reads   chan *pendingRead
	pending []*pendingRead
	readers sync.WaitGroup
	// earlyValues is the chart's values.yaml, read before its turn.
	earlyValues *pendingRead
}

// pendingRead is a file of the walk being read from path real in the walk's fs.
type pendingRead struct {
	file *BufferedFile
	real string
	err  error
	// For the values.yaml read early: the size it had, and its decoding, started
	// once it is read.
	size   int64
	values *pendingValues
}

// readers is how many files a walk reads at once.
const readers = 4

func (w *dirWalker) startReaders() {
	w.reads = make(chan *pendingRead, 64)
	for range readers {
		w.readers.Go(func() {
			for r := range w.reads {
				r.file.Data, r.err = fs.ReadFile(w.fsys, r.real)
				if r.values != nil && r.err == nil {
					r.values.start(w.limits.Dialect, trimBOM(r.file.Data))
				}
			}
		})
	}
}

// read has file name (path real in fsys) read into the next place in files.
func (w *dirWalker) read(name, real string, modTime time.Time) {
	r := &pendingRead{file: &BufferedFile{Name: name, ModTime: modTime}, real: real}
	w.files = append(w.files, r.file)
	w.pending = append(w.pending, r)
	w.reads <- r
}

// waitReaders waits for the reads and returns the error a walk reading file by
// file would have stopped at: the first read error in walk order (each read
// came before walkErr), else walkErr. The sizes as read count against the
// chart's size again.
func (w *dirWalker) waitReaders(walkErr error) error {
	close(w.reads)
	w.readers.Wait()
	w.remaining = w.limits.MaxChartSize
	for _, r := range w.pending {
		if r.err != nil {
			return fmt.Errorf("error reading %s: %w", r.file.Name, r.err)
		}
		// The walk checked the sizes it saw; a file that grew since is caught here.
		if int64(len(r.file.Data)) > w.remaining {
			return w.tooLarge()
		}
		w.remaining -= int64(len(r.file.Data))
		r.file.Data = trimBOM(r.file.Data)
	}
	return walkErr
}

func (w *dirWalker) tooLarge() error {
	if w.limits.Dialect.IsHelm4() {
		return fmt.Errorf("chart exceeds maximum decompressed size of %d bytes", w.limits.MaxChartSize)
	}
	return fmt.Errorf("chart is larger than the maximum size %d", w.limits.MaxChartSize)
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
	if name == "." {
		w.readValuesEarly(entries)
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
		if fileTooLarge(w.limits, info.Size()) {
			// Helm names the file without its directory.
			return fmt.Errorf("chart file %q is larger than the maximum file size %d", path.Base(childName), w.limits.MaxFileSize)
		}
		if info.Size() > w.remaining {
			return w.tooLarge()
		}
		w.remaining -= info.Size()
		if early := w.earlyValues; early != nil && childName == valuesFile && info.Size() == early.size {
			early.file.ModTime = info.ModTime()
			w.files = append(w.files, early.file)
			w.pending = append(w.pending, early)
			continue
		}
		w.read(childName, childReal, info.ModTime())
	}
	return nil
}

// valuesFile is the chart's default values.
const valuesFile = "values.yaml"

// readValuesEarly starts reading and decoding the chart's values.yaml (the last
// file of a walk, and in big charts the longest to decode) before the rest of
// the walk, when it is a regular file the walk will read: LoadFiles then takes
// the decoding under way (Limits.early). What is read stays within the limits
// the walk applies.
func (w *dirWalker) readValuesEarly(entries []fs.DirEntry) {
	i := slices.IndexFunc(entries, func(e fs.DirEntry) bool { return e.Name() == valuesFile })
	if i < 0 || !entries[i].Type().IsRegular() || w.rules.ignored(valuesFile, false) {
		return
	}
	info, err := entries[i].Info()
	if err != nil || fileTooLarge(w.limits, info.Size()) || info.Size() > w.limits.MaxChartSize {
		return
	}
	w.earlyValues = &pendingRead{file: &BufferedFile{Name: valuesFile}, real: valuesFile, size: info.Size(), values: &pendingValues{}}
	w.reads <- w.earlyValues
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
