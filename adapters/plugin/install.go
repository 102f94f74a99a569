package plugin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/adapters/atomicfile"
	"github.com/kubectl-chart/kubectl-chart/adapters/provenance"
)

// Errors callers branch on.
var (
	// ErrUnsafeArchive marks a plugin archive or directory that is refused:
	// entries escaping the target, links, special files, duplicate entries.
	ErrUnsafeArchive = errors.New("unsafe plugin archive")
	// ErrAlreadyInstalled marks an install over an existing plugin.
	ErrAlreadyInstalled = errors.New("plugin already installed")
	// ErrNotInstalled marks an uninstall of a plugin that is not in the install directory.
	ErrNotInstalled = errors.New("plugin not installed")
)

// Default size limits for plugin archives: room for plugins that ship a Go
// binary (helm-unittest's is 54 MB) while still stopping decompression bombs.
const (
	DefaultMaxArchiveSize = 512 << 20
	DefaultMaxFileSize    = 256 << 20
)

// Installer installs plugins into Dir, one subdirectory per plugin name.
type Installer struct {
	Dir string
	// Client downloads URLs; http.DefaultClient when nil.
	Client *http.Client
	// MaxSize bounds an archive's decompressed size and MaxFileSize each file.
	MaxSize, MaxFileSize int64
	// Version is the tag, branch, commit or semantic version constraint to
	// check out when installing from a git repository.
	Version string
	// GitPath is the git program; "git" (looked up in $PATH) when empty.
	GitPath string
	// Verify checks an archive against its .prov (PATH.prov, URL.prov) and
	// Keyring before installing it, as Helm 4 does; a directory is installed
	// unverified and a git repository is refused (ErrNoVerification).
	Verify  bool
	Keyring string
	// PullOCI downloads an oci:// plugin artifact: its archive and .prov (nil
	// when it has none); nil refuses oci:// sources.
	PullOCI func(ctx context.Context, ref string) (archive, prov []byte, err error)
}

func (in Installer) limits() (int64, int64) {
	total, file := in.MaxSize, in.MaxFileSize
	if total <= 0 {
		total = DefaultMaxArchiveSize
	}
	if file <= 0 {
		file = DefaultMaxFileSize
	}
	return total, file
}

// Install installs the plugin at src: a directory, a .tgz file, an http(s) URL
// of a .tgz or a git repository's URL (which stays a checkout, for Update).
// Nothing is left in Dir when it fails.
func (in Installer) Install(ctx context.Context, src string) (*Plugin, error) {
	p, _, err := in.InstallVerified(ctx, src)
	return p, err
}

