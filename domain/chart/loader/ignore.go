package loader

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
)

// ignoreFile is the name of the file that lists paths to leave out of a chart directory.
const ignoreFile = ".helmignore"

// ignoreRules is a parsed .helmignore: shell globs matched against slash paths
// relative to the chart root, with Helm's rules for leading "/", trailing "/"
// (directories only) and "!" (negation).
type ignoreRules struct {
	patterns []ignorePattern
}

type ignorePattern struct {
	glob    string
	negate  bool
	mustDir bool
	// scope: rooted and slashed patterns match the whole path, others the base name.
	wholePath bool
}

// defaultIgnoreRules leaves dotfiles in templates/ out, as Helm always does.
func defaultIgnoreRules() []string { return []string{"templates/.?*"} }

func parseIgnore(data []byte) (*ignoreRules, error) {
	r := &ignoreRules{}
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	line := 0
	for sc.Scan() {
		line++
		if err := r.add(sc.Text()); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", ignoreFile, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", ignoreFile, err)
	}
	return r, nil
}

func (r *ignoreRules) add(rule string) error {
	rule = strings.TrimSpace(rule)
	if rule == "" || strings.HasPrefix(rule, "#") {
		return nil
	}
	if strings.Contains(rule, "**") {
		return errors.New("double-star (**) syntax is not supported")
	}
	if _, err := path.Match(rule, "abc"); err != nil {
		return err
	}
	p := ignorePattern{}
	if strings.HasPrefix(rule, "!") {
		p.negate = true
		rule = rule[1:]
	}
	if strings.HasSuffix(rule, "/") {
		p.mustDir = true
		rule = strings.TrimSuffix(rule, "/")
	}
	switch {
	case strings.HasPrefix(rule, "/"):
		p.wholePath = true
		rule = strings.TrimPrefix(rule, "/")
	case strings.Contains(rule, "/"):
		p.wholePath = true
	}
	p.glob = rule
	r.patterns = append(r.patterns, p)
	return nil
}

func (p ignorePattern) match(name string) bool {
	if !p.wholePath {
		name = path.Base(name)
	}
	ok, err := path.Match(p.glob, name)
	return err == nil && ok
}

// ignored reports whether the path is left out. A negated pattern that does not
// match ignores the path: that is how Helm reads "!pattern".
func (r *ignoreRules) ignored(name string, isDir bool) bool {
	if name == "" || name == "." || name == "./" {
		return false
	}
	for _, p := range r.patterns {
		if p.negate {
			if p.mustDir && !isDir {
				return true
			}
			if !p.match(name) {
				return true
			}
			continue
		}
		if p.mustDir && !isDir {
			continue
		}
		if p.match(name) {
			return true
		}
	}
	return false
}
