// Package wasm runs Wasm modules written against extism's host ABI (the
// extism:host/env imports and WASI preview 1) in-process over wazero, as
// extism's Go SDK runs them for Helm 4's extism/v1 plugins.
package wasm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// Manifest is the module and the limits it runs under (extism's manifest).
type Manifest struct {
	// WasmFile is the module's path.
	WasmFile string
	// MaxPages limits each memory (the module's and the kernel's); 0: none.
	MaxPages uint32
	// MaxHTTPResponseBytes limits an HTTP response body; 0 refuses any body.
	MaxHTTPResponseBytes int64
	// MaxVarBytes limits the variables; 0 disables them.
	MaxVarBytes int64
	// Config is what config_get reads.
	Config map[string]string
	// AllowedHosts are the hosts (names or glob patterns) HTTP requests may reach.
	AllowedHosts []string
	// AllowedPaths maps host directories to guest paths; nothing else is visible.
	AllowedPaths map[string]string
	// Timeout bounds the call (not the compilation); 0: none.
	Timeout time.Duration
}

// Call is one call of an exported function.
type Call struct {
	Func  string
	Input []byte
	// Stdin, Stdout and Stderr are the module's WASI streams (nil: empty, discarded).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Env is the module's WASI environment.
	Env map[string]string
	// Log receives what the module logs through log_*; nil drops it.
	Log func(level, msg string)
}

// Runtime runs modules; compiled code is cached in CacheDir when set.
type Runtime struct {
	CacheDir string
	// HTTP sends the modules' HTTP requests (nil: a plain client).
	HTTP *http.Client

	once  sync.Once
	cache wazero.CompilationCache
	err   error
}

// compilationCache opens the cache on first use, so that only runs of a
// module pay for it.
func (r *Runtime) compilationCache() (wazero.CompilationCache, error) {
	r.once.Do(func() {
		if r.CacheDir == "" {
			r.cache = wazero.NewCompilationCache()
			return
		}
		r.cache, r.err = wazero.NewCompilationCacheWithDir(r.CacheDir)
		if r.err != nil {
			r.err = fmt.Errorf("failed to create wazero compilation cache: %w", r.err)
		}
	})
	return r.cache, r.err
}

// InstantiateError is a module that could not be loaded, compiled or
// instantiated (before it ran).
type InstantiateError struct{ Err error }

func (e *InstantiateError) Error() string { return e.Err.Error() }
func (e *InstantiateError) Unwrap() error { return e.Err }

// Call runs c.Func of m's module with c.Input. It returns the function's result
// (its exit code), its output and the error the module set or the trap, exit or
// limit that stopped it, in extism's words. Each call gets a fresh runtime, as
// extism's NewPlugin does.
func (r *Runtime) Call(ctx context.Context, m Manifest, c Call) (uint32, []byte, error) {
	cache, err := r.compilationCache()
	if err != nil {
		return 0, nil, &InstantiateError{err}
	}
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithCompilationCache(cache)
	if m.MaxPages > 0 {
		cfg = cfg.WithMemoryLimitPages(m.MaxPages)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	defer func() { _ = rt.Close(context.WithoutCancel(ctx)) }()

	var doer httpDoer = r.HTTP
	if r.HTTP == nil {
		doer = &http.Client{}
	}
	s := &session{k: newKernel(m.MaxPages), manifest: &m, vars: map[string][]byte{}, http: doer,
		log: c.Log, lastHeaders: map[string]string{}}
	mod, err := s.instantiate(ctx, rt, m, c)
	if err != nil {
		return 0, nil, &InstantiateError{err}
	}
	if m.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.Timeout)
		defer cancel()
	}
	return s.call(ctx, mod, c)
}

