package engine

import (
	"encoding/base64"
	"path"
	"strings"

	"github.com/gobwas/glob"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// files is .Files in templates: the chart's non-template files by path. Its name is
// unexported as in Helm, whose templates see "engine.files"; Files names it outside.
type files map[string][]byte

// Files is .Files in templates.
type Files = files

// NewFiles indexes chart files by name.
func NewFiles(from []*chart.File) Files {
	f := make(Files, len(from))
	for _, x := range from {
		f[x.Name] = x.Data
	}
	return f
}

// GetBytes returns a file's content, empty when missing.
func (f Files) GetBytes(name string) []byte {
	if v, ok := f[name]; ok {
		return v
	}
	return []byte{}
}

// Get returns a file's content as a string, empty when missing.
func (f Files) Get(name string) string { return string(f.GetBytes(name)) }

// Glob returns the files whose path matches a glob ("**" crosses directories).
// An invalid pattern matches everything, as in Helm.
func (f Files) Glob(pattern string) Files {
	g, err := glob.Compile(pattern, '/')
	if err != nil {
		g, _ = glob.Compile("**")
	}
	out := Files{}
	for name, data := range f {
		if g.Match(name) {
			out[name] = data
		}
	}
	return out
}

// AsConfig renders the files as a ConfigMap data block, keyed by base name.
func (f Files) AsConfig() string {
	if f == nil {
		return ""
	}
	m := make(map[string]string, len(f))
	for k, v := range f {
		m[path.Base(k)] = string(v)
	}
	return toYAML(m)
}

// AsSecrets renders the files as a Secret data block, base64-encoded, keyed by base name.
func (f Files) AsSecrets() string {
	if f == nil {
		return ""
	}
	m := make(map[string]string, len(f))
	for k, v := range f {
		m[path.Base(k)] = base64.StdEncoding.EncodeToString(v)
	}
	return toYAML(m)
}

// Lines returns a file's lines without a final empty one.
func (f Files) Lines(name string) []string {
	if f == nil || len(f[name]) == 0 {
		return []string{}
	}
	s := strings.TrimSuffix(string(f[name]), "\n")
	return strings.Split(s, "\n")
}
