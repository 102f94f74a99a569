package repo

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Entry is a configured repository, as in Helm's repositories.yaml.
type Entry struct {
	Name                  string `json:"name"`
	URL                   string `json:"url"`
	Username              string `json:"username"`
	Password              string `json:"password"`
	CertFile              string `json:"certFile"`
	KeyFile               string `json:"keyFile"`
	CAFile                string `json:"caFile"`
	InsecureSkipTLSverify bool   `json:"insecure_skip_tls_verify"`
	PassCredentialsAll    bool   `json:"pass_credentials_all"`
}

// File is repositories.yaml: the repositories in use.
type File struct {
	APIVersion   string    `json:"apiVersion"`
	Generated    time.Time `json:"generated"`
	Repositories []*Entry  `json:"repositories"`
}

var repoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidateName refuses names that could not serve as a file name in the cache.
func ValidateName(name string) error {
	if !repoName.MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("repository name %q is invalid: use letters, digits, '.', '_' and '-' and start with a letter or digit", name)
	}
	return nil
}

// ParseFile reads repositories.yaml; empty input is an empty file.
func ParseFile(data []byte, source string) (*File, error) {
	f := &File{APIVersion: APIVersionV1}
	if len(data) == 0 {
		return f, nil
	}
	if err := yaml.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	for i, e := range f.Repositories {
		if e == nil {
			return nil, fmt.Errorf("%s: repositories[%d] is empty", source, i)
		}
		// A hand-edited name such as "../../x" would put its cached index outside the
		// cache: such a file is refused whole, on every read.
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsAny(e.Name, "/\\\x00") {
			return nil, fmt.Errorf("%s: repositories[%d]: repository name %q is not allowed: it must be a single file name", source, i, e.Name)
		}
	}
	return f, nil
}

// Marshal writes repositories.yaml.
func (f *File) Marshal() ([]byte, error) { return yaml.Marshal(f) }

// Get returns the repository named name, or nil.
func (f *File) Get(name string) *Entry {
	for _, e := range f.Repositories {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Update adds e, replacing a repository of the same name.
func (f *File) Update(e *Entry) {
	for i, old := range f.Repositories {
		if old.Name == e.Name {
			f.Repositories[i] = e
			return
		}
	}
	f.Repositories = append(f.Repositories, e)
}

// Remove drops the named repository and reports whether it was there.
func (f *File) Remove(name string) bool {
	for i, e := range f.Repositories {
		if e.Name == name {
			f.Repositories = append(f.Repositories[:i], f.Repositories[i+1:]...)
			return true
		}
	}
	return false
}

// Names lists the repositories' names, sorted.
func (f *File) Names() []string {
	out := make([]string, 0, len(f.Repositories))
	for _, e := range f.Repositories {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}