// InstallVerified is Install, also returning the verification of a signed
// archive when in.Verify is set (nil for a directory).
func (in Installer) InstallVerified(ctx context.Context, src string) (*Plugin, *provenance.Verification, error) {
	if in.Verify && isGitSource(src) {
		return nil, nil, ErrNoVerification
	}
	if err := os.MkdirAll(in.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create plugin directory %s: %w", in.Dir, err)
	}
	staging, err := os.MkdirTemp(in.Dir, ".install-")
	if err != nil {
		return nil, nil, fmt.Errorf("install plugin %s: %w", src, err)
	}
	defer func() { _ = os.RemoveAll(staging) }()

	var archive, ociProv []byte
	switch {
	case strings.HasPrefix(src, "oci://"):
		if in.PullOCI == nil {
			return nil, nil, fmt.Errorf("install plugin from %s: OCI registries are not supported here", src)
		}
		if archive, ociProv, err = in.PullOCI(ctx, src); err != nil {
			return nil, nil, fmt.Errorf("failed to pull plugin from %s: %w", src, err)
		}
		if len(archive) < 2 || archive[0] != 0x1f || archive[1] != 0x8b {
			return nil, nil, errors.New("plugin data is not a gzip compressed archive")
		}
	case isGitSource(src):
		if err := in.cloneGit(ctx, src, filepath.Join(staging, "clone")); err != nil {
			return nil, nil, fmt.Errorf("install plugin from %s: %w", src, err)
		}
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		if archive, err = in.download(ctx, src); err != nil {
			return nil, nil, err
		}
	default:
		fi, err := os.Stat(src)
		if err != nil {
			return nil, nil, fmt.Errorf("install plugin: %w", err)
		}
		if fi.IsDir() {
			if err := in.copyDir(src, staging); err != nil {
				return nil, nil, fmt.Errorf("install plugin from %s: %w", src, err)
			}
			break
		}
		total, _ := in.limits()
		if fi.Size() > total {
			return nil, nil, fmt.Errorf("install plugin from %s: larger than %d bytes", src, total)
		}
		if archive, err = os.ReadFile(src); err != nil {
			return nil, nil, fmt.Errorf("install plugin: %w", err)
		}
	}
	var verified *provenance.Verification
	var prov []byte
	if archive != nil {
		// Kept beside the plugin whether or not it is verified now, for
		// `plugin list`'s provenance and later checks, as Helm 4 does.
		filename := path.Base(src)
		if strings.HasPrefix(src, "oci://") {
			// An artifact's archive is named after the plugin it holds, as in Helm 4.
			prov = ociProv
			md, err := archiveMetadata(archive)
			if err != nil {
				return nil, nil, fmt.Errorf("failed to extract plugin metadata from tarball: %w", err)
			}
			filename = archiveName(*md)
		} else {
			prov, _ = in.provenanceOf(ctx, src)
		}
		if in.Verify {
			err := ErrNoProvenance
			if prov != nil {
				verified, err = Verify(archive, filename, prov, in.Keyring)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("plugin verification failed: %w", err)
			}
		}
		if err := in.extract(bytes.NewReader(archive), staging); err != nil {
			return nil, nil, fmt.Errorf("install plugin from %s: %w", src, err)
		}
	}

	root, err := pluginRoot(staging)
	if err != nil {
		return nil, nil, fmt.Errorf("install plugin from %s: %w", src, err)
	}
	p, err := LoadDir(root)
	if err != nil {
		return nil, nil, fmt.Errorf("install plugin from %s: %w", src, err)
	}
	target := filepath.Join(in.Dir, p.Name)
	if _, err := os.Lstat(target); err == nil {
		return nil, nil, fmt.Errorf("%w: %q is already in %s (uninstall it first)", ErrAlreadyInstalled, p.Name, in.Dir)
	}
	if err := os.Rename(root, target); err != nil {
		return nil, nil, fmt.Errorf("install plugin %q: %w", p.Name, err)
	}
	if archive != nil {
		if err := in.keepArchive(p.Metadata, archive, prov); err != nil {
			_ = os.RemoveAll(target)
			return nil, nil, fmt.Errorf("install plugin %q: %w", p.Name, err)
		}
	}
	p, err = LoadDir(target)
	return p, verified, err
}

