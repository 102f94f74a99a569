package chart_test

import (
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

func TestMetadataValidate(t *testing.T) {
	valid := func(mutate func(*chart.Metadata)) *chart.Metadata {
		md := &chart.Metadata{APIVersion: "v2", Name: "test", Version: "1.0", Type: "application"}
		if mutate != nil {
			mutate(md)
		}
		return md
	}
	tests := map[string]struct {
		md      *chart.Metadata
		wantErr string
	}{
		"nil metadata": {
			md:      nil,
			wantErr: "validation: chart.metadata is required",
		},
		"missing apiVersion": {
			md:      &chart.Metadata{Name: "test", Version: "1.0"},
			wantErr: "validation: chart.metadata.apiVersion is required",
		},
		"missing name": {
			md:      &chart.Metadata{APIVersion: "v2", Version: "1.0"},
			wantErr: "validation: chart.metadata.name is required",
		},
		"name is a dot": {
			md:      valid(func(m *chart.Metadata) { m.Name = "." }),
			wantErr: `validation: chart.metadata.name "." is not allowed`,
		},
		"name is two dots": {
			md:      valid(func(m *chart.Metadata) { m.Name = ".." }),
			wantErr: `validation: chart.metadata.name ".." is not allowed`,
		},
		"name climbs out": {
			md:      valid(func(m *chart.Metadata) { m.Name = "../../test" }),
			wantErr: `validation: chart.metadata.name "../../test" is invalid`,
		},
		"name with a slash": {
			md:      valid(func(m *chart.Metadata) { m.Name = "a/b" }),
			wantErr: `validation: chart.metadata.name "a/b" is invalid`,
		},
		"name with a trailing slash": {
			md:      valid(func(m *chart.Metadata) { m.Name = "a/" }),
			wantErr: `validation: chart.metadata.name "a/" is invalid`,
		},
		"name that looks like a file is fine": {
			md: valid(func(m *chart.Metadata) { m.Name = "foo.yaml" }),
		},
		"missing version": {
			md:      &chart.Metadata{APIVersion: "v2", Name: "test"},
			wantErr: "validation: chart.metadata.version is required",
		},
		"four-part version": {
			md:      &chart.Metadata{APIVersion: "v2", Name: "test", Version: "1.2.3.4"},
			wantErr: `validation: chart.metadata.version "1.2.3.4" is invalid`,
		},
		"version that is not a version": {
			md:      &chart.Metadata{APIVersion: "v2", Name: "test", Version: "latest"},
			wantErr: `validation: chart.metadata.version "latest" is invalid`,
		},
		"v-prefixed and prerelease versions are SemVer": {
			md: &chart.Metadata{APIVersion: "v2", Name: "test", Version: "v1.2.3-rc.1+build.5"},
		},
		"unknown type": {
			md:      valid(func(m *chart.Metadata) { m.Type = "test" }),
			wantErr: "validation: chart.metadata.type must be application or library",
		},
		"type is case sensitive": {
			md:      valid(func(m *chart.Metadata) { m.Type = "Library" }),
			wantErr: "validation: chart.metadata.type must be application or library",
		},
		"library type": {
			md: valid(func(m *chart.Metadata) { m.Type = "library" }),
		},
		"empty type": {
			md: valid(func(m *chart.Metadata) { m.Type = "" }),
		},
		"dependency with a legal alias": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "dependency", Alias: "legal-alias"}}
			}),
		},
		"dependency with a space in the alias": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "bad", Alias: "illegal alias"}}
			}),
			wantErr: `validation: dependency "bad" has disallowed characters in the alias`,
		},
		"same dependency twice": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "foo"}, {Name: "foo"}}
			}),
			wantErr: `validation: more than one dependency with name or alias "foo"`,
		},
		"alias shadowing another dependency's name": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "foo"}, {Name: "bar", Alias: "foo"}}
			}),
			wantErr: `validation: more than one dependency with name or alias "foo"`,
		},
		"same dependency twice with different versions": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "foo", Version: "1.2.3"}, {Name: "foo", Version: "1.0.0"}}
			}),
			wantErr: `validation: more than one dependency with name or alias "foo"`,
		},
		"same dependency twice from different repositories": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "foo", Repository: "repo-0"}, {Name: "foo", Repository: "repo-1"}}
			}),
			wantErr: `validation: more than one dependency with name or alias "foo"`,
		},
		"duplicate aliases": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "foo", Alias: "x"}, {Name: "bar", Alias: "x"}}
			}),
			wantErr: `validation: more than one dependency with name or alias "x"`,
		},
		"one chart twice under two aliases": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{{Name: "foo", Alias: "one"}, {Name: "foo", Alias: "two"}}
			}),
		},
		"null dependency": {
			md: valid(func(m *chart.Metadata) {
				m.Dependencies = []*chart.Dependency{nil}
			}),
			wantErr: "validation: dependencies must not contain empty or null nodes",
		},
		"null maintainer": {
			md: valid(func(m *chart.Metadata) {
				m.Maintainers = []*chart.Maintainer{nil}
			}),
			wantErr: "validation: maintainers must not contain empty or null nodes",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.md.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tc.wantErr)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("Validate() = %q, want %q", err, tc.wantErr)
			}
			var verr chart.ValidationError
			if !errors.As(err, &verr) {
				t.Errorf("Validate() returned %T, want chart.ValidationError", err)
			}
		})
	}
}

