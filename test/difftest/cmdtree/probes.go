package cmdtree

import (
	"math/rand/v2"
	"sort"
	"strings"
)

// Probe is one command line of the axis.
type Probe struct {
	// Kind says what it tests: help, unknown-flag, bare-parent,
	// unknown-subcommand, flag.
	Kind string
	Args []string
}

func (p Probe) String() string {
	return p.Kind + ": helm " + strings.Join(p.Args, " ")
}

// Hidden are what no help lists but a program may know: commands of the
// root, and flags by command path. Read from Helm's sources (v4.3.1 and
// v3.22.0) for the fact of their names: hidden and deprecated ones.
type Hidden struct {
	Commands []string
	Flags    map[string][]string
}

// HelmHidden are Helm v4.3.1's and v3.22.0's hidden commands and flags.
func HelmHidden() Hidden {
	return Hidden{
		Commands: []string{"docs"},
		Flags: map[string][]string{
			"version":  {"client"},
			"create":   {"chart-api-version"},
			"template": {"hide-notes", "render-subchart-notes", "validate", "atomic", "force"},
			"install":  {"atomic", "force"},
			"upgrade":  {"atomic", "force", "recreate-pods"},
			"rollback": {"force", "recreate-pods"},
		},
	}
}

// unknown is a name no program has, as a flag or a subcommand.
const unknown = "nope"

// Probes are the probes over the trees (the dialect's Helm's, the other
// Helm's, ours): for every command path any of them has, its help, an
// unknown flag, every flag any of them lists there or hidden names, each
// given a value ahead of --help (parsed and checked, the command not run),
// and for a parent, its bare form and an unknown subcommand.
func Probes(trees []Tree, hidden Hidden) []Probe {
	paths := map[string]bool{}
	for _, t := range trees {
		for p := range t {
			paths[p] = true
		}
	}
	var out []Probe
	for _, p := range sortedKeys(paths) {
		path := strings.Fields(p)
		with := func(kind string, args ...string) {
			out = append(out, Probe{Kind: kind, Args: append(append([]string(nil), path...), args...)})
		}
		with("help", "--help")
		with("unknown-flag", "--no-such-flag")
		if isParent(trees, p) {
			if p != "" {
				with("bare-parent")
			}
			with("unknown-subcommand", unknown)
		}
		longs, shorts := flagsAt(trees, p)
		for _, f := range hidden.Flags[p] {
			longs[f] = true
		}
		for _, f := range sortedKeys(longs) {
			with("flag", "--"+f+"=1", "--help")
		}
		for _, f := range sortedKeys(shorts) {
			with("flag", "-"+f+"=1", "--help")
		}
	}
	return out
}

// Sample is n of the probes drawn by seed (all of them when n is negative or
// at least their number), in their order.
func Sample(probes []Probe, n int, seed uint64) []Probe {
	if n < 0 || n >= len(probes) {
		return probes
	}
	r := rand.New(rand.NewPCG(seed, 0x636d64))
	picked := r.Perm(len(probes))[:n]
	sort.Ints(picked)
	out := make([]Probe, n)
	for i, j := range picked {
		out[i] = probes[j]
	}
	return out
}

// Under are the probes of the command paths in paths and below them (all
// of them when paths is empty).
func Under(probes []Probe, paths []string) []Probe {
	if len(paths) == 0 {
		return probes
	}
	var out []Probe
	for _, p := range probes {
		for _, path := range paths {
			if p.under(strings.Fields(path)) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// under reports whether the probe's command path starts with path.
func (p Probe) under(path []string) bool {
	if len(path) > len(p.Args) {
		return false
	}
	for i, w := range path {
		if p.Args[i] != w {
			return false
		}
	}
	return true
}

// isParent reports whether any tree lists subcommands at path p.
func isParent(trees []Tree, p string) bool {
	for _, t := range trees {
		if h, ok := t[p]; ok && len(h.Commands) > 0 {
			return true
		}
	}
	return false
}

// flagsAt are the long and short names of the flags any tree lists at p
// (the root's are the global ones), and of global flags only some command
// below the root has.
func flagsAt(trees []Tree, p string) (map[string]bool, map[string]bool) {
	longs, shorts := map[string]bool{}, map[string]bool{}
	add := func(f Flag) {
		longs[f.Long] = true
		if f.Short != "" {
			shorts[f.Short] = true
		}
	}
	for _, t := range trees {
		h, ok := t[p]
		if !ok {
			continue
		}
		for _, f := range h.Flags {
			add(f)
		}
		root := t[""]
		for _, f := range h.Globals {
			if !hasFlag(root.Flags, f.Long) {
				add(f)
			}
		}
	}
	return longs, shorts
}

func hasFlag(fs []Flag, long string) bool {
	for _, f := range fs {
		if f.Long == long {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
