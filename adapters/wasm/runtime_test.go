package wasm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm"
	"github.com/kubectl-chart/kubectl-chart/adapters/wasm/wasmtest"
)

// cliWasm builds the cli test plugin once for the package's tests.
func cliWasm(t *testing.T) string {
	t.Helper()
	p := filepath.Join(os.TempDir(), fmt.Sprintf("kubectl-chart-wasm-test-%d.wasm", os.Getpid()))
	if _, err := os.Stat(p); err != nil {
		wasmtest.Build(t, "cli", p)
	}
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	_ = os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("kubectl-chart-wasm-test-%d.wasm", os.Getpid())))
	os.Exit(code)
}

// sharedCache is the tests' compilation cache, in the user's cache directory.
func sharedCache(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		return t.TempDir()
	}
	return filepath.Join(base, "kubectl-chart", "test-wazero-build")
}

func input(args ...string) []byte {
	b, _ := json.Marshal(map[string][]string{"extraArgs": args})
	return b
}

func TestCall(t *testing.T) {
	file := cliWasm(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("served body"))
	}))
	defer srv.Close()
	tmp := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		manifest wasm.Manifest
		fn       string
		args     []string
		stdin    string
		env      map[string]string
		rc       uint32
		stdout   string
		stderr   string
		err      string
		output   string
	}{
		"hello":                {args: []string{"a", "b"}, stdout: `hello from wasm cli: ["a" "b"]`, stderr: "wasm cli writes to stderr", output: "{}"},
		"other entry":          {fn: "other_entry", stdout: "other entry"},
		"hs_init before entry": {args: []string{"hsinit"}, stdout: "hs_init(0, 0)"},
		"error set":            {args: []string{"fail"}, rc: 1, err: "cli failed on purpose"},
		"bare exit code":       {args: []string{"exit", "3"}, rc: 3, stderr: "exiting with 3"},
		"stdin":                {args: []string{"stdin"}, stdin: "piped", stdout: "stdin: piped"},
		"env":                  {args: []string{"env", "HELM_NAMESPACE", "HOME"}, env: map[string]string{"HELM_NAMESPACE": "ns"}, stdout: `HELM_NAMESPACE="ns" true` + "\n" + `HOME="" false`},
		"no file reachable":    {args: []string{"readfile", secret}, stdout: "Bad file number"},
		"no /tmp unless asked": {args: []string{"tmp"}, stdout: "tmp: open /tmp/probe: Bad file number"},
		"/tmp when asked":      {manifest: wasm.Manifest{AllowedPaths: map[string]string{tmp: "/tmp"}}, args: []string{"tmp"}, stdout: `tmp: <nil> "in tmp" <nil>`},
		"config":               {manifest: wasm.Manifest{Config: map[string]string{"k": "v"}}, args: []string{"config", "k"}, stdout: `config k="v" true`},
		"config missing":       {args: []string{"config", "k"}, stdout: `config k="" false`},
		"var":                  {manifest: wasm.Manifest{MaxVarBytes: 100}, args: []string{"var", "10"}, stdout: "var 10"},
		"vars disabled":        {args: []string{"var", "10"}, rc: 1, err: "Vars are disabled by this host (recovered by wazero)"},
		"var store full":       {manifest: wasm.Manifest{MaxVarBytes: 100}, args: []string{"var", "60"}, rc: 1, err: "Variable store is full (recovered by wazero)"},
		"http allowed":         {manifest: wasm.Manifest{AllowedHosts: []string{"127.0.0.*"}, MaxHTTPResponseBytes: 100}, args: []string{"http", srv.URL}, stdout: `http 200 "served body"`},
		"http not listed":      {args: []string{"http", srv.URL}, rc: 1, err: "HTTP request to '" + srv.URL + "' is not allowed (recovered by wazero)"},
		"http body too big":    {manifest: wasm.Manifest{AllowedHosts: []string{"127.0.0.1"}, MaxHTTPResponseBytes: 4}, args: []string{"http", srv.URL}, rc: 1, err: "http: request body too large (recovered by wazero)"},
		"memory limit":         {manifest: wasm.Manifest{MaxPages: 200}, args: []string{"mem"}, rc: 1, err: "wasm error: unreachable", stderr: "fatal error: out of memory"},
		"timeout":              {manifest: wasm.Manifest{Timeout: 200 * time.Millisecond}, args: []string{"spin"}, rc: 0xefffffff, err: "module closed with context deadline exceeded"},
		"panic":                {args: []string{"panic"}, rc: 1, err: "wasm error: unreachable", stderr: "panic: plugin panics"},
		"unknown function":     {fn: "nope", rc: 1, err: "unknown function: nope"},
	}
	// One runtime, its compiled code kept across runs (the module builds
	// reproducibly): compiling it under the race detector takes minutes.
	r := &wasm.Runtime{CacheDir: sharedCache(t)}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := tc.manifest
			m.WasmFile = file
			fn := tc.fn
			if fn == "" {
				fn = "helm_plugin_main"
			}
			var stdout, stderr bytes.Buffer
			rc, out, err := r.Call(context.Background(), m, wasm.Call{Func: fn, Input: input(tc.args...),
				Stdin: strings.NewReader(tc.stdin), Stdout: &stdout, Stderr: &stderr, Env: tc.env})
			if rc != tc.rc {
				t.Errorf("rc = %#x, want %#x (err %v)", rc, tc.rc, err)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
				t.Errorf("err = %v, want prefix %q", err, tc.err)
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout = %q, want %q", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.stderr)
			}
			if tc.output != "" && string(out) != tc.output {
				t.Errorf("output = %q, want %q", out, tc.output)
			}
		})
	}
}

func TestCallBadModule(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.wasm")
	if err := os.WriteFile(garbage, []byte("\x00asm not really"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct{ file, want string }{
		"malformed": {garbage, "invalid version header"},
		"missing":   {filepath.Join(dir, "none.wasm"), "no such file or directory"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := (&wasm.Runtime{}).Call(context.Background(), wasm.Manifest{WasmFile: tc.file}, wasm.Call{Func: "f"})
			var ie *wasm.InstantiateError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an InstantiateError with %q", err, tc.want)
			}
		})
	}
}

// tinyModule exports f, which returns 0: all a test of the runtime's plumbing
// needs, compiled in no time.
var tinyModule = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
	0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, // type: () -> i32
	0x03, 0x02, 0x01, 0x00, // function 0 of type 0
	0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00, // export "f"
	0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x00, 0x0b, // i32.const 0
}

// TestCompilationCache checks that compiled code lands in the cache directory
// and that a second runtime uses it.
func TestCompilationCache(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.wasm")
	if err := os.WriteFile(file, tinyModule, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	for range 2 {
		r := &wasm.Runtime{CacheDir: cache}
		if rc, out, err := r.Call(context.Background(), wasm.Manifest{WasmFile: file}, wasm.Call{Func: "f"}); rc != 0 || err != nil || len(out) != 0 {
			t.Fatalf("call: %d %q %v", rc, out, err)
		}
	}
	var files int
	_ = filepath.WalkDir(cache, func(_ string, d os.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Fatal("nothing cached")
	}
}
