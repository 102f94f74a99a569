package chart

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/Masterminds/semver/v3"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonobj"
)

// Maintainer is a person responsible for a chart.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`

	rest jsonobj.Rest // see record.go
}

// Metadata is the content of Chart.yaml.
type Metadata struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Maintainers  []*Maintainer     `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Dependencies []*Dependency     `json:"dependencies,omitempty"`
	Type         string            `json:"type,omitempty"`

	rest jsonobj.Rest // see record.go
}

// Dependency is an entry of Chart.yaml's dependencies (or requirements.yaml).
type Dependency struct {
	Name         string   `json:"name" yaml:"name"`
	Version      string   `json:"version,omitempty" yaml:"version,omitempty"`
	Repository   string   `json:"repository" yaml:"repository"`
	Condition    string   `json:"condition,omitempty" yaml:"condition,omitempty"`
	Tags         []string `json:"tags,omitempty" yaml:"tags,omitempty"`
	Enabled      bool     `json:"enabled,omitempty" yaml:"enabled,omitempty"`
	ImportValues []any    `json:"import-values,omitempty" yaml:"import-values,omitempty"`
	Alias        string   `json:"alias,omitempty" yaml:"alias,omitempty"`
	// DependsOn names the dependencies (by name or alias) that must be
	// deployed and ready before this one when the release is sequenced
	// (HIP-0025). Helm 3 and 4 ignore it.
	DependsOn NameList `json:"depends-on,omitempty" yaml:"depends-on,omitempty"`

	rest jsonobj.Rest // see record.go
}

// NameList is a list of names in a field Helm does not know (depends-on):
// a value that is not a list of strings reads as no list, never as an
// error, since Helm loads the chart whatever the field holds.
type NameList []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *NameList) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		names = nil
	}
	*l = names
	return nil
}

// Lock is Chart.lock (or requirements.lock).
type Lock struct {
	Generated    time.Time     `json:"generated"`
	Digest       string        `json:"digest"`
	Dependencies []*Dependency `json:"dependencies"`

	rest jsonobj.Rest // see record.go
}

// ValidationError is a problem with a chart's metadata; its text names the field.
type ValidationError string

func (e ValidationError) Error() string { return "validation: " + string(e) }

func validationErrorf(format string, args ...any) ValidationError {
	return ValidationError(fmt.Sprintf(format, args...))
}

var aliasNameFormat = regexp.MustCompile("^[a-zA-Z0-9_-]+$")

// Validate checks required fields and formats and normalises whitespace in text
// fields, as Helm does before using a chart.
func (md *Metadata) Validate() error {
	if md == nil {
		return ValidationError("chart.metadata is required")
	}
	md.sanitize()
	switch {
	case md.APIVersion == "":
		return ValidationError("chart.metadata.apiVersion is required")
	case md.Name == "":
		return ValidationError("chart.metadata.name is required")
	case md.Name == "." || md.Name == "..":
		return validationErrorf("chart.metadata.name %q is not allowed", md.Name)
	case md.Name != path.Base(md.Name) || strings.ContainsAny(md.Name, `/\`):
		return validationErrorf("chart.metadata.name %q is invalid", md.Name)
	case md.Version == "":
		return ValidationError("chart.metadata.version is required")
	}
	if _, err := semver.NewVersion(md.Version); err != nil {
		return validationErrorf("chart.metadata.version %q is invalid", md.Version)
	}
	switch md.Type {
	case "", "application", "library":
	default:
		return ValidationError("chart.metadata.type must be application or library")
	}
	for _, m := range md.Maintainers {
		if m == nil {
			return ValidationError("maintainers must not contain empty or null nodes")
		}
		m.Name, m.Email, m.URL = Sanitize(m.Name), Sanitize(m.Email), Sanitize(m.URL)
	}
	seen := map[string]bool{}
	for _, d := range md.Dependencies {
		if d == nil {
			return ValidationError("dependencies must not contain empty or null nodes")
		}
		sanitizeDependency(d)
		if d.Alias != "" && !aliasNameFormat.MatchString(d.Alias) {
			return validationErrorf("dependency %q has disallowed characters in the alias", d.Name)
		}
		key := d.Name
		if d.Alias != "" {
			key = d.Alias
		}
		if seen[key] {
			return validationErrorf("more than one dependency with name or alias %q", key)
		}
		seen[key] = true
	}
	return nil
}

func (md *Metadata) sanitize() {
	for _, s := range []*string{&md.Name, &md.Description, &md.Home, &md.Icon, &md.Condition, &md.Tags, &md.AppVersion, &md.KubeVersion} {
		*s = Sanitize(*s)
	}
	for i := range md.Sources {
		md.Sources[i] = Sanitize(md.Sources[i])
	}
	for i := range md.Keywords {
		md.Keywords[i] = Sanitize(md.Keywords[i])
	}
}

// sanitizeDependency normalises the text fields of d as Validate does.
func sanitizeDependency(d *Dependency) {
	d.Name, d.Version, d.Repository, d.Condition = Sanitize(d.Name), Sanitize(d.Version), Sanitize(d.Repository), Sanitize(d.Condition)
	for i := range d.Tags {
		d.Tags[i] = Sanitize(d.Tags[i])
	}
}

// Sanitize turns every kind of whitespace into a space and drops unprintable runes,
// so metadata (and any other untrusted text) cannot smuggle control characters
// into output.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
}
