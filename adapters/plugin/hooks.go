package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Hook events: when a plugin's hooks run, after the event.
const (
	HookInstall = "install"
	HookUpdate  = "update"
	HookDelete  = "delete"
)

// PlatformHooks are the commands per hook event, chosen by platform as the
// plugin's commands are.
type PlatformHooks map[string][]PlatformCommand

// Errors callers branch on.
var (
	// ErrBothHooks marks a plugin.yaml with both platformHooks and hooks
	// (Helm's words); Helm 3 warns and runs platformHooks, Helm 4 refuses.
	ErrBothHooks = errors.New("both platformHooks and hooks are set")
	// ErrNoHookCommand marks a hook with no command for this platform
	// (Helm 4's words; Helm 3 skips the hook).
	ErrNoHookCommand = errors.New("no plugin command is applicable")
)

// HookError reports a hook that ran and failed.
type HookError struct {
	Event, Plugin string
	Code          int
}

func (e *HookError) Error() string {
	return fmt.Sprintf("plugin %s hook for %q exited with error", e.Event, e.Plugin)
}

// BothHooks reports a plugin.yaml that sets both platformHooks and hooks.
func (p *Plugin) BothHooks() bool {
	return len(p.PlatformHooks) > 0 && len(p.Hooks) > 0
}

// hookCommands are the commands of event in any of the layouts, and whether
// their arguments are expanded: a hooks entry is a shell command line, which
// the shell expands.
func (p *Plugin) hookCommands(event string) ([]PlatformCommand, bool) {
	switch {
	case p.RuntimeConfig != nil && len(p.RuntimeConfig.PlatformHooks) > 0:
		return p.RuntimeConfig.PlatformHooks[event], true
	case len(p.PlatformHooks) > 0:
		return p.PlatformHooks[event], true
	case p.Hooks[event] != "":
		return []PlatformCommand{{Command: "sh", Args: []string{"-c", p.Hooks[event]}}}, false
	}
	return nil, true
}

// HookOptions say how hooks run, which differs between Helm 3 and Helm 4.
type HookOptions struct {
	Platform Platform
	// Env is added to the hook's environment after the process's and before
	// HELM_PLUGIN_NAME and HELM_PLUGIN_DIR: Helm 3 gives hooks its `helm env`
	// variables, Helm 4 none.
	Env map[string]string
	// Getenv is the process environment; os.Getenv when nil.
	Getenv func(string) string
	// SkipUnmatched skips a hook without a command for the platform, as Helm
	// 3 does; otherwise it is ErrNoHookCommand, as in Helm 4.
	SkipUnmatched bool
	// RefuseBoth makes a plugin with both platformHooks and hooks
	// ErrBothHooks, as in Helm 4; otherwise platformHooks run, as in Helm 3.
	RefuseBoth bool
	// Stdout and Stderr receive the hook's output.
	Stdout, Stderr io.Writer
}

// RunHook runs p's hook for event, if it has one, in the plugin environment:
// the command chosen for the platform, with $HELM_PLUGIN_DIR and
// $HELM_PLUGIN_NAME set. A hook that exits non-zero is a *HookError.
func RunHook(ctx context.Context, p *Plugin, event string, o HookOptions) error {
	if o.RefuseBoth && p.BothHooks() {
		return ErrBothHooks
	}
	cmds, expandArgs := p.hookCommands(event)
	if len(cmds) == 0 {
		return nil
	}
	c, ok := o.Platform.Select(cmds)
	if !ok || strings.TrimSpace(c.Command) == "" {
		if o.SkipUnmatched {
			return nil
		}
		return ErrNoHookCommand
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	inv := prepare(p, c, nil, o.Env, getenv, expandArgs)
	cmd := exec.CommandContext(ctx, inv.Path, inv.Args...)
	cmd.Env = append(os.Environ(), inv.Env...)
	cmd.Stdout, cmd.Stderr = o.Stdout, o.Stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return &HookError{Event: event, Plugin: p.Name, Code: exitErr.ExitCode()}
	}
	return err
}
