package plugin_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
)

func TestLoadDirWasm(t *testing.T) {
	const head = "apiVersion: v1\ntype: cli/v1\nname: w\nversion: 0.1.0\n"
	tests := map[string]struct {
		yaml    string
		wasm    bool
		want    plugin.WasmConfig
		wantErr string
	}{
		"runtimeConfig": {
			yaml: head + "runtime: extism/v1\nruntimeConfig:\n  memory: {maxPages: 4, maxHttpResponseBytes: 10, maxVarBytes: 20}\n" +
				"  config: {k: v}\n  allowedHosts: [a.example]\n  fileSystem: {createTempDir: true}\n  timeout: 50\n" +
				"  hostFunctions: [f]\n  entryFuncName: e\n",
			wasm: true,
			want: plugin.WasmConfig{Memory: plugin.WasmMemory{MaxPages: 4, MaxHTTPResponseBytes: 10, MaxVarBytes: 20},
				Config: map[string]string{"k": "v"}, AllowedHosts: []string{"a.example"},
				FileSystem: plugin.WasmFileSystem{CreateTempDir: true}, Timeout: 50, HostFunctions: []string{"f"}, EntryFuncName: "e"},
		},
		"missing plugin.wasm": {yaml: head + "runtime: extism/v1\n", wantErr: `wasm binary missing for extism/v1 plugin: "`},
		"unknown runtime":     {yaml: head + "runtime: wasmtime/v9\n", wasm: true, wantErr: `runtime "wasmtime/v9" is not supported (only "subprocess" and "extism/v1")`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, plugin.MetadataFile), []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.wasm {
				if err := os.WriteFile(filepath.Join(dir, plugin.WasmFile), []byte("\x00asm"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p, err := plugin.LoadDir(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !p.Wasm() || !p.Supported() || !reflect.DeepEqual(p.RuntimeConfig.WasmConfig, tt.want) {
				t.Fatalf("got %+v (wasm %v)", p.RuntimeConfig.WasmConfig, p.Wasm())
			}
		})
	}
}
