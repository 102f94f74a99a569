// Package cmdtree is the differential tester's command-availability axis: it
// walks a program's command tree by running it (every command's --help, the
// form cobra prints for Helm and for us), draws probes over the trees of both
// Helms and ours (help, unknown flags and subcommands, bare parents, every
// flag known to any of them) and compares what each program does with them.
package cmdtree

import (
	"strings"
)

// Flag is one flag as a help output lists it.
type Flag struct {
	Long  string
	Short string
	// Type is the value's type word (string, int, stringArray ...), "" for a bool.
	Type string
}

// Help is the structure of a command's --help output: what a program says
// about its command line, without the prose (descriptions, flag usages,
// defaults, examples), which is each program's own text.
type Help struct {
	// Usage are the lines of the Usage: section.
	Usage []string
	// Aliases is the Aliases: line.
	Aliases string
	// Commands are the names under Available Commands: (and Additional help topics:).
	Commands []string
	// Flags and Globals are the Flags: and Global Flags: sections.
	Flags, Globals []Flag
}

// ParseHelp reads the structure of a cobra help output; ok is false when out
// is not one (no Usage: section).
func ParseHelp(out string) (Help, bool) {
	var h Help
	section := ""
	seenUsage := false
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			section = ""
			continue
		}
		if !strings.HasPrefix(line, " ") {
			section = strings.TrimSuffix(line, ":")
			if section == "Usage" {
				seenUsage = true
			}
			continue
		}
		body := strings.TrimSpace(line)
		switch section {
		case "Usage":
			h.Usage = append(h.Usage, body)
		case "Aliases":
			h.Aliases = body
		case "Available Commands", "Additional help topics", "Additional Commands":
			h.Commands = append(h.Commands, strings.Fields(body)[0])
		case "Flags":
			h.Flags = append(h.Flags, parseFlag(body))
		case "Global Flags":
			h.Globals = append(h.Globals, parseFlag(body))
		}
	}
	return h, seenUsage
}

// parseFlag reads a flag line: "-n, --namespace string   usage" or "--debug   usage".
func parseFlag(body string) Flag {
	var f Flag
	if strings.HasPrefix(body, "-") && !strings.HasPrefix(body, "--") {
		short, rest, _ := strings.Cut(body, ", ")
		f.Short = strings.TrimPrefix(short, "-")
		body = rest
	}
	// The name and type are separated by one space, the usage by three or more.
	head, _, _ := strings.Cut(body, "   ")
	words := strings.Fields(head)
	if len(words) > 0 {
		f.Long = strings.TrimPrefix(words[0], "--")
	}
	if len(words) > 1 {
		f.Type = words[1]
	}
	return f
}

// String is the structure as lines, for comparing and for reports.
func (h Help) String() string {
	var b strings.Builder
	for _, u := range h.Usage {
		b.WriteString("usage: " + u + "\n")
	}
	if h.Aliases != "" {
		b.WriteString("aliases: " + h.Aliases + "\n")
	}
	for _, c := range h.Commands {
		b.WriteString("command: " + c + "\n")
	}
	for _, f := range h.Flags {
		b.WriteString("flag: " + f.String() + "\n")
	}
	for _, f := range h.Globals {
		b.WriteString("global: " + f.String() + "\n")
	}
	return b.String()
}

func (f Flag) String() string {
	s := "--" + f.Long
	if f.Short != "" {
		s = "-" + f.Short + ", " + s
	}
	if f.Type != "" {
		s += " " + f.Type
	}
	return s
}
