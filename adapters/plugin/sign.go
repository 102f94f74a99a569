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
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/adapters/provenance"
)

// Errors callers branch on.
var (
	// ErrNoVerification marks an install with verification from a source that
	// has no signature to check (a git repository), with Helm's words.
	ErrNoVerification = errors.New("plugin source does not support verification. Use --verify=false to skip verification")
	// ErrNoProvenance marks a signed install whose archive has no .prov.
	ErrNoProvenance = errors.New("no provenance file (.prov) found")
)

// Package writes the plugin in dir as a gzipped tar whose entries are under
// the plugin's name, as Helm's `plugin package` does, and returns the plugin.
// Links and special files are refused, as installs refuse them.
func Package(dir string, w io.Writer) (*Plugin, error) {
	p, err := LoadDir(dir)
	if err != nil {
		return nil, err
	}
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(p.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(p.Dir, path)
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 || (!d.IsDir() && !d.Type().IsRegular()) {
			return fmt.Errorf("%w: %s is a link or a special file", ErrUnsafeArchive, path)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(filepath.Join(p.Name, rel))
		if d.IsDir() {
			h.Name += "/"
		}
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return p, zw.Close()
}

// Sign returns the .prov of a plugin archive: its plugin.yaml and sha256 sum,
// clearsigned with key id from the secret keyring, in Helm's format.
func Sign(archive []byte, filename, keyring, id string, passphrase []byte) ([]byte, error) {
	md, err := archiveMetadata(archive)
	if err != nil {
		return nil, err
	}
	return provenance.Sign(archive, filename, md, keyring, id, passphrase)
}

// archiveMetadata reads the plugin.yaml of a plugin archive.
func archiveMetadata(archive []byte) (*Metadata, error) {
	dir, err := os.MkdirTemp("", "kubectl-chart-plugin-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := (Installer{}).extract(bytes.NewReader(archive), dir); err != nil {
		return nil, err
	}
	root, err := pluginRoot(dir)
	if err != nil {
		return nil, err
	}
	p, err := LoadDir(root)
	if err != nil {
		return nil, err
	}
	return &p.Metadata, nil
}

// Verify checks a plugin archive against its .prov and the keyring.
func Verify(archive []byte, filename string, prov []byte, keyring string) (*provenance.Verification, error) {
	return provenance.Verify(archive, filename, prov, keyring)
}

// SupportsVerification reports whether src can be verified: archives can,
// git repositories cannot.
func SupportsVerification(src string) bool { return !isGitSource(src) }

// provenanceOf reads the .prov beside an archive: PATH.prov or URL.prov.
func (in Installer) provenanceOf(ctx context.Context, src string) ([]byte, error) {
	if isArchiveURL(src) && (hasScheme(src, "http") || hasScheme(src, "https")) {
		b, err := in.download(ctx, src+".prov")
		if err != nil {
			return nil, ErrNoProvenance
		}
		return b, nil
	}
	b, err := os.ReadFile(src + ".prov")
	if err != nil {
		return nil, ErrNoProvenance
	}
	return b, nil
}

func hasScheme(src, scheme string) bool {
	return len(src) > len(scheme)+3 && src[:len(scheme)+3] == scheme+"://"
}

// Provenance statuses, Helm 4's words in `plugin list`.
const (
	ProvenanceLocalDev   = "local dev"
	ProvenanceUnsigned   = "unsigned"
	ProvenanceInvalid    = "invalid provenance"
	ProvenanceMismatched = "mismatched provenance"
	ProvenanceSigned     = "signed"
	ProvenanceUnknown    = "unknown"
)

// archiveName is NAME-VERSION.tgz, the name under which an install keeps the
// archive a plugin came from, beside the plugin, as Helm 4 does.
func archiveName(m Metadata) string { return fmt.Sprintf("%s-%s.tgz", m.Name, m.Version) }

// ProvenanceStatus says, as Helm 4's `plugin list` does, whether the plugin
// came signed: a linked directory is local development; otherwise the
// archive kept beside it and its .prov must exist, and the .prov must be a
// signed message listing the archive's sum. The signature itself is not
// checked (no keyring), as in Helm.
func ProvenanceStatus(p *Plugin) string {
	if p.Dir == "" {
		return ProvenanceUnknown
	}
	fi, err := os.Lstat(p.Dir)
	switch {
	case err != nil:
		return ProvenanceUnknown
	case fi.Mode()&fs.ModeSymlink != 0:
		return ProvenanceLocalDev
	}
	archive := filepath.Join(filepath.Dir(p.Dir), archiveName(p.Metadata))
	data, err := os.ReadFile(archive)
	if err != nil {
		return ProvenanceUnsigned
	}
	prov, err := os.ReadFile(archive + ".prov")
	if err != nil {
		return ProvenanceUnsigned
	}
	files, err := provenance.FileSums(prov)
	switch {
	case errors.Is(err, provenance.ErrNoMessageBlock):
		return ProvenanceInvalid
	case err != nil:
		return ProvenanceMismatched
	}
	want := provenance.Digest(data)
	for name, sum := range files {
		if strings.Contains(name, filepath.Base(archive)) && sum == want {
			return ProvenanceSigned
		}
	}
	return ProvenanceMismatched
}