// keepArchive writes the archive a plugin was installed from, and its .prov
// when there is one, into Dir as NAME-VERSION.tgz(.prov).
func (in Installer) keepArchive(m Metadata, archive, prov []byte) error {
	name := filepath.Join(in.Dir, archiveName(m))
	if err := atomicfile.Write(name, archive, 0o644); err != nil {
		return err
	}
	if prov == nil {
		// A .prov of an earlier install of the same version would not be this archive's.
		if err := os.Remove(name + ".prov"); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return atomicfile.Write(name+".prov", prov, 0o644)
}

// Uninstall removes the plugin named name from Dir and returns it, for its
// delete hook.
func (in Installer) Uninstall(name string) (*Plugin, error) {
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("%w: %q is not a valid plugin name", ErrNotInstalled, name)
	}
	target := filepath.Join(in.Dir, name)
	p, err := LoadDir(target)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: no plugin %q in %s", ErrNotInstalled, name, in.Dir)
	}
	if err != nil {
		return nil, err
	}
	if p.Name != name {
		return nil, fmt.Errorf("%w: %s holds plugin %q, not %q", ErrNotInstalled, target, p.Name, name)
	}
	if err := os.RemoveAll(target); err != nil {
		return nil, err
	}
	// The archive it was installed from, and its .prov, go with it.
	for _, f := range []string{archiveName(p.Metadata), archiveName(p.Metadata) + ".prov"} {
		if err := os.Remove(filepath.Join(in.Dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return p, nil
}

func (in Installer) download(ctx context.Context, url string) ([]byte, error) {
	client := in.Client
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("download plugin %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download plugin %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download plugin %s: %s", url, resp.Status)
	}
	total, _ := in.limits()
	b, err := io.ReadAll(io.LimitReader(resp.Body, total+1))
	if err != nil {
		return nil, fmt.Errorf("download plugin %s: %w", url, err)
	}
	if int64(len(b)) > total {
		return nil, fmt.Errorf("download plugin %s: larger than %d bytes", url, total)
	}
	return b, nil
}

// entryPath checks an archive entry name and returns it as a clean relative path.
func entryPath(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: empty entry name", ErrUnsafeArchive)
	}
	if strings.Contains(name, `\`) {
		return "", fmt.Errorf("%w: entry %q contains a backslash", ErrUnsafeArchive, name)
	}
	if strings.HasPrefix(name, "/") || (len(name) >= 2 && name[1] == ':') {
		return "", fmt.Errorf("%w: entry %q has an absolute path", ErrUnsafeArchive, name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: entry %q escapes the plugin directory", ErrUnsafeArchive, name)
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

// extract unpacks a gzipped tar into dir, refusing anything but plain files and
// directories, entries outside dir and entries that appear twice.
func (in Installer) extract(r io.Reader, dir string) error {
	total, maxFile := in.limits()
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzipped tar archive: %w", err)
	}
	tr := tar.NewReader(zr)
	seen := map[string]bool{}
	var written int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read archive: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		rel, err := entryPath(h.Name)
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeSymlink, tar.TypeLink:
			return fmt.Errorf("%w: entry %q is a link (to %q); links are not allowed", ErrUnsafeArchive, h.Name, h.Linkname)
		case tar.TypeDir, tar.TypeReg: // the reader reports old TypeRegA entries as TypeReg
		default:
			return fmt.Errorf("%w: entry %q is not a regular file or directory", ErrUnsafeArchive, h.Name)
		}
		if rel == "" {
			continue
		}
		if seen[rel] {
			return fmt.Errorf("%w: entry %q appears twice", ErrUnsafeArchive, h.Name)
		}
		seen[rel] = true
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		}
		if h.Size > maxFile {
			return fmt.Errorf("entry %q is larger than %d bytes", h.Name, maxFile)
		}
		written += h.Size
		if written > total {
			return fmt.Errorf("archive is larger than %d bytes decompressed", total)
		}
		if err := writeFile(target, io.LimitReader(tr, h.Size), h.FileInfo().Mode()); err != nil {
			return err
		}
	}
	if len(seen) == 0 {
		return errors.New("archive is empty")
	}
	return nil
}

// copyDir copies a plugin directory, refusing links and special files so the
// copy cannot reach outside it.
func (in Installer) copyDir(src, dst string) error {
	_, maxFile := in.limits()
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%w: %s is a symbolic link; links are not allowed", ErrUnsafeArchive, p)
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%w: %s is not a regular file or directory", ErrUnsafeArchive, p)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > maxFile {
			return fmt.Errorf("%s is larger than %d bytes", p, maxFile)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		return writeFile(filepath.Join(dst, rel), f, fi.Mode())
	})
}

func writeFile(target string, r io.Reader, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", target, err)
	}
	return f.Close()
}

// pluginRoot is dir itself when it holds plugin.yaml, else its only
// subdirectory that does (archives usually wrap the plugin in a directory).
func pluginRoot(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, MetadataFile)); err == nil {
		return dir, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(entries) == 1 && entries[0].IsDir() {
		sub := filepath.Join(dir, entries[0].Name())
		if _, err := os.Stat(filepath.Join(sub, MetadataFile)); err == nil {
			return sub, nil
		}
	}
	return "", fmt.Errorf("no %s at the top of the plugin or in its only directory", MetadataFile)
}