func TestDependencyAliasFormat(t *testing.T) {
	tests := map[string]struct {
		alias string
		ok    bool
	}{
		"every allowed character": {alias: "abcdefghijklmenopQRSTUVWXYZ-0123456780_", ok: true},
		"leading dash":            {alias: "-okay", ok: true},
		"leading underscore":      {alias: "_okay", ok: true},
		"dash and space":          {alias: "- bad"},
		"leading space":           {alias: " bad"},
		"newline":                 {alias: "bad\nvalue"},
		"trailing space":          {alias: "bad "},
		"dollar":                  {alias: "bad$"},
		"dot":                     {alias: "bad.alias"},
		"slash":                   {alias: "bad/alias"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			md := &chart.Metadata{APIVersion: "v2", Name: "test", Version: "1.0.0",
				Dependencies: []*chart.Dependency{{Name: "example", Alias: tc.alias}}}
			err := md.Validate()
			if tc.ok && err != nil {
				t.Fatalf("alias %q refused: %v", tc.alias, err)
			}
			if !tc.ok {
				want := `validation: dependency "example" has disallowed characters in the alias`
				if err == nil || err.Error() != want {
					t.Fatalf("alias %q: got %v, want %q", tc.alias, err, want)
				}
			}
		})
	}
}

func TestMetadataValidateSanitizes(t *testing.T) {
	md := &chart.Metadata{
		APIVersion:  "v2",
		Name:        "test",
		Version:     "1.0",
		Description: "\adescr\u0081iption\rtest",
		Home:        "http://example.com/\x1b[31m",
		Keywords:    []string{"a\tb"},
		Sources:     []string{"s\x00rc"},
		Maintainers: []*chart.Maintainer{{Name: "\r", Email: "a\nb@example.com"}},
		Dependencies: []*chart.Dependency{
			{Name: "dep\u0007", Version: "1.0.0\n", Repository: "file://x\x7f", Condition: "a.\tenabled", Tags: []string{"t\u0080ag"}},
		},
	}
	if err := md.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	checks := map[string]struct{ got, want string }{
		"description":    {md.Description, "description test"},
		"home":           {md.Home, "http://example.com/[31m"},
		"keyword":        {md.Keywords[0], "a b"},
		"source":         {md.Sources[0], "src"},
		"maintainer":     {md.Maintainers[0].Name, " "},
		"email":          {md.Maintainers[0].Email, "a b@example.com"},
		"dep name":       {md.Dependencies[0].Name, "dep"},
		"dep version":    {md.Dependencies[0].Version, "1.0.0 "},
		"dep repository": {md.Dependencies[0].Repository, "file://x"},
		"dep condition":  {md.Dependencies[0].Condition, "a. enabled"},
		"dep tag":        {md.Dependencies[0].Tags[0], "tag"},
	}
	for name, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", name, c.got, c.want)
		}
	}
}
