package engine_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
)

func testFiles() engine.Files {
	return engine.NewFiles([]*chart.File{
		{Name: "ship/captain.txt", Data: []byte("The Captain")},
		{Name: "ship/stowaway.txt", Data: []byte("Legatt")},
		{Name: "story/name.txt", Data: []byte("The Secret Sharer")},
		{Name: "story/author.txt", Data: []byte("Joseph Conrad")},
		{Name: "story/deeper/chapter.txt", Data: []byte("One")},
		{Name: "multiline/test.txt", Data: []byte("bar\nfoo\n")},
		{Name: "multiline/test_with_blank_lines.txt", Data: []byte("bar\nfoo\n\n\n")},
		{Name: "multiline/crlf.txt", Data: []byte("a\r\nb\r\n")},
		{Name: "empty/empty.txt", Data: []byte("")},
		{Name: "empty/newline_only.txt", Data: []byte("\n")},
	})
}

func TestFilesGet(t *testing.T) {
	f := testFiles()
	tests := map[string]struct{ name, want string }{
		"file":         {"ship/captain.txt", "The Captain"},
		"nested file":  {"story/deeper/chapter.txt", "One"},
		"empty file":   {"empty/empty.txt", ""},
		"missing file": {"nope.txt", ""},
		"directory":    {"ship", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := f.Get(tc.name); got != tc.want {
				t.Errorf("Get(%q) = %q, want %q", tc.name, got, tc.want)
			}
			b := f.GetBytes(tc.name)
			if b == nil || string(b) != tc.want {
				t.Errorf("GetBytes(%q) = %#v, want %q (never nil)", tc.name, b, tc.want)
			}
		})
	}
}

func TestFilesGlob(t *testing.T) {
	f := testFiles()
	tests := map[string]struct {
		pattern string
		want    []string
	}{
		"double star crosses directories":  {"story/**", []string{"story/author.txt", "story/deeper/chapter.txt", "story/name.txt"}},
		"single star stays in a directory": {"story/*", []string{"story/author.txt", "story/name.txt"}},
		"leading double star":              {"**/captain.txt", []string{"ship/captain.txt"}},
		"alternatives":                     {"{ship,empty}/*.txt", []string{"empty/empty.txt", "empty/newline_only.txt", "ship/captain.txt", "ship/stowaway.txt"}},
		"character class":                  {"ship/[cs]*.txt", []string{"ship/captain.txt", "ship/stowaway.txt"}},
		"no match":                         {"nothing/**", nil},
		"exact name":                       {"story/name.txt", []string{"story/name.txt"}},
		"invalid pattern matches everything": {"[", []string{
			"empty/empty.txt", "empty/newline_only.txt", "multiline/crlf.txt", "multiline/test.txt",
			"multiline/test_with_blank_lines.txt", "ship/captain.txt", "ship/stowaway.txt",
			"story/author.txt", "story/deeper/chapter.txt", "story/name.txt",
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := f.Glob(tc.pattern)
			var names []string
			for n := range got {
				names = append(names, n)
			}
			sort.Strings(names)
			if !reflect.DeepEqual(names, tc.want) {
				t.Errorf("Glob(%q) = %v, want %v", tc.pattern, names, tc.want)
			}
			for _, n := range names {
				if got.Get(n) != f.Get(n) {
					t.Errorf("Glob(%q)[%s] = %q, want %q", tc.pattern, n, got.Get(n), f.Get(n))
				}
			}
		})
	}
}

func TestFilesAsConfigAndAsSecrets(t *testing.T) {
	f := testFiles()
	tests := map[string]struct {
		files       engine.Files
		wantConfig  string
		wantSecrets string
	}{
		"one file": {
			files:       f.Glob("**/captain.txt"),
			wantConfig:  "captain.txt: The Captain",
			wantSecrets: "captain.txt: VGhlIENhcHRhaW4=",
		},
		"sorted by base name": {
			files:       f.Glob("ship/**"),
			wantConfig:  "captain.txt: The Captain\nstowaway.txt: Legatt",
			wantSecrets: "captain.txt: VGhlIENhcHRhaW4=\nstowaway.txt: TGVnYXR0",
		},
		"multi-line content becomes a block": {
			files:       f.Glob("multiline/test.txt"),
			wantConfig:  "test.txt: |\n  bar\n  foo",
			wantSecrets: "test.txt: YmFyCmZvbwo=",
		},
		"empty file": {
			files:       f.Glob("empty/empty.txt"),
			wantConfig:  `empty.txt: ""`,
			wantSecrets: `empty.txt: ""`,
		},
		"no files": {
			files:       f.Glob("nothing/*"),
			wantConfig:  "{}",
			wantSecrets: "{}",
		},
		"nil": {
			files: nil,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.files.AsConfig(); got != tc.wantConfig {
				t.Errorf("AsConfig() = %q, want %q", got, tc.wantConfig)
			}
			if got := tc.files.AsSecrets(); got != tc.wantSecrets {
				t.Errorf("AsSecrets() = %q, want %q", got, tc.wantSecrets)
			}
		})
	}
}

func TestFilesLines(t *testing.T) {
	f := testFiles()
	tests := map[string]struct {
		name string
		want []string
	}{
		"two lines":                 {"multiline/test.txt", []string{"bar", "foo"}},
		"trailing blank lines":      {"multiline/test_with_blank_lines.txt", []string{"bar", "foo", "", ""}},
		"carriage returns are kept": {"multiline/crlf.txt", []string{"a\r", "b\r"}},
		"no trailing newline":       {"ship/captain.txt", []string{"The Captain"}},
		"empty file":                {"empty/empty.txt", []string{}},
		"newline only":              {"empty/newline_only.txt", []string{""}},
		"missing file":              {"nonexistent.txt", []string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := f.Lines(tc.name)
			if got == nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Lines(%q) = %#v, want %#v", tc.name, got, tc.want)
			}
		})
	}
	var none engine.Files
	if got := none.Lines("x"); got == nil || len(got) != 0 {
		t.Errorf("nil Files: Lines = %#v, want an empty list", got)
	}
}
