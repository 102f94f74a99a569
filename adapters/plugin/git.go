package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Errors callers branch on.
var (
	// ErrNotVCS marks an update of a plugin that was not installed from a git
	// repository (Helm's words).
	ErrNotVCS = errors.New("cannot get information about plugin source")
	// ErrModified marks an update of a plugin whose checkout was changed
	// locally (Helm's words).
	ErrModified = errors.New("plugin repo was modified")
)

// isGitSource reports whether src names a git repository rather than a local
// path or an archive URL: git://, ssh://, file:// and scp-like git@host:path
// URLs, and http(s) URLs that do not end in an archive suffix.
func isGitSource(src string) bool {
	switch {
	case strings.HasPrefix(src, "git://"), strings.HasPrefix(src, "ssh://"), strings.HasPrefix(src, "git+ssh://"),
		strings.HasPrefix(src, "file://"), strings.HasPrefix(src, "git@"):
		return true
	case strings.HasPrefix(src, "http://"), strings.HasPrefix(src, "https://"):
		return !isArchiveURL(src)
	}
	return false
}

// isArchiveURL reports an http(s) URL of a plugin archive, by its suffix.
func isArchiveURL(src string) bool {
	u := strings.SplitN(strings.SplitN(src, "?", 2)[0], "#", 2)[0]
	for _, suffix := range []string{".tgz", ".tar.gz"} {
		if strings.HasSuffix(u, suffix) {
			return true
		}
	}
	return false
}

// git runs git in dir and returns its stdout; a failure carries its stderr.
func (in Installer) git(ctx context.Context, dir string, args ...string) (string, error) {
	bin := in.GitPath
	if bin == "" {
		bin = "git"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// Never ask for credentials on the terminal.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.String(), nil
}

// cloneGit clones src into dir and checks out version: a tag, branch or
// commit, else the newest tag matching it as a semantic version constraint.
func (in Installer) cloneGit(ctx context.Context, src, dir string) error {
	if _, err := in.git(ctx, filepath.Dir(dir), "clone", "--quiet", "--", src, dir); err != nil {
		return err
	}
	if in.Version == "" {
		return checkTree(dir)
	}
	ref := in.Version
	if _, err := in.git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		if ref, err = in.solveVersion(ctx, src, dir); err != nil {
			return err
		}
	}
	if _, err := in.git(ctx, dir, "checkout", "--quiet", "--detach", ref); err != nil {
		return err
	}
	return checkTree(dir)
}

// solveVersion picks the newest tag that is a semantic version matching the
// constraint in.Version.
func (in Installer) solveVersion(ctx context.Context, src, dir string) (string, error) {
	constraint, err := semver.NewConstraint(in.Version)
	if err != nil {
		return "", err
	}
	out, err := in.git(ctx, dir, "tag", "--list")
	if err != nil {
		return "", err
	}
	var versions []*semver.Version
	for _, tag := range strings.Fields(out) {
		if v, err := semver.NewVersion(tag); err == nil {
			versions = append(versions, v)
		}
	}
	sort.Sort(sort.Reverse(semver.Collection(versions)))
	for _, v := range versions {
		if constraint.Check(v) {
			return v.Original(), nil
		}
	}
	return "", fmt.Errorf("requested version %q does not exist for plugin %q", in.Version, src)
}

// checkTree refuses links and special files in a checkout (outside .git), as
// installs from directories and archives do.
func checkTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%w: %s is a symbolic link; links are not allowed", ErrUnsafeArchive, p)
		case !d.IsDir() && !d.Type().IsRegular():
			return fmt.Errorf("%w: %s is not a regular file or directory", ErrUnsafeArchive, p)
		}
		return nil
	})
}

// Update brings the plugin named name, installed from a git repository, up to
// date with its remote as Helm does: a branch is pulled, a checked-out tag or
// commit stays where it is after fetching.
func (in Installer) Update(ctx context.Context, name string) (*Plugin, error) {
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("%w: %q is not a valid plugin name", ErrNotInstalled, name)
	}
	target := filepath.Join(in.Dir, name)
	if _, err := LoadDir(target); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: no plugin %q in %s", ErrNotInstalled, name, in.Dir)
		}
		return nil, err
	}
	if fi, err := os.Stat(filepath.Join(target, ".git")); err != nil || !fi.IsDir() {
		return nil, ErrNotVCS
	}
	status, err := in.git(ctx, target, "status", "--porcelain")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(status) != "" {
		return nil, ErrModified
	}
	if _, err := in.git(ctx, target, "fetch", "--quiet", "--tags", "origin"); err != nil {
		return nil, err
	}
	if _, err := in.git(ctx, target, "symbolic-ref", "--quiet", "HEAD"); err == nil {
		if _, err := in.git(ctx, target, "merge", "--quiet", "--ff-only", "@{upstream}"); err != nil {
			return nil, err
		}
	}
	if err := checkTree(target); err != nil {
		return nil, err
	}
	return LoadDir(target)
}
