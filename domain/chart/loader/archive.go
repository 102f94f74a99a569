package loader

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// ErrNotArchive matches (errors.Is) the error for input that is not
// gzip-compressed; its text is gzip's, as in Helm.
var ErrNotArchive = errors.New("not a gzipped archive")

type notArchiveError struct{ err error }

func (e notArchiveError) Error() string        { return e.err.Error() }
func (e notArchiveError) Unwrap() error        { return e.err }
func (e notArchiveError) Is(target error) bool { return target == ErrNotArchive }

// ErrEntryNamesTooLarge matches (errors.Is) the refusal of an archive whose entry
// names alone exhaust the chart's decompressed budget (a limit Helm does not have).
var ErrEntryNamesTooLarge = errors.New("chart archive entry names exceed the maximum decompressed chart size")

var drivePath = regexp.MustCompile(`^[a-zA-Z]:/`)

// LoadArchive reads a chart from a .tgz stream.
func LoadArchive(r io.Reader, limits Limits) (*chart.Chart, error) {
	limits = withBudget(limits)
	files, err := ArchiveFiles(r, limits)
	if err != nil {
		return nil, err
	}
	return LoadFiles(files, limits)
}

// ArchiveFiles reads the files of a chart archive, dropping the archive's top
// directory. Paths that would leave the chart, links and oversize content are refused.
func ArchiveFiles(r io.Reader, limits Limits) ([]*BufferedFile, error) {
	var files []*BufferedFile
	err := walkArchive(r, limits, func(name string, hd *tar.Header, body io.Reader) error {
		// The entry's size is checked against the budget before it is read.
		data := make([]byte, hd.Size)
		n, err := io.ReadFull(body, data)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return err
		}
		files = append(files, &BufferedFile{Name: name, Data: bytes.TrimPrefix(data[:n], utf8BOM), ModTime: hd.ModTime})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// nameAllowance is how long an archive entry's name may be before its length counts
// against the chart's budget.
const nameAllowance = 256

// WalkArchive calls fn with each regular file of a chart archive, by its slash path
// in the chart, in archive order, with the same checks as ArchiveFiles and without
// holding more than one entry: body reads at most what is left of the chart's
// decompressed budget, and an entry over it, or not read whole by fn, ends the walk
// with the size error. Entry names longer than
// nameAllowance count against the budget too.
func WalkArchive(r io.Reader, limits Limits, fn func(name string, body io.Reader) error) error {
	return walkArchive(r, limits, func(name string, _ *tar.Header, body io.Reader) error { return fn(name, body) })
}

// walkArchive is WalkArchive that also gives fn each entry's size as its header
// says (at most what is left of the budget).
func walkArchive(r io.Reader, limits Limits, fn func(name string, hd *tar.Header, body io.Reader) error) error {
	zr, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return notArchiveError{err}
	}
	defer func() { _ = zr.Close() }()

	limits = withBudget(limits)
	left := &limits.budget.left
	seen := false
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			// Helm's words: the tar reader's error alone.
			return err
		}
		// A name of up to a megabyte costs memory whether or not the entry is kept:
		// thousands of them are a bomb of their own. What a name holds past a path's
		// usual length counts against the budget (so that ordinary charts keep Helm's
		// exact limit).
		if *left -= max(0, int64(len(hd.Name))-nameAllowance); *left < 0 {
			return fmt.Errorf("%w %d", ErrEntryNamesTooLarge, limits.MaxChartSize)
		}
		name, err := entryName(hd)
		if err != nil {
			return err
		}
		if name == "" {
			continue
		}
		if hd.Size > *left {
			return archiveTooLarge(limits)
		}
		if fileTooLarge(limits, hd.Size) {
			return fmt.Errorf("decompressed chart file %q is larger than the maximum file size %d", hd.Name, limits.MaxFileSize)
		}
		body := &countingReader{r: io.LimitReader(tr, *left)}
		if err := fn(name, hd, body); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, body); err != nil {
			return err
		}
		*left -= body.n
		if body.n < hd.Size || *left <= 0 {
			return archiveTooLarge(limits)
		}
		seen = true
	}
	if !seen {
		return errors.New("no files in chart archive")
	}
	return nil
}

// entryName is the slash path in the chart of a regular file's entry, "" for an
// entry that holds no file (a directory, a PAX header), or an error for one that is
// refused.
func entryName(hd *tar.Header) (string, error) {
	switch hd.Typeflag {
	case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
		return "", nil
	case tar.TypeSymlink, tar.TypeLink:
		return "", fmt.Errorf("chart archive entry %q is a link: links are not allowed in charts", hd.Name)
	case tar.TypeReg:
	default:
		return "", fmt.Errorf("chart archive entry %q is not a regular file", hd.Name)
	}

	sep := "/"
	if strings.ContainsRune(hd.Name, '\\') {
		sep = "\\"
	}
	parts := strings.Split(hd.Name, sep)
	name := strings.ReplaceAll(strings.Join(parts[1:], sep), sep, "/")
	if path.IsAbs(name) {
		return "", fmt.Errorf("chart archive entry %q: chart illegally contains absolute paths", hd.Name)
	}
	name = path.Clean(name)
	switch {
	case name == ".":
		return "", fmt.Errorf("chart illegally contains content outside the base directory: %q", hd.Name)
	case strings.HasPrefix(name, ".."):
		// As in Helm, any name starting with ".." is refused, "..data" included.
		return "", fmt.Errorf("chart archive entry %q: chart illegally references parent directory", hd.Name)
	case drivePath.MatchString(name):
		return "", fmt.Errorf("chart archive entry %q: chart contains illegally named files", hd.Name)
	case parts[0] == "Chart.yaml":
		return "", errors.New("chart yaml not in base directory")
	}
	return name, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// archiveTooLarge is the error for an archive over the cap per chart, in the
// dialect's words.
func archiveTooLarge(limits Limits) error {
	if limits.Dialect.IsHelm4() {
		return fmt.Errorf("decompressed chart is larger than the maximum size %d", limits.MaxChartSize)
	}
	return fmt.Errorf("decompressed chart is larger than the maximum file size %d", limits.MaxChartSize)
}
