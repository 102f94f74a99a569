package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// PostRenderer runs a postrenderer/v1 plugin or an executable with the rendered
// manifest on stdin and takes its stdout as the new manifest. A plugin fails
// in Helm 4's words (its stderr dropped, empty output refused), an executable
// in Helm 3's (its stderr quoted).
type PostRenderer struct {
	name   string
	inv    *Invocation
	plugin bool
	// wasm is set for an extism/v1 plugin, run by its registry with args.
	wasm     *Plugin
	registry *Registry
	args     []string
}

var _ ports.PostRenderer = (*PostRenderer)(nil)

// NotFoundError reports a plugin of a type that is not installed, in Helm 4's
// words.
type NotFoundError struct{ Name, Type string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("plugin: {Name:%s Type:%s} not found", e.Name, e.Type)
}

// NewPluginPostRenderer resolves name as Helm 4 does: a postrenderer/v1 plugin
// and nothing else. args are appended to its command.
func NewPluginPostRenderer(r *Registry, pl Platform, name string, args []string) (*PostRenderer, error) {
	p, ok := r.Get(name)
	if !ok || p.Kind() != TypePostRenderer || !p.Supported() {
		return nil, &NotFoundError{Name: name, Type: TypePostRenderer}
	}
	if p.Wasm() {
		return &PostRenderer{name: name, plugin: true, wasm: p, registry: r, args: args}, nil
	}
	c, ok := pl.Select(p.commands())
	if !ok || strings.TrimSpace(c.Command) == "" {
		return nil, fmt.Errorf("post-renderer %q: plugin has no command for %s/%s", name, pl.OS, pl.Arch)
	}
	inv, err := r.prepare(p, c, args, nil)
	if err != nil {
		return nil, err
	}
	return &PostRenderer{name: name, inv: inv, plugin: true}, nil
}

// NewPostRenderer resolves nameOrPath: a postrenderer/v1 plugin of the registry,
// else an executable (a path, or a name looked up in $PATH, as Helm v3 does).
// args are appended to the command.
func NewPostRenderer(r *Registry, pl Platform, nameOrPath string, args []string) (*PostRenderer, error) {
	if nameOrPath == "" {
		return nil, errors.New("post-renderer: empty name")
	}
	if p, ok := r.Get(nameOrPath); ok && !strings.ContainsAny(nameOrPath, `/\`) {
		if p.Kind() != TypePostRenderer {
			return nil, fmt.Errorf("post-renderer %q: plugin is of type %s, not %s", nameOrPath, p.Kind(), TypePostRenderer)
		}
		return NewPluginPostRenderer(r, pl, nameOrPath, args)
	}
	path, err := exec.LookPath(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("unable to find binary at %s: %w", nameOrPath, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return &PostRenderer{name: nameOrPath, inv: &Invocation{Path: abs, Args: args}}, nil
}

// PostRender implements ports.PostRenderer.
func (p *PostRenderer) PostRender(ctx context.Context, manifest string) (string, error) {
	if p.plugin {
		return p.runPlugin(ctx, manifest)
	}
	var out strings.Builder
	err := Exec(ctx, p.name, p.inv, strings.NewReader(manifest), &out, nil)
	if exitErr, ok := errors.AsType[*ExitError](err); ok {
		return "", fmt.Errorf("error while running command %s. error output:\n%s: exit status %d", p.inv.Path, exitErr.Stderr, exitErr.Code)
	}
	if err != nil {
		return "", err
	}
	return out.String(), nil
}

// runPlugin runs a postrenderer/v1 plugin as Helm 4 does: what it writes to
// stderr is dropped, a failure and an output of only whitespace are errors.
func (p *PostRenderer) runPlugin(ctx context.Context, manifest string) (string, error) {
	if p.wasm != nil {
		return p.runWasm(ctx, manifest)
	}
	var out strings.Builder
	err := Exec(ctx, p.name, p.inv, strings.NewReader(manifest), &out, io.Discard)
	if _, ok := errors.AsType[*ExitError](err); ok {
		err = fmt.Errorf("plugin %q exited with error", p.name)
	}
	if err != nil {
		return "", fmt.Errorf("failed to invoke post-renderer plugin %q: %w", p.name, err)
	}
	if strings.TrimSpace(out.String()) == "" {
		return "", fmt.Errorf("post-renderer %q produced empty output", p.name)
	}
	return out.String(), nil
}

// runWasm runs an extism/v1 post-renderer exactly as Helm 4.3.1 does: its
// input's manifests are a *bytes.Buffer, which marshals as {}, and its output's
// can only be read back empty, so every run ends in "produced empty output" or
// a JSON error (README: Wasm post-renderers). No environment, no streams.
func (p *PostRenderer) runWasm(ctx context.Context, manifest string) (string, error) {
	in := InputMessagePostRendererV1{Manifests: bytes.NewBufferString(manifest), ExtraArgs: p.args}
	b, err := p.registry.invokeWasm(ctx, p.wasm, in, WasmIO{})
	var out OutputMessagePostRendererV1
	if err == nil {
		err = decodeWasmOutput(b, &out)
	}
	if err != nil {
		return "", fmt.Errorf("failed to invoke post-renderer plugin %q: %w", p.name, err)
	}
	// Helm 4.3.1 dereferences a missing manifests field and crashes; it is empty here.
	if out.Manifests == nil || strings.TrimSpace(out.Manifests.String()) == "" {
		return "", fmt.Errorf("post-renderer %q produced empty output", p.name)
	}
	return out.Manifests.String(), nil
}
