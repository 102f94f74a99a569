package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Getter downloads URLs through a getter plugin. The plugin is called as Helm
// calls downloader plugins: COMMAND CERTFILE KEYFILE CAFILE URL, writing the
// content to stdout.
type Getter struct {
	registry *Registry
	plugin   *Plugin
	platform Platform
	// CertFile, KeyFile and CAFile are passed to the plugin (empty when unset).
	CertFile, KeyFile, CAFile string
	// AcceptHeader is a Wasm plugin's options.AcceptHeader: Helm 4 sets
	// ChartAccept when it downloads a chart.
	AcceptHeader string
	// Credentials and connection settings of a chart download, which Helm 4
	// passes on: in a Wasm plugin's options, and the credentials in a Helm 4
	// subprocess getter's environment (HELM_PLUGIN_USERNAME, ...).
	Username, Password                             string
	PassCredentialsAll, InsecureSkipTLS, PlainHTTP bool
	// Env is added to the plugin's environment (Helm's plugin environment);
	// a Wasm plugin gets only it.
	Env map[string]string
}

var _ ports.Getter = (*Getter)(nil)

// ChartAccept is the accept header Helm 4 gives a getter downloading a chart.
const ChartAccept = "application/gzip,application/octet-stream"

// NewGetter returns the getter serving scheme, if a plugin does.
func NewGetter(r *Registry, pl Platform, scheme string) (*Getter, bool) {
	p, ok := r.GetterFor(scheme)
	if !ok {
		return nil, false
	}
	g := &Getter{registry: r, plugin: p, platform: pl}
	if r.helmEnv != nil {
		g.Env = r.helmEnv()
	}
	return g, true
}

// Get implements ports.Getter.
func (g *Getter) Get(ctx context.Context, url string) ([]byte, error) {
	if g.plugin.Wasm() {
		return g.getWasm(ctx, url)
	}
	scheme, _, _ := strings.Cut(url, "://")
	c, err := g.command(scheme)
	if err != nil {
		return nil, err
	}
	env := g.Env
	if g.helm4() {
		env = maps.Clone(g.Env)
		if env == nil {
			env = map[string]string{}
		}
		env["HELM_PLUGIN_USERNAME"], env["HELM_PLUGIN_PASSWORD"] = g.Username, g.Password
		env["HELM_PLUGIN_PASS_CREDENTIALS_ALL"] = strconv.FormatBool(g.PassCredentialsAll)
	}
	inv, err := g.registry.prepare(g.plugin, c, []string{g.CertFile, g.KeyFile, g.CAFile, url}, env)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if !g.helm4() {
		if err := Exec(ctx, g.plugin.Name, inv, nil, &out, nil); err != nil {
			return nil, fmt.Errorf("get %s: %w", url, err)
		}
		return out.Bytes(), nil
	}
	// Helm 4's getter/v1: the plugin's stderr is the program's, and a failure
	// is Helm's error quoting the plugin.
	if err := Exec(ctx, g.plugin.Name, inv, nil, &out, g.registry.stderr); err != nil {
		if _, ok := errors.AsType[*ExitError](err); ok {
			err = fmt.Errorf("plugin %q exited with error", g.plugin.Name)
		}
		return nil, fmt.Errorf("plugin %s failed to invoke: %w", helmSubprocessString(g.plugin), err)
	}
	return out.Bytes(), nil
}

// helm4 is a getter/v1 plugin in Helm 4's layout (runtimeConfig.protocolCommands).
func (g *Getter) helm4() bool {
	return g.plugin.APIVersion == "v1" && g.plugin.RuntimeConfig != nil && len(g.plugin.RuntimeConfig.ProtocolCommands) > 0
}

// command finds the plugin's command for scheme in any of the layouts.
func (g *Getter) command(scheme string) (PlatformCommand, error) {
	p := g.plugin
	for _, d := range p.Downloaders {
		for _, proto := range d.Protocols {
			if strings.EqualFold(proto, scheme) {
				parts := strings.Fields(d.Command)
				if len(parts) == 0 {
					return PlatformCommand{}, fmt.Errorf("getter plugin %q: empty command for %s", p.Name, scheme)
				}
				// Helm resolves downloader commands inside the plugin directory.
				if !filepath.IsAbs(parts[0]) && !strings.HasPrefix(parts[0], "$") {
					parts[0] = filepath.Join(p.Dir, parts[0])
				}
				return PlatformCommand{Command: strings.Join(parts, " ")}, nil
			}
		}
	}
	if p.RuntimeConfig != nil {
		for _, pc := range p.RuntimeConfig.ProtocolCommands {
			for _, proto := range pc.Protocols {
				if strings.EqualFold(proto, scheme) {
					if c, ok := g.platform.Select(pc.PlatformCommand); ok {
						// Helm 4 runs the command inside the plugin directory
						// (an absolute one too, joined to it).
						c.Command = filepath.Join(p.Dir, c.Command)
						return c, nil
					}
				}
			}
		}
	}
	if c, ok := g.platform.Select(p.commands()); ok && strings.TrimSpace(c.Command) != "" {
		return c, nil
	}
	return PlatformCommand{}, fmt.Errorf("getter plugin %q has no command for %s:// on %s/%s", p.Name, scheme, g.platform.OS, g.platform.Arch)
}

// ChartSource loads chart references whose URL scheme a getter plugin serves and
// hands every other reference to Next.
type ChartSource struct {
	Next ports.ChartSource
	// Registry loads the registry, only when a reference needs a getter.
	Registry func() (*Registry, error)
	Platform Platform
	Limits   loader.Limits
}

var _ ports.ChartSource = ChartSource{}

// DownloadSettings is a ChartSource.Next that carries a command's chart
// download settings (TLS files, credentials, plain HTTP), which Helm 4 hands
// a getter plugin for a chart as it does for any download.
type DownloadSettings interface {
	ConfigureGetter(g *Getter)
}

// builtinSchemes are never routed to plugins.
var builtinSchemes = map[string]bool{"": true, "file": true, "http": true, "https": true, "oci": true}

// LoadChart implements ports.ChartSource.
func (s ChartSource) LoadChart(ctx context.Context, ref string) (*chart.Chart, error) {
	scheme, _, found := strings.Cut(ref, "://")
	if !found || builtinSchemes[strings.ToLower(scheme)] || s.Registry == nil {
		return s.Next.LoadChart(ctx, ref)
	}
	reg, err := s.Registry()
	if err != nil {
		return nil, fmt.Errorf("load chart %q: %w", ref, err)
	}
	g, ok := NewGetter(reg, s.Platform, scheme)
	if !ok {
		return s.Next.LoadChart(ctx, ref)
	}
	if d, ok := s.Next.(DownloadSettings); ok {
		d.ConfigureGetter(g)
	}
	g.AcceptHeader = ChartAccept
	b, err := g.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	c, err := loader.LoadArchive(bytes.NewReader(b), s.Limits)
	if errors.Is(err, loader.ErrNotArchive) {
		return nil, fmt.Errorf("chart %q from getter plugin %q is not a gzipped archive", ref, g.plugin.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("load chart %q: %w", ref, err)
	}
	return c, nil
}
