package helmfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

var (
	yamlLine     = regexp.MustCompile(`line (\d+)`)
	templateLine = regexp.MustCompile(`^template: ([^:]*):(\d+)`)
)

// offsetYAMLError makes a YAML error's line numbers count from the top of the
// file rather than from the top of the part that was decoded.
func offsetYAMLError(err error, off int) error {
	if off == 0 {
		return err
	}
	return errors.New(yamlLine.ReplaceAllStringFunc(err.Error(), func(m string) string {
		n, _ := strconv.Atoi(m[len("line "):])
		return fmt.Sprintf("line %d", n+off)
	}))
}

// templateError says where in file a template failed: text/template counts
// lines from the top of the part, the file from its top.
func templateError(file string, off int, err error) error {
	if m := templateLine.FindStringSubmatchIndex(err.Error()); m != nil {
		msg := err.Error()
		n, _ := strconv.Atoi(msg[m[4]:m[5]])
		return fmt.Errorf("%s:%d: %w", file, n+off, err)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// mergeMaps merges src over dst deeply, as helmfile merges values: maps
// merge key by key, anything else (lists too) is replaced. Neither is changed.
func mergeMaps(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(dm, sm)
				continue
			}
		}
		out[k] = v
	}
	return out
}
