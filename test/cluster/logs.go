package cluster

import (
	"os"
	"strings"
)

// lastLines returns the last n lines of data, for error messages that must
// show why a component or a build failed without drowning the reader.
func lastLines(data []byte, n int) string {
	text := strings.TrimRight(string(data), "\n")
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// tailFile returns the last n lines of the file at path, or why it cannot.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")\n"
	}
	return lastLines(data, n)
}
