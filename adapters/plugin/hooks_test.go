package plugin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestRunHook(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks run sh")
	}
	linux := Platform{OS: "linux", Arch: "amd64"}
	// Each hook writes what it was given to $HELM_PLUGIN_DIR/ran.
	tests := map[string]struct {
		yaml  string
		event string
		opts  HookOptions
		// ran is what the hook wrote; "" when it must not have run.
		ran     string
		wantErr error
		errText string
	}{
		"platformHooks with expanded args": {
			yaml: `platformHooks:
  install:
    - os: windows
      command: cmd
    - command: sh
      args: ["-c", "echo $HELM_PLUGIN_NAME ${FROM_ENV} > $HELM_PLUGIN_DIR/ran"]`,
			event: HookInstall,
			opts:  HookOptions{Env: map[string]string{"FROM_ENV": "helm-env"}},
			ran:   "demo helm-env\n",
		},
		"hooks are shell command lines the shell expands": {
			yaml:  "hooks:\n  update: echo \"$HELM_PLUGIN_NAME ${FROM_ENV:-none}\" > \"$HELM_PLUGIN_DIR/ran\"\n",
			event: HookUpdate,
			ran:   "demo none\n",
		},
		"Helm 4's runtimeConfig.platformHooks": {
			yaml: `apiVersion: v1
type: cli/v1
runtime: subprocess
runtimeConfig:
  platformCommand: [{command: run.sh}]
  platformHooks:
    delete: [{command: sh, args: ["-c", "echo v1 > \"$HELM_PLUGIN_DIR/ran\""]}]`,
			event: HookDelete,
			ran:   "v1\n",
		},
		"no hook for the event": {
			yaml:  "hooks:\n  delete: echo no > \"$HELM_PLUGIN_DIR/ran\"\n",
			event: HookInstall,
		},
		"a failing hook is Helm's error": {
			yaml:    "hooks:\n  install: exit 3\n",
			event:   HookInstall,
			wantErr: &HookError{Event: HookInstall, Plugin: "demo", Code: 3},
			errText: `plugin install hook for "demo" exited with error`,
		},
		"no command for the platform (Helm 4)": {
			yaml:    "platformHooks:\n  install: [{os: plan9, command: echo}]\n",
			event:   HookInstall,
			wantErr: ErrNoHookCommand,
			errText: "no plugin command is applicable",
		},
		"no command for the platform (Helm 3)": {
			yaml:  "platformHooks:\n  install: [{os: plan9, command: echo}]\n",
			event: HookInstall,
			opts:  HookOptions{SkipUnmatched: true},
		},
		"both layouts run platformHooks (Helm 3)": {
			yaml:  "hooks:\n  install: echo legacy > \"$HELM_PLUGIN_DIR/ran\"\nplatformHooks:\n  install: [{command: sh, args: [-c, 'echo platform > \"$HELM_PLUGIN_DIR/ran\"']}]\n",
			event: HookInstall,
			ran:   "platform\n",
		},
		"both layouts are refused (Helm 4)": {
			yaml:    "hooks:\n  install: echo legacy > \"$HELM_PLUGIN_DIR/ran\"\nplatformHooks:\n  install: [{command: sh, args: [-c, 'echo platform > \"$HELM_PLUGIN_DIR/ran\"']}]\n",
			event:   HookInstall,
			opts:    HookOptions{RefuseBoth: true},
			wantErr: ErrBothHooks,
			errText: "both platformHooks and hooks are set",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "demo")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			yaml := "name: demo\nversion: 0.1.0\ncommand: run.sh\n" + tc.yaml + "\n"
			if err := os.WriteFile(filepath.Join(dir, MetadataFile), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := LoadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			tc.opts.Platform, tc.opts.Stdout, tc.opts.Stderr = linux, &out, &out
			tc.opts.Getenv = func(string) string { return "" }
			err = RunHook(context.Background(), p, tc.event, tc.opts)
			var hookErr *HookError
			switch want := tc.wantErr; {
			case want == nil && err != nil:
				t.Fatalf("RunHook: %v\n%s", err, out.String())
			case want == nil:
			case errors.As(want, &hookErr):
				var got *HookError
				if !errors.As(err, &got) || *got != *hookErr {
					t.Fatalf("RunHook = %#v, want %#v", err, want)
				}
			case !errors.Is(err, want):
				t.Fatalf("RunHook = %v, want %v", err, want)
			}
			if err != nil && err.Error() != tc.errText {
				t.Errorf("error %q, want Helm's %q", err, tc.errText)
			}
			ran, err := os.ReadFile(filepath.Join(dir, "ran"))
			switch {
			case tc.ran == "" && err == nil:
				t.Errorf("the hook ran (%q), want it not to", ran)
			case tc.ran != "" && string(ran) != tc.ran:
				t.Errorf("the hook wrote %q (%v), want %q", ran, err, tc.ran)
			}
		})
	}
}
