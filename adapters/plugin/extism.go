package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm"
)

// defaultEntryFunc is the function Helm 4 calls when runtimeConfig names none.
const defaultEntryFunc = "helm_plugin_main"

// WasmIO is what an extism/v1 plugin's WASI side is given: its streams (nil:
// empty, discarded) and its environment.
type WasmIO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Env            map[string]string
}

// WasmExitError is an extism/v1 plugin whose entry function returned a
// non-zero code without setting an error.
type WasmExitError struct {
	Plugin string
	Code   int
}

func (e *WasmExitError) Error() string {
	return fmt.Sprintf("plugin %q exited with error", e.Plugin)
}

// invokeWasm calls p's module with input marshalled as JSON and returns its
// output, failing in Helm 4's words: "failed to create existing plugin: ..."
// before the module runs, "plugin error: ..." when it traps, exits, breaks a
// limit or sets an error, a *WasmExitError for a bare non-zero code.
func (r *Registry) invokeWasm(ctx context.Context, p *Plugin, input any, wio WasmIO) ([]byte, error) {
	var rc WasmConfig
	if p.RuntimeConfig != nil {
		rc = p.RuntimeConfig.WasmConfig
	}
	m := wasm.Manifest{
		WasmFile:             filepath.Join(p.Dir, WasmFile),
		MaxPages:             rc.Memory.MaxPages,
		MaxHTTPResponseBytes: rc.Memory.MaxHTTPResponseBytes,
		MaxVarBytes:          rc.Memory.MaxVarBytes,
		Config:               rc.Config,
		AllowedHosts:         rc.AllowedHosts,
		Timeout:              time.Duration(rc.Timeout) * time.Millisecond,
	}
	if rc.FileSystem.CreateTempDir {
		dir, err := os.MkdirTemp("", "helm-plugin-*")
		if err != nil {
			return nil, fmt.Errorf("failed to create temp dir for extism compilation cache: %w", err)
		}
		defer func() { _ = os.RemoveAll(dir) }()
		m.AllowedPaths = map[string]string{dir: "/tmp"}
	}
	// Helm 4 registers no host functions of its own: any named is refused.
	if len(rc.HostFunctions) > 0 {
		return nil, fmt.Errorf("plugin requested host function %q not found", rc.HostFunctions[0])
	}
	in, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("failed to json marshal plugin input message: %T: %w", input, err)
	}
	// extism's switch: the module's WASI output goes to this process's, whatever the caller set.
	if _, ok := os.LookupEnv("EXTISM_ENABLE_WASI_OUTPUT"); ok {
		wio.Stdout, wio.Stderr = os.Stdout, os.Stderr
	}
	entry := rc.EntryFuncName
	if entry == "" {
		entry = defaultEntryFunc
	}
	code, out, err := r.wasm.Call(ctx, m, wasm.Call{Func: entry, Input: in,
		Stdin: wio.Stdin, Stdout: wio.Stdout, Stderr: wio.Stderr, Env: wio.Env})
	if _, ok := errors.AsType[*wasm.InstantiateError](err); ok {
		return nil, fmt.Errorf("failed to create existing plugin: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("plugin error: %w", err)
	}
	if code != 0 {
		return nil, &WasmExitError{Plugin: p.Name, Code: int(code)}
	}
	return out, nil
}

// decodeWasmOutput reads a plugin's output message into out, in Helm 4's words
// when it is not one.
func decodeWasmOutput(b []byte, out any) error {
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("failed to json marshal plugin output message: reflect.Value: %w", err)
	}
	return nil
}
