package cmdtree

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Run runs the program under test with args and reports what it printed.
type Run func(ctx context.Context, args []string) (stdout, stderr string, exit int, err error)

// Tree is a program's command tree: every command path (words after the
// program's name, "" for the root) and its help's structure.
type Tree map[string]Help

// maxCommands bounds a walk: a program whose help lists commands without end
// (a loop of aliases) is an error, not a hang.
const maxCommands = 500

// Walk reads the command tree by running every command's --help, from the
// root down. hidden names commands no help lists (Helm's docs): each is
// walked where its parent exists and the program knows it.
func Walk(ctx context.Context, run Run, hidden []string) (Tree, error) {
	t := Tree{}
	queue := [][]string{nil}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		key := strings.Join(path, " ")
		if _, seen := t[key]; seen {
			continue
		}
		if len(t) >= maxCommands {
			return nil, fmt.Errorf("more than %d commands", maxCommands)
		}
		stdout, _, exit, err := run(ctx, append(append([]string(nil), path...), "--help"))
		if err != nil {
			return nil, err
		}
		h, ok := ParseHelp(stdout)
		if exit != 0 || !ok || !names(h, path) {
			if path == nil {
				return nil, fmt.Errorf("no help from the root command (exit %d)", exit)
			}
			continue
		}
		t[key] = h
		subs := h.Commands
		if path == nil {
			subs = append(append([]string(nil), subs...), hidden...)
		}
		for _, c := range subs {
			if c == "help" {
				// cobra's own: help of the other commands.
				continue
			}
			queue = append(queue, append(append([]string(nil), path...), c))
		}
	}
	return t, nil
}

// names reports whether help h is the help of the command at path and not
// of a parent that took the rest for arguments (cobra prints a parent's
// help for an unknown subcommand of it).
func names(h Help, path []string) bool {
	if len(path) == 0 {
		return true
	}
	for _, u := range h.Usage {
		words := strings.Fields(u)
		if len(words) > len(path) && strings.Join(words[1:len(path)+1], " ") == strings.Join(path, " ") {
			return true
		}
	}
	return false
}

// Paths are the tree's command paths, sorted.
func (t Tree) Paths() []string {
	out := make([]string, 0, len(t))
	for p := range t {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
