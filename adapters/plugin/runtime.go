package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Invocation is a prepared subprocess.
type Invocation struct {
	Path string
	Args []string
	// Env is added to the process environment.
	Env []string
}

// ExitError reports a plugin that ran and failed.
type ExitError struct {
	Plugin string
	Code   int
	Stderr string
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("plugin %q exited with status %d", e.Plugin, e.Code)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

// Platform selects platform commands; tests set it to check other systems.
type Platform struct{ OS, Arch string }

// Host is the platform this program runs on.
func Host() Platform { return Platform{OS: runtime.GOOS, Arch: runtime.GOARCH} }

// Select picks the command for the platform as Helm does: an exact OS and arch
// match, else the first OS match without arch, else the first entry without OS
// and arch.
func (pl Platform) Select(cmds []PlatformCommand) (PlatformCommand, bool) {
	var osMatch, anyMatch *PlatformCommand
	for i := range cmds {
		c := &cmds[i]
		osEq := strings.EqualFold(c.OS, pl.OS)
		switch {
		case osEq && strings.EqualFold(c.Arch, pl.Arch):
			return *c, true
		case c.Arch != "":
		case osEq && osMatch == nil:
			osMatch = c
		case c.OS == "" && anyMatch == nil:
			anyMatch = c
		}
	}
	if osMatch != nil {
		return *osMatch, true
	}
	if anyMatch != nil {
		return *anyMatch, true
	}
	return PlatformCommand{}, false
}

// commands are the plugin's platform commands in any of the layouts.
func (p *Plugin) commands() []PlatformCommand {
	switch {
	case p.RuntimeConfig != nil && len(p.RuntimeConfig.PlatformCommand) > 0:
		return p.RuntimeConfig.PlatformCommand
	case len(p.PlatformCommand) > 0:
		return p.PlatformCommand
	case p.Command != "":
		return []PlatformCommand{{Command: p.Command}}
	}
	return nil
}

// ignoreFlags reports whether the plugin wants no user arguments appended.
func (p *Plugin) ignoreFlags() bool {
	return p.IgnoreFlags || (p.Config != nil && p.Config.IgnoreFlags)
}

// Prepare builds the invocation of p's main command with extra arguments
// appended (unless the plugin ignores them) and extra environment variables.
func (r *Registry) Prepare(p *Plugin, pl Platform, extraArgs []string, extraEnv map[string]string) (*Invocation, error) {
	c, ok := pl.Select(p.commands())
	if !ok || strings.TrimSpace(c.Command) == "" {
		return nil, fmt.Errorf("plugin %q has no command for %s/%s", p.Name, pl.OS, pl.Arch)
	}
	if p.ignoreFlags() {
		extraArgs = nil
	}
	return r.prepare(p, c, extraArgs, extraEnv)
}

func (r *Registry) prepare(p *Plugin, c PlatformCommand, extraArgs []string, extraEnv map[string]string) (*Invocation, error) {
	return prepare(p, c, extraArgs, extraEnv, r.env, true), nil
}

// prepare builds the invocation of c for p: $VARIABLES in the command, and in
// its arguments when expandArgs is set, are p's variables, then extraEnv's,
// then getenv's.
func prepare(p *Plugin, c PlatformCommand, extraArgs []string, extraEnv map[string]string, getenv func(string) string, expandArgs bool) *Invocation {
	env := map[string]string{
		"KUBECTL_CHART_PLUGIN_NAME": p.Name,
		"KUBECTL_CHART_PLUGIN_DIR":  p.Dir,
		"HELM_PLUGIN_NAME":          p.Name,
		"HELM_PLUGIN_DIR":           p.Dir,
	}
	for k, v := range extraEnv {
		env[k] = v
	}
	lookup := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		// Shell parameters ($0, $1, $@, ...) are left for `sh -c` commands.
		if k != "" && (strings.ContainsRune("0123456789", rune(k[0])) || len(k) == 1 && !validName.MatchString(k)) {
			return "$" + k
		}
		return getenv(k)
	}
	arg := func(a string) string {
		if expandArgs {
			return os.Expand(a, lookup)
		}
		return a
	}
	parts := strings.Fields(c.Command)
	inv := &Invocation{Path: os.Expand(parts[0], lookup)}
	for _, a := range parts[1:] {
		inv.Args = append(inv.Args, arg(a))
	}
	for _, a := range c.Args {
		inv.Args = append(inv.Args, arg(a))
	}
	inv.Args = append(inv.Args, extraArgs...)
	// A relative path with a separator names a file in the plugin directory.
	if !filepath.IsAbs(inv.Path) && strings.ContainsAny(inv.Path, `/\`) && p.Dir != "" {
		if _, err := os.Stat(filepath.Join(p.Dir, inv.Path)); err == nil {
			inv.Path = filepath.Join(p.Dir, inv.Path)
		}
	}
	for k, v := range env {
		inv.Env = append(inv.Env, k+"="+v)
	}
	return inv
}

// Exec runs the invocation with the given streams. A non-zero exit becomes an
// *ExitError carrying what the plugin wrote to stderr when stderr is captured.
func Exec(ctx context.Context, name string, inv *Invocation, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, inv.Path, inv.Args...)
	cmd.Env = append(os.Environ(), inv.Env...)
	cmd.Stdin = stdin
	cmd.Stdout = stdout
	var captured bytes.Buffer
	if stderr == nil {
		cmd.Stderr = &captured
	} else {
		cmd.Stderr = stderr
	}
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return &ExitError{Plugin: name, Code: exitErr.ExitCode(), Stderr: captured.String()}
	}
	if err != nil {
		return fmt.Errorf("run plugin %q (%s): %w", name, inv.Path, err)
	}
	return nil
}