func (s *session) instantiate(ctx context.Context, rt wazero.Runtime, m Manifest, c Call) (api.Module, error) {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil, err
	}
	if err := s.instantiateEnv(ctx, rt); err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(m.WasmFile)
	if err != nil {
		return nil, err
	}
	compiled, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, err
	}
	// Start functions are not run on instantiation: the reactor's _initialize
	// runs before the call, as in extism.
	mc := wazero.NewModuleConfig().WithName("main_1").WithSysWalltime().WithStartFunctions()
	if c.Stdin != nil {
		mc = mc.WithStdin(c.Stdin)
	}
	if c.Stdout != nil {
		mc = mc.WithStdout(c.Stdout)
	}
	if c.Stderr != nil {
		mc = mc.WithStderr(c.Stderr)
	}
	for k, v := range c.Env {
		mc = mc.WithEnv(k, v)
	}
	if len(m.AllowedPaths) > 0 {
		fs := wazero.NewFSConfig()
		for host, guest := range m.AllowedPaths {
			fs = fs.WithDirMount(host, guest)
		}
		mc = mc.WithFSConfig(fs)
	}
	mod, err := rt.InstantiateModule(ctx, compiled, mc)
	if err != nil {
		return nil, fmt.Errorf("instantiating module: %w", err)
	}
	return mod, nil
}

// call sets the input, initialises the guest's runtime and calls the function,
// reading results as extism does: a WASI exit is the exit code (0 is success),
// an error set by the module is the error, the output is what it set.
func (s *session) call(ctx context.Context, mod api.Module, c Call) (uint32, []byte, error) {
	s.k.reset()
	in, err := s.k.write(c.Input)
	if err != nil {
		return 1, nil, err
	}
	s.k.input, s.k.inputLen = in, uint64(len(c.Input))
	f := mod.ExportedFunction(c.Func)
	if f == nil {
		return 1, nil, unknownFunction(c.Func)
	}
	if n := len(f.Definition().ResultTypes()); n > 1 {
		return 1, nil, fmt.Errorf("function %s has %v results, expected 0 or 1", c.Func, n)
	}
	if init := guestInit(mod); init != nil && c.Func != "_start" && c.Func != "_initialize" {
		if err := init(ctx); err != nil {
			return 1, nil, fmt.Errorf("failed to initialize runtime: %v", err)
		}
	}
	res, err := f.Call(ctx)
	if exitErr, ok := errors.AsType[*sys.ExitError](err); ok {
		if exitErr.ExitCode() == 0 {
			err = nil
		}
		if len(res) == 0 {
			res = []uint64{api.EncodeU32(exitErr.ExitCode())}
		}
	}
	var rc uint32
	switch {
	case len(res) > 0:
		rc = api.DecodeU32(res[0])
	case err != nil:
		rc = 1
	}
	if err != nil {
		return rc, nil, err
	}
	var modErr error
	if msg, _ := s.k.read(s.k.errOff, s.k.length(s.k.errOff)); s.k.errOff != 0 && len(msg) > 0 {
		modErr = errors.New(string(msg))
	}
	// An output outside the memory reads as none, as in extism.
	out, _ := s.k.read(s.k.output, s.k.outputLen)
	return rc, append([]byte(nil), out...), modErr
}

// guestInit is how extism starts the guest's language runtime before the
// first call (nil: nothing to start). A Haskell module (it exports hs_init)
// gets its reactor's _initialize, whose failure is only logged, then
// hs_init(0, 0); any other the WASI reactor's _initialize, else a command's
// __wasm_call_ctors, each only when it takes no parameters.
func guestInit(mod api.Module) func(context.Context) error {
	if hsInit := mod.ExportedFunction("hs_init"); hsInit != nil {
		reactor := mod.ExportedFunction("_initialize")
		return func(ctx context.Context) error {
			if reactor != nil {
				_, _ = reactor.Call(ctx)
			}
			_, err := hsInit.Call(ctx, 0, 0)
			return err
		}
	}
	for _, name := range []string{"_initialize", "__wasm_call_ctors"} {
		if f := mod.ExportedFunction(name); f != nil && len(f.Definition().ParamTypes()) == 0 {
			return func(ctx context.Context) error {
				_, err := f.Call(ctx)
				return err
			}
		}
	}
	return nil
}
