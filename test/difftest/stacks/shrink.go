package stacks

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/shrinker"
)

// stateFile is the state file helmfile and we find by default.
const stateFile = "helmfile.yaml.gotmpl"

// Shrink returns the smallest case it finds for which keeps holds, trying at
// most budget candidates. In turn it drops releases (and the needs naming
// them), flag groups (-e, -l, --include-needs), files no other file names
// any more (a values file, a chart) and a chart's files but its Chart.yaml,
// sections of any file (a key or a list
// item with what belongs to it: an environment, a base, a values entry, set,
// setString, needs, labels, installed) and single lines. Which candidates
// are still valid input that shows the same difference is keeps' call.
func Shrink(ctx context.Context, c Case, keeps shrinker.Keeps[Case], budget int) Case {
	s := shrinker.New(keeps, budget, Case.Clone)
	text := shrinker.Text[Case]{
		Count: func(c Case) int { return len(c.Files) },
		Get:   func(c Case, i int) string { return c.Files[fileNames(c)[i]] },
		Set:   func(c *Case, i int, data string) { c.Files[fileNames(*c)[i]] = data },
	}
	dropReleases := func(ctx context.Context, c Case) (Case, bool) {
		return s.DropEach(ctx, c, func(c Case) int { return len(releases(c.Files[stateFile])) }, dropRelease)
	}
	dropFlags := func(ctx context.Context, c Case) (Case, bool) {
		return s.DropEach(ctx, c, func(c Case) int { return len(flagGroups(c.Args)) }, func(c *Case, i int) {
			g := flagGroups(c.Args)[i]
			c.Args = slices.Delete(c.Args, g[0], g[1])
		})
	}
	dropFiles := func(ctx context.Context, c Case) (Case, bool) {
		return s.DropEach(ctx, c, func(c Case) int { return len(droppable(c)) }, func(c *Case, i int) {
			unit := droppable(*c)[i]
			for name := range c.Files {
				if name == unit || strings.HasPrefix(name, unit+"/") {
					delete(c.Files, name)
				}
			}
		})
	}
	dropSections := func(ctx context.Context, c Case) (Case, bool) { return s.DropSpans(ctx, c, text, sectionEnd) }
	dropLines := func(ctx context.Context, c Case) (Case, bool) { return s.DropLines(ctx, c, text) }
	return s.Run(ctx, c, dropReleases, dropFlags, dropFiles, dropSections, dropLines)
}

// Clone copies a case: a shrinker changes the copy.
func (c Case) Clone() Case {
	return Case{Files: maps.Clone(c.Files), Args: slices.Clone(c.Args)}
}

// fileNames are a case's files, the state file first, then by name.
func fileNames(c Case) []string {
	names := slices.Sorted(maps.Keys(c.Files))
	if i := slices.Index(names, stateFile); i > 0 {
		names = append(append([]string{stateFile}, names[:i]...), names[i+1:]...)
	}
	return names
}

// sectionEnd is the index after the last line of the section that starts at
// line i: the lines below it that are more indented (or blank) and, below a
// key, the items of its list written at the key's own indentation, as
// helmfile's files do ("values:\n- a.yaml").
func sectionEnd(lines []string, i int) int {
	ind := shrinker.Indent(lines[i])
	key := !isItem(lines[i])
	j := i + 1
	for j < len(lines) {
		l := lines[j]
		in := strings.TrimSpace(l) == "" || shrinker.Indent(l) > ind || key && shrinker.Indent(l) == ind && isItem(l)
		if !in {
			break
		}
		j++
	}
	return j
}

func isItem(l string) bool {
	t := strings.TrimLeft(l, " \t")
	return strings.HasPrefix(t, "- ") || strings.TrimSpace(t) == "-"
}

// releases are the line numbers of the state file's releases, the list
// items `- name: X` at the left margin.
func releases(state string) []int {
	var at []int
	for i, l := range strings.SplitAfter(state, "\n") {
		if strings.HasPrefix(l, "- name: ") {
			at = append(at, i)
		}
	}
	return at
}

// dropRelease drops release i from the state file, the needs naming it and
// needs lists left empty.
func dropRelease(c *Case, i int) {
	lines := strings.SplitAfter(c.Files[stateFile], "\n")
	start := releases(c.Files[stateFile])[i]
	name := strings.TrimSpace(strings.TrimPrefix(lines[start], "- name: "))
	lines = slices.Delete(lines, start, sectionEnd(lines, start))
	lines = slices.DeleteFunc(lines, func(l string) bool {
		t := strings.TrimSpace(l)
		return isItem(l) && (t == "- "+name || strings.HasSuffix(t, "/"+name))
	})
	for k := len(lines) - 1; k >= 0; k-- {
		if strings.TrimSpace(lines[k]) == "needs:" && sectionEnd(lines, k) == k+1 {
			lines = slices.Delete(lines, k, k+1)
		}
	}
	c.Files[stateFile] = strings.Join(lines, "")
}

// flagGroups are the spans of args that are one flag: a flag with the words
// after it that are not flags (-e ENV, -l SELECTOR, --include-needs).
func flagGroups(args []string) [][2]int {
	var groups [][2]int
	for i := 0; i < len(args); {
		j := i + 1
		if !strings.Contains(args[i], "=") {
			for j < len(args) && !strings.HasPrefix(args[j], "-") {
				j++
			}
		}
		groups = append(groups, [2]int{i, j})
		i = j
	}
	return groups
}

// droppable are the files of c a shrinker may drop whole: a chart no other
// file names (by its directory, the one holding Chart.yaml), any other file
// no other file names, and the files of a chart named other than its
// Chart.yaml (a chart finds them by where they are). Never the state file.
func droppable(c Case) []string {
	var units []string
	for _, name := range slices.Sorted(maps.Keys(c.Files)) {
		chart := chartOf(c, name)
		switch {
		case name == stateFile:
		case chart == "":
			if !named(c, name) {
				units = append(units, name)
			}
		case !named(c, chart):
			if !slices.Contains(units, chart) {
				units = append(units, chart)
			}
		case name != chart+"/Chart.yaml":
			units = append(units, name)
		}
	}
	return units
}

// chartOf is the outermost directory above name holding a Chart.yaml, "" if none.
func chartOf(c Case, name string) string {
	chart := ""
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if _, ok := c.Files[dir+"/Chart.yaml"]; ok {
			chart = dir
		}
	}
	return chart
}

// named reports whether a file other than unit and those under it names unit.
func named(c Case, unit string) bool {
	for name, data := range c.Files {
		if name != unit && !strings.HasPrefix(name, unit+"/") && strings.Contains(data, unit) {
			return true
		}
	}
	return false
}
