// Package plugin finds, installs and runs kubectl-chart plugins: post-renderers,
// getters for extra URL schemes and `kubectl chart <plugin>` commands. Entries
// use Helm's plugin.yaml fields where they overlap, so an installed Helm plugin
// directory works unchanged when its type is supported.
package plugin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"
)

// MetadataFile is the file that describes a plugin inside its directory.
const MetadataFile = "plugin.yaml"

// Plugin types.
const (
	TypeCLI          = "cli/v1"
	TypeGetter       = "getter/v1"
	TypePostRenderer = "postrenderer/v1"
)

// Runtimes: an executable, or a Wasm module run in-process (Helm 4's extism/v1).
const (
	RuntimeSubprocess = "subprocess"
	RuntimeExtismV1   = "extism/v1"
)

// WasmFile is an extism/v1 plugin's module inside its directory.
const WasmFile = "plugin.wasm"

// PlatformCommand is a command for one operating system and architecture; empty
// fields match any.
type PlatformCommand struct {
	OS      string   `json:"os,omitempty"`
	Arch    string   `json:"arch,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
}

// Downloader is Helm v3's getter declaration: a command serving some schemes.
type Downloader struct {
	Protocols []string `json:"protocols"`
	Command   string   `json:"command"`
}

// RuntimeConfig holds the runtime's settings (Helm 4's layout): the subprocess
// runtime's commands, or the extism/v1 runtime's limits and sandbox.
type RuntimeConfig struct {
	PlatformCommand  []PlatformCommand `json:"platformCommand,omitempty"`
	PlatformHooks    PlatformHooks     `json:"platformHooks,omitempty"`
	ProtocolCommands []ProtocolCommand `json:"protocolCommands,omitempty"`
	WasmConfig
}

// WasmConfig is the extism/v1 runtime's runtimeConfig.
type WasmConfig struct {
	Memory WasmMemory `json:"memory,omitempty"`
	// Config is what the module reads with config_get.
	Config map[string]string `json:"config,omitempty"`
	// AllowedHosts may be reached over HTTP (names or glob patterns); none
	// listed, none reachable.
	AllowedHosts []string       `json:"allowedHosts,omitempty"`
	FileSystem   WasmFileSystem `json:"fileSystem,omitempty"`
	// Timeout bounds a call, in milliseconds; 0: none.
	Timeout uint64 `json:"timeout,omitempty"`
	// HostFunctions the module may call besides extism's; Helm 4 offers none.
	HostFunctions []string `json:"hostFunctions,omitempty"`
	// EntryFuncName is the function called, helm_plugin_main when empty.
	EntryFuncName string `json:"entryFuncName,omitempty"`
}

// WasmMemory are the extism/v1 runtime's memory limits; 0 is Helm 4's
// default: no page limit, no HTTP response body, no variables.
type WasmMemory struct {
	MaxPages             uint32 `json:"maxPages,omitempty"`
	MaxHTTPResponseBytes int64  `json:"maxHttpResponseBytes,omitempty"`
	MaxVarBytes          int64  `json:"maxVarBytes,omitempty"`
}

// WasmFileSystem says whether the module gets a temporary directory as /tmp.
type WasmFileSystem struct {
	CreateTempDir bool `json:"createTempDir,omitempty"`
}

// ProtocolCommand is a getter/v1 command for some schemes (Helm 4's layout).
type ProtocolCommand struct {
	Protocols       []string          `json:"protocols"`
	PlatformCommand []PlatformCommand `json:"platformCommand,omitempty"`
}

// Config holds type-specific settings (Helm 4's layout).
type Config struct {
	Usage       string   `json:"usage,omitempty"`
	ShortHelp   string   `json:"shortHelp,omitempty"`
	LongHelp    string   `json:"longHelp,omitempty"`
	IgnoreFlags bool     `json:"ignoreFlags,omitempty"`
	Protocols   []string `json:"protocols,omitempty"`
}

// Metadata is a plugin entry: a plugin.yaml, or an item of plugins.yaml.
type Metadata struct {
	APIVersion  string `json:"apiVersion,omitempty"`
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Type        string `json:"type,omitempty"`
	Runtime     string `json:"runtime,omitempty"`
	Usage       string `json:"usage,omitempty"`
	Description string `json:"description,omitempty"`
	// SourceURL is where the plugin comes from (Helm 4's plugin.yaml).
	SourceURL       string            `json:"sourceURL,omitempty"`
	Command         string            `json:"command,omitempty"`
	PlatformCommand []PlatformCommand `json:"platformCommand,omitempty"`
	IgnoreFlags     bool              `json:"ignoreFlags,omitempty"`
	Downloaders     []Downloader      `json:"downloaders,omitempty"`
	Protocols       []string          `json:"protocols,omitempty"`
	// PlatformHooks and Hooks (Helm 3's layout) run on install, update and
	// delete; Hooks are shell command lines.
	PlatformHooks PlatformHooks     `json:"platformHooks,omitempty"`
	Hooks         map[string]string `json:"hooks,omitempty"`
	RuntimeConfig *RuntimeConfig    `json:"runtimeConfig,omitempty"`
	Config        *Config           `json:"config,omitempty"`
	// Dir is the plugin's directory in plugins.yaml entries (relative to the
	// file); plugin.yaml files are in theirs.
	Dir string `json:"dir,omitempty"`
}

// Plugin is a loaded plugin.
type Plugin struct {
	Metadata
	// Dir is the plugin's directory ($KUBECTL_CHART_PLUGIN_DIR, $HELM_PLUGIN_DIR);
	// empty for plugins.yaml entries without one.
	Dir string
	// Source says where the plugin was found: a plugins.yaml or a plugin directory.
	Source string
}

// Kind is the plugin's type; Helm v3 plugins without one are getters when they
// declare downloaders and commands otherwise.
func (p *Plugin) Kind() string {
	switch {
	case p.Type != "":
		return p.Type
	case len(p.Downloaders) > 0:
		return TypeGetter
	default:
		return TypeCLI
	}
}

// Supported reports whether this program can run the plugin.
func (p *Plugin) Supported() bool {
	switch p.Kind() {
	case TypeCLI, TypeGetter, TypePostRenderer:
	default:
		return false
	}
	return p.Runtime == "" || p.Runtime == RuntimeSubprocess || p.Runtime == RuntimeExtismV1
}

// Wasm reports whether the plugin is a Wasm module (runtime extism/v1).
func (p *Plugin) Wasm() bool { return p.Runtime == RuntimeExtismV1 }

// Summary is the one-line description shown by `plugin list` and in help.
func (p *Plugin) Summary() string {
	for _, s := range []string{p.Usage, p.configField(func(c *Config) string { return c.ShortHelp }),
		p.configField(func(c *Config) string { return c.Usage }), p.Description} {
		if s != "" {
			return strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
		}
	}
	return ""
}

func (p *Plugin) configField(f func(*Config) string) string {
	if p.Config == nil {
		return ""
	}
	return f(p.Config)
}

// Schemes are the URL schemes a getter serves.
func (p *Plugin) Schemes() []string {
	var out []string
	for _, d := range p.Downloaders {
		out = append(out, d.Protocols...)
	}
	out = append(out, p.Protocols...)
	if p.Config != nil {
		out = append(out, p.Config.Protocols...)
	}
	if p.RuntimeConfig != nil {
		for _, pc := range p.RuntimeConfig.ProtocolCommands {
			out = append(out, pc.Protocols...)
		}
	}
	return out
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ErrInvalid marks a plugin description that is refused.
var ErrInvalid = errors.New("invalid plugin")

// Validate checks the fields that end up in paths and command lines.
func (m *Metadata) Validate() error {
	if !validName.MatchString(m.Name) {
		return fmt.Errorf("%w: name %q may only contain letters, digits, '_' and '-'", ErrInvalid, m.Name)
	}
	if m.Version != "" {
		if strings.ContainsAny(m.Version, `/\`) || strings.Contains(m.Version, "..") {
			return fmt.Errorf("%w %q: version %q must not contain path separators or '..'", ErrInvalid, m.Name, m.Version)
		}
		if _, err := semver.NewVersion(m.Version); err != nil {
			return fmt.Errorf("%w %q: version %q is not a semantic version", ErrInvalid, m.Name, m.Version)
		}
	}
	switch m.Runtime {
	case "", RuntimeSubprocess, RuntimeExtismV1:
	default:
		return fmt.Errorf("%w %q: runtime %q is not supported (only %q and %q)", ErrInvalid, m.Name, m.Runtime,
			RuntimeSubprocess, RuntimeExtismV1)
	}
	return nil
}

// ParseMetadata reads a plugin.yaml. A key given twice is refused, as Helm does: the
// listing would show one command and running the plugin execute the other
// (CVE-2020-15187).
func ParseMetadata(b []byte) (Metadata, error) {
	var m Metadata
	js, err := yaml.YAMLToJSONStrict(b)
	if err != nil {
		return m, err
	}
	err = yaml.Unmarshal(js, &m)
	return m, err
}

// LoadDir reads the plugin in dir.
func LoadDir(dir string) (*Plugin, error) {
	path := filepath.Join(dir, MetadataFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plugin %s: %w", path, err)
	}
	m, err := ParseMetadata(b)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if m.Runtime == RuntimeExtismV1 {
		// Helm 4's words, which its warning prints.
		wasmFile := filepath.Join(abs, WasmFile)
		if _, err := os.Stat(wasmFile); err != nil {
			return nil, fmt.Errorf("wasm binary missing for extism/v1 plugin: %q", wasmFile)
		}
	}
	return &Plugin{Metadata: m, Dir: abs, Source: path}, nil
}
