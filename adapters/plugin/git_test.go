package plugin

import (
	"context"
	"errors"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// gitRepo is a plugin's repository served over git's smart HTTP protocol by
// git-http-backend on 127.0.0.1.
type gitRepo struct {
	t    *testing.T
	work string // a clone to commit and push from
	URL  string
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	prereq.Command(t, "git")
	execPath := strings.TrimSpace(runGit(t, ".", "--exec-path"))
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		prereq.Missing(t, "git-http-backend is not installed (git's package has it): %v", err)
	}
	root := t.TempDir()
	runGit(t, root, "init", "--quiet", "--bare", "plugin.git")
	runGit(t, filepath.Join(root, "plugin.git"), "config", "http.receivepack", "true")
	srv := httptest.NewServer(&cgi.Handler{
		Path: backend,
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	})
	t.Cleanup(srv.Close)
	r := &gitRepo{t: t, work: filepath.Join(t.TempDir(), "work"), URL: srv.URL + "/plugin.git"}
	runGit(t, filepath.Dir(r.work), "init", "--quiet", r.work)
	runGit(t, r.work, "remote", "add", "origin", r.URL)
	return r
}

// commit commits the plugin at version, tags it vVERSION when tag is set and
// pushes.
func (r *gitRepo) commit(version string, tag bool) {
	r.t.Helper()
	yaml := "name: gitplug\nversion: " + version + "\nusage: from git\ncommand: $HELM_PLUGIN_DIR/run.sh\n"
	if err := os.WriteFile(filepath.Join(r.work, MetadataFile), []byte(yaml), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.work, "run.sh"), []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
		r.t.Fatal(err)
	}
	runGit(r.t, r.work, "add", "-A")
	runGit(r.t, r.work, "commit", "--quiet", "-m", version)
	if tag {
		runGit(r.t, r.work, "tag", "v"+version)
	}
	runGit(r.t, r.work, "push", "--quiet", "--tags", "origin", "HEAD:main")
}

func TestInstallFromGitAndUpdate(t *testing.T) {
	repo := newGitRepo(t)
	repo.commit("0.1.0", true)
	repo.commit("0.2.0", true)
	repo.commit("0.3.0-dev", false)
	ctx := context.Background()

	tests := map[string]struct {
		version     string
		want        string
		wantErr     string
		afterUpdate string
	}{
		"branch head":      {want: "0.3.0-dev", afterUpdate: "0.4.0"},
		"constraint":       {version: ">=0.1.0 <0.2.0", want: "0.1.0", afterUpdate: "0.1.0"},
		"newest tag":       {version: ">=0.1.0", want: "0.2.0", afterUpdate: "0.2.0"},
		"tag by name":      {version: "v0.1.0", want: "0.1.0", afterUpdate: "0.1.0"},
		"no such version":  {version: "^9.0.0", wantErr: `requested version "^9.0.0" does not exist for plugin "` + repo.URL + `"`},
		"not a constraint": {version: "not a version", wantErr: "improper constraint"},
	}
	dirs := map[string]string{}
	for name, tc := range tests {
		dir := t.TempDir()
		dirs[name] = dir
		t.Run(name, func(t *testing.T) {
			p, err := Installer{Dir: dir, Version: tc.version}.Install(ctx, repo.URL)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("a failed install left %v", entries)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Version != tc.want || p.Dir != filepath.Join(dir, "gitplug") {
				t.Errorf("installed %s in %s, want %s", p.Version, p.Dir, tc.want)
			}
		})
	}

	repo.commit("0.4.0", true)
	for name, tc := range tests {
		if tc.wantErr != "" {
			continue
		}
		t.Run("update "+name, func(t *testing.T) {
			p, err := Installer{Dir: dirs[name]}.Update(ctx, "gitplug")
			if err != nil {
				t.Fatal(err)
			}
			if p.Version != tc.afterUpdate {
				t.Errorf("after update: %s, want %s", p.Version, tc.afterUpdate)
			}
		})
	}

	t.Run("update of a modified checkout", func(t *testing.T) {
		dir := dirs["branch head"]
		if err := os.WriteFile(filepath.Join(dir, "gitplug", "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := (Installer{Dir: dir}).Update(ctx, "gitplug"); !errors.Is(err, ErrModified) {
			t.Errorf("error = %v, want ErrModified", err)
		}
	})
	t.Run("update of a plugin not from git", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(t.TempDir(), "local")
		runGit(t, ".", "clone", "--quiet", repo.URL, src)
		if err := os.RemoveAll(filepath.Join(src, ".git")); err != nil {
			t.Fatal(err)
		}
		if _, err := (Installer{Dir: dir}).Install(ctx, src); err != nil {
			t.Fatal(err)
		}
		if _, err := (Installer{Dir: dir}).Update(ctx, "gitplug"); !errors.Is(err, ErrNotVCS) {
			t.Errorf("error = %v, want ErrNotVCS", err)
		}
		if _, err := (Installer{Dir: dir}).Update(ctx, "nope"); !errors.Is(err, ErrNotInstalled) {
			t.Errorf("error = %v, want ErrNotInstalled", err)
		}
	})
}

func TestIsGitSource(t *testing.T) {
	tests := map[string]bool{
		"https://github.com/databus23/helm-diff":         true,
		"https://example.com/p.tgz":                      false,
		"https://example.com/p.tar.gz?x=1":               false,
		"git@github.com:helm-unittest/helm-unittest.git": true,
		"git://127.0.0.1/p.git":                          true,
		"./local/dir":                                    false,
		"file:///srv/p.git":                              true,
	}
	for src, want := range tests {
		t.Run(src, func(t *testing.T) {
			if got := isGitSource(src); got != want {
				t.Errorf("isGitSource(%q) = %v, want %v", src, got, want)
			}
		})
	}
}
