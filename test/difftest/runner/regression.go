package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// A regression case is a directory: case/ holds the files, args the command line (one word a
// line), dialect the dialect, and want.stdout, want.exit, want.error what Helm did.
const (
	caseDir     = "case"
	argsFile    = "args"
	dialectFile = "dialect"
	stdoutFile  = "want.stdout"
	exitFile    = "want.exit"
	errorFile   = "want.error"
)

// Regression is one stored reproducer.
type Regression struct {
	Name    string
	Dir     string
	Dialect generator.Dialect
	Args    []string
	Want    Outcome
}

// WriteRegression stores a reproducer with Helm's outcome as its golden under root/name.
func WriteRegression(root, name string, dialect generator.Dialect, c generator.Case, helm Outcome) (string, error) {
	dir := filepath.Join(root, name)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := c.Write(filepath.Join(dir, caseDir)); err != nil {
		return "", err
	}
	files := map[string]string{
		argsFile:    strings.Join(c.Argv(), "\n") + "\n",
		dialectFile: string(dialect) + "\n",
	}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(data), 0o644); err != nil {
			return "", err
		}
	}
	return dir, WriteGolden(dir, helm)
}

// WriteGolden stores Helm's outcome as a regression's golden.
func WriteGolden(dir string, helm Outcome) error {
	files := map[string]string{
		stdoutFile: helm.Stdout,
		exitFile:   strconv.Itoa(helm.Exit) + "\n",
		errorFile:  helm.ErrLine + "\n",
	}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// LoadRegressions reads every regression case under root, sorted by name.
func LoadRegressions(root string) ([]Regression, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []Regression
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		r, err := loadRegression(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("regression %s: %w", e.Name(), err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func loadRegression(dir string) (Regression, error) {
	read := func(n string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		return string(b), err
	}
	r := Regression{Name: filepath.Base(dir), Dir: dir}
	args, err := read(argsFile)
	if err != nil {
		return r, err
	}
	r.Args = strings.Split(strings.TrimSuffix(args, "\n"), "\n")
	d, err := read(dialectFile)
	if err != nil {
		return r, err
	}
	r.Dialect = generator.Dialect(strings.TrimSpace(d))
	if r.Want.Stdout, err = read(stdoutFile); err != nil {
		return r, err
	}
	exit, err := read(exitFile)
	if err != nil {
		return r, err
	}
	if r.Want.Exit, err = strconv.Atoi(strings.TrimSpace(exit)); err != nil {
		return r, err
	}
	e, err := read(errorFile)
	if err != nil {
		return r, err
	}
	r.Want.ErrLine = strings.TrimSuffix(e, "\n")
	return r, nil
}

// Case is the regression as a case: its files and command line.
func (r Regression) Case() (generator.Case, error) {
	c := generator.Case{Name: r.Name, Args: [][]string{r.Args}}
	root := filepath.Join(r.Dir, caseDir)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		c.Files = append(c.Files, generator.File{Path: filepath.ToSlash(rel), Data: string(data)})
		return nil
	})
	return c, err
}
