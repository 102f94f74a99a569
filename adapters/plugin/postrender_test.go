package plugin

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// labelScript adds a label to every object's metadata, as a post-renderer would.
const labelScript = `#!/bin/sh
sed 's/^metadata:$/metadata:\n  labels:\n    post-rendered: "'"${1:-yes}"'"/'
`

const manifest = "---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"

func TestPostRenderer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	plugins := t.TempDir()
	writePlugin(t, filepath.Join(plugins, "labeler"), goodYAML, labelScript)
	writePlugin(t, filepath.Join(plugins, "fails"), "name: fails\ntype: postrenderer/v1\ncommand: ${KUBECTL_CHART_PLUGIN_DIR}/run.sh\n", "#!/bin/sh\necho 'cannot render' >&2\nexit 2\n")
	writePlugin(t, filepath.Join(plugins, "blank"), "name: blank\ntype: postrenderer/v1\ncommand: ${KUBECTL_CHART_PLUGIN_DIR}/run.sh\n", "#!/bin/sh\ncat >/dev/null\necho\n")
	writePlugin(t, filepath.Join(plugins, "cmd"), "name: cmd\ntype: cli/v1\ncommand: echo\n", "")
	r, err := Load(Sources{Defaults: []byte("pluginDirs: [" + plugins + "]\n"), DefaultsName: "plugins.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		nameOrPath string
		args       []string
		want       string
		wantErr    string
	}{
		"plugin by name":   {nameOrPath: "labeler", want: "  labels:\n    post-rendered: \"yes\"\n"},
		"plugin with args": {nameOrPath: "labeler", args: []string{"custom"}, want: "post-rendered: \"custom\""},
		"executable path":  {nameOrPath: filepath.Join(plugins, "labeler", "run.sh"), args: []string{"path"}, want: "post-rendered: \"path\""},
		// A plugin fails in Helm 4's words, its stderr dropped; an executable
		// in Helm 3's, its stderr quoted.
		"failing plugin":     {nameOrPath: "fails", wantErr: `failed to invoke post-renderer plugin "fails": plugin "fails" exited with error`},
		"failing executable": {nameOrPath: filepath.Join(plugins, "fails", "run.sh"), wantErr: "error output:\ncannot render\n: exit status 2"},
		"blank plugin":       {nameOrPath: "blank", wantErr: `post-renderer "blank" produced empty output`},
		"blank executable":   {nameOrPath: filepath.Join(plugins, "blank", "run.sh"), want: "\n"},
		"wrong type":         {nameOrPath: "cmd", wantErr: `post-renderer "cmd": plugin is of type cli/v1, not postrenderer/v1`},
		"unknown":            {nameOrPath: "no-such-thing", wantErr: `unable to find binary at no-such-thing: exec: "no-such-thing": executable file not found in $PATH`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pr, err := NewPostRenderer(r, Host(), tc.nameOrPath, tc.args)
			if err == nil {
				var out string
				out, err = pr.PostRender(context.Background(), manifest)
				if err == nil && !strings.Contains(out, tc.want) {
					t.Errorf("output:\n%s\nwant it to contain %q", out, tc.want)
				}
			}
			if tc.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

type failSource struct{}

func (failSource) LoadChart(_ context.Context, ref string) (*chartT, error) { return nil, errNext(ref) }

func TestGetterChartSource(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	plugins := t.TempDir()
	archive := writeArchive(t, tgz(t, entry{name: "demo/Chart.yaml", body: "apiVersion: v2\nname: demo\nversion: 1.2.3\n"}))
	// A Helm v3 downloader plugin: COMMAND CERT KEY CA URL, content on stdout.
	writePlugin(t, filepath.Join(plugins, "fake"), "name: fake\nversion: 1.0.0\ndownloaders:\n  - command: run.sh\n    protocols: [fake]\n",
		"#!/bin/sh\n[ \"$4\" = fake://bucket/demo-1.2.3.tgz ] || { echo \"bad url $4\" >&2; exit 1; }\ncat "+archive+"\n")
	r, err := Load(Sources{Defaults: []byte("pluginDirs: [" + plugins + "]\n"), DefaultsName: "plugins.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	src := ChartSource{Next: failSource{}, Registry: func() (*Registry, error) { return r, nil }, Platform: Host(), Limits: loader.DefaultLimits()}
	c, err := src.LoadChart(context.Background(), "fake://bucket/demo-1.2.3.tgz")
	if err != nil {
		t.Fatal(err)
	}
	if c.Metadata.Name != "demo" || c.Metadata.Version != "1.2.3" {
		t.Errorf("loaded %s %s", c.Metadata.Name, c.Metadata.Version)
	}
	if _, err := src.LoadChart(context.Background(), "fake://bucket/other.tgz"); err == nil || !strings.Contains(err.Error(), "bad url fake://bucket/other.tgz") {
		t.Errorf("error = %v, want the plugin's stderr", err)
	}
	for _, ref := range []string{"./local", "https://example.com/c.tgz", "nope://x"} {
		if _, err := src.LoadChart(context.Background(), ref); err == nil || err.Error() != errNext(ref).Error() {
			t.Errorf("%s: error = %v, want it handed to the next source", ref, err)
		}
	}
}
