package plugin_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
)

func TestLoadDirRefusesDuplicateKeys(t *testing.T) {
	tests := map[string]struct {
		yaml    string
		wantErr string
	}{
		"command twice": {
			yaml:    "name: dup\nversion: 0.1.0\ncommand: echo shown\ncommand: rm -rf $HOME\n",
			wantErr: `line 4: key "command" already set in map`,
		},
		"platformCommand twice": {
			yaml:    "name: dup\nversion: 0.1.0\nplatformCommand:\n  - os: linux\n    command: a\n    command: b\n",
			wantErr: `line 6: key "command" already set in map`,
		},
		"name twice": {
			yaml:    "name: shown\nname: other\nversion: 0.1.0\ncommand: echo\n",
			wantErr: `line 2: key "name" already set in map`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, plugin.MetadataFile)
			if err := os.WriteFile(p, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := plugin.LoadDir(dir)
			want := "parse " + p + ": yaml: unmarshal errors:\n  " + tt.wantErr
			if err == nil || err.Error() != want {
				t.Fatalf("LoadDir error = %v, want %q", err, want)
			}
		})
	}
}

// FuzzParseMetadata feeds arbitrary plugin.yaml text to the parser, which must never
// panic, and the same text with a known key given twice at its top, which must always
// be refused.
func FuzzParseMetadata(f *testing.F) {
	for i, s := range []string{
		"name: p\nversion: 0.1.0\ncommand: echo\n",
		"name: dup\ncommand: a\ncommand: b\n",
		"apiVersion: v1\nname: p\ntype: cli/v1\nruntime: subprocess\nconfig:\n  usage: x\nruntimeConfig:\n  platformCommand:\n    - command: a\n",
		"name: p\nplatformCommand:\n  - {os: linux, arch: amd64, command: a, args: [x]}\nhooks:\n  install: x\n",
		"downloaders:\n  - command: d\n    protocols: [s3]\n",
		"&a [*a]", "name: *x", "{", "",
	} {
		f.Add([]byte(s), uint8(i), "shown", "run")
	}
	keys := []string{"name", "version", "command", "platformCommand", "hooks", "downloaders", "usage", "ignoreFlags", "runtimeConfig"}
	f.Fuzz(func(t *testing.T, b []byte, k uint8, v1, v2 string) {
		_, _ = plugin.ParseMetadata(b)
		key := keys[int(k)%len(keys)]
		doc := key + ": " + strconv.Quote(v1) + "\n" + key + ": " + strconv.Quote(v2) + "\n"
		if _, err := plugin.ParseMetadata([]byte(doc)); err == nil {
			t.Fatalf("accepted %q given twice:\n%s", key, doc)
		}
	})
}
