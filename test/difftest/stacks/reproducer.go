package stacks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// String is the case as a reproducer: the command lines, then every file.
func (c Case) String() string {
	var b strings.Builder
	args := strings.Join(quoted(c.Args), " ")
	fmt.Fprintf(&b, "run in the case's directory:\n  helmfile --helm-binary HELM template --concurrency 1 %s\n  kubectl chart stack template %s\n", args, args)
	for _, name := range fileNames(c) {
		data := c.Files[name]
		fmt.Fprintf(&b, "--- file: %s\n%s", name, data)
		if data != "" && !strings.HasSuffix(data, "\n") {
			b.WriteString("\n--- (no final newline)\n")
		}
	}
	return b.String()
}

// WriteReproducer stores a case and its difference under root/name: case/
// holds the files, args the flags after `template` (one a line), difference
// what differs. What was there before goes.
func WriteReproducer(root, name string, c Case, res Result) (string, error) {
	dir := filepath.Join(root, name)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := c.Write(filepath.Join(dir, "case")); err != nil {
		return "", err
	}
	args := ""
	for _, a := range c.Args {
		args += a + "\n"
	}
	files := map[string]string{"args": args, "difference": res.Describe()}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(data), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// quoted are words a shell reads back as they are.
func quoted(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789=,._/-") != "" {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		out[i] = w
	}
	return out
}
