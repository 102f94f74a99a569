package plugin

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm"
)

// File is a plugins.yaml: plugin directories to scan and plugin entries.
type File struct {
	// PluginDirs are scanned for plugin directories (each holding a plugin.yaml);
	// $VARS are expanded and entries that expand to nothing are skipped.
	PluginDirs []string   `json:"pluginDirs,omitempty"`
	Plugins    []Metadata `json:"plugins,omitempty"`
}

// ParseFile parses a plugins.yaml; name is used in errors and to resolve
// relative `dir` entries.
func ParseFile(name string, b []byte) (*File, error) {
	var f File
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	seen := map[string]bool{}
	for i := range f.Plugins {
		m := &f.Plugins[i]
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("%s: plugins[%d]: %w", name, i, err)
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("%s: plugins[%d]: plugin %q is listed twice", name, i, m.Name)
		}
		seen[m.Name] = true
	}
	return &f, nil
}

// Sources say where plugins come from, lowest precedence first: the built-in
// defaults, plugin directories (earlier directories win), then the user's file.
type Sources struct {
	Defaults     []byte
	DefaultsName string
	// UserFile is the user's plugins.yaml; a missing file is not an error.
	UserFile string
	// Env looks up variables for expanding pluginDirs, commands and arguments.
	Env func(string) string
	// HelmEnv, when set, is Helm's plugin environment (what `helm env`
	// prints), which getters receive as in Helm 4.
	HelmEnv func() map[string]string
	// Stderr is Helm 4 getter plugins' stderr (nil: captured into errors).
	Stderr io.Writer
}

// Registry is the set of known plugins, by name.
type Registry struct {
	plugins map[string]*Plugin
	env     func(string) string
	wasm    *wasm.Runtime
	helmEnv func() map[string]string
	stderr  io.Writer
	// Skipped are the plugin directories that did not load, as Helm 4 skips
	// them (with a warning) instead of failing.
	Skipped []Skipped
}

// Skipped is a plugin directory that did not load: its plugin.yaml and why.
type Skipped struct {
	File string
	Err  error
}

// Load builds the registry from its sources.
func Load(src Sources) (*Registry, error) {
	env := src.Env
	if env == nil {
		env = os.Getenv
	}
	// Compiled Wasm modules are cached as Helm 4 caches them (wazero-build), in
	// our cache directory; without one, in memory.
	wasmCache := ""
	if c := env("XDG_CACHE_HOME"); c != "" {
		wasmCache = filepath.Join(c, "kubectl-chart", "wazero-build")
	}
	r := &Registry{plugins: map[string]*Plugin{}, env: env, wasm: &wasm.Runtime{CacheDir: wasmCache}, helmEnv: src.HelmEnv,
		stderr: src.Stderr}
	var defaults, user *File
	if len(src.Defaults) > 0 {
		f, err := ParseFile(src.DefaultsName, src.Defaults)
		if err != nil {
			return nil, err
		}
		defaults = f
	}
	if src.UserFile != "" {
		b, err := os.ReadFile(src.UserFile)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", src.UserFile, err)
		default:
			f, err := ParseFile(src.UserFile, b)
			if err != nil {
				return nil, err
			}
			user = f
		}
	}

	add := func(f *File, name string, base string) {
		for _, m := range f.Plugins {
			p := &Plugin{Metadata: m, Source: name}
			if m.Dir != "" {
				dir := os.Expand(m.Dir, env)
				if !filepath.IsAbs(dir) && base != "" {
					dir = filepath.Join(base, dir)
				}
				p.Dir = dir
			}
			r.plugins[m.Name] = p
		}
	}
	var dirs []string
	seenDir := map[string]bool{}
	for _, f := range []*File{defaults, user} {
		if f == nil {
			continue
		}
		for _, d := range f.PluginDirs {
			for _, part := range filepath.SplitList(os.Expand(d, env)) {
				if part == "" || seenDir[part] {
					continue
				}
				seenDir[part] = true
				dirs = append(dirs, part)
			}
		}
	}

	// Lowest precedence first: built-in entries, directories (earlier ones
	// win, so they load last), then the user's entries.
	if defaults != nil {
		add(defaults, src.DefaultsName, "")
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		found, skipped, err := scanDir(dirs[i])
		if err != nil {
			return nil, err
		}
		r.Skipped = append(r.Skipped, skipped...)
		for _, p := range found {
			r.plugins[p.Name] = p
		}
	}
	if user != nil {
		add(user, src.UserFile, filepath.Dir(src.UserFile))
	}
	return r, nil
}

// scanDir loads every plugin directory under dir; a missing dir holds none.
// One that does not load is skipped, as in Helm 4; two of one name fail.
func scanDir(dir string) ([]*Plugin, []Skipped, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read plugin directory %s: %w", dir, err)
	}
	var out []*Plugin
	var skipped []Skipped
	byName := map[string]string{}
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue // installs in progress
		}
		if _, err := os.Stat(filepath.Join(sub, MetadataFile)); err != nil {
			continue
		}
		p, err := LoadDir(sub)
		if err != nil {
			skipped = append(skipped, Skipped{File: filepath.Join(sub, MetadataFile), Err: err})
			continue
		}
		if other, ok := byName[p.Name]; ok {
			return nil, nil, fmt.Errorf("two plugins in %s are named %q: %s and %s", dir, p.Name, other, sub)
		}
		byName[p.Name] = sub
		out = append(out, p)
	}
	return out, skipped, nil
}

// Get returns the plugin named name.
func (r *Registry) Get(name string) (*Plugin, bool) {
	p, ok := r.plugins[name]
	return p, ok
}

// All returns the plugins sorted by name.
func (r *Registry) All() []*Plugin {
	out := make([]*Plugin, 0, len(r.plugins))
	for _, p := range r.plugins {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// OfKind returns the supported plugins of one type, sorted by name.
func (r *Registry) OfKind(kind string) []*Plugin {
	var out []*Plugin
	for _, p := range r.All() {
		if p.Kind() == kind && p.Supported() {
			out = append(out, p)
		}
	}
	return out
}

// GetterFor returns the getter plugin serving scheme.
func (r *Registry) GetterFor(scheme string) (*Plugin, bool) {
	for _, p := range r.OfKind(TypeGetter) {
		for _, s := range p.Schemes() {
			if strings.EqualFold(s, scheme) {
				return p, true
			}
		}
	}
	return nil, false
}

// Env is the registry's variable lookup.
func (r *Registry) Env() func(string) string { return r.env }

// Env returns a lookup over getenv that fills in the XDG base directories and
// Helm's plugin directory when they are unset, so plugins.yaml can name them.
func Env(getenv func(string) string, home string) func(string) string {
	return func(key string) string {
		if v := getenv(key); v != "" {
			return v
		}
		switch key {
		case "HOME":
			return home
		case "XDG_DATA_HOME":
			return filepath.Join(home, ".local", "share")
		case "XDG_CONFIG_HOME":
			return filepath.Join(home, ".config")
		case "XDG_CACHE_HOME":
			return filepath.Join(home, ".cache")
		case "HELM_PLUGINS":
			data := getenv("HELM_DATA_HOME")
			if data == "" {
				data = filepath.Join(Env(getenv, home)("XDG_DATA_HOME"), "helm")
			}
			return filepath.Join(data, "plugins")
		}
		return ""
	}
}
