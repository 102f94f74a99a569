// Package generator draws, from a seed, Helm charts, values files and command lines that exercise
// the corners of Helm's template language, values handling and chart loading. The same seed and
// dialect always give the same cases. Functions whose result is random or depends on the clock
// (randAlpha, genCA, now, uuidv4, ...) are never drawn.
package generator

import (
	"os"
	"path/filepath"
	"strings"
)

// File is one file of a case, its path relative to the case's working directory.
type File struct {
	Path string
	Data string
}

// Case is one command line run in a directory that holds Files.
type Case struct {
	Name  string
	Files []File
	// Args are the command line's words in groups: the first group is the command and its
	// positional arguments, every other group one flag with its value. A shrinker drops groups.
	Args [][]string
}

// Argv is the command line without the program name.
func (c Case) Argv() []string {
	var out []string
	for _, g := range c.Args {
		out = append(out, g...)
	}
	return out
}

// Clone copies the case so that a shrinker can edit the copy.
func (c Case) Clone() Case {
	out := Case{Name: c.Name, Files: append([]File(nil), c.Files...)}
	for _, g := range c.Args {
		out.Args = append(out.Args, append([]string(nil), g...))
	}
	return out
}

// Write puts the case's files under dir.
func (c Case) Write(dir string) error {
	for _, f := range c.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		// Scripts (post-renderers) run as programs.
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f.Path, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(f.Data), mode); err != nil {
			return err
		}
	}
	return nil
}

// String is the case in full, as a reproducer a reader can recreate by hand.
func (c Case) String() string {
	var b strings.Builder
	b.WriteString("args: " + strings.Join(quoteAll(c.Argv()), " ") + "\n")
	for _, f := range c.Files {
		b.WriteString("--- file: " + f.Path + "\n")
		b.WriteString(f.Data)
		if !strings.HasSuffix(f.Data, "\n") {
			b.WriteString("\n--- (no final newline)\n")
		}
	}
	return b.String()
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}()|&;<>~#!") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		out[i] = w
	}
	return out
}
