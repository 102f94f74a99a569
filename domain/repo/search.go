package repo

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// SearchResult is a chart version found by Search, named REPO/CHART.
type SearchResult struct {
	Name  string
	Score int
	Chart *ChartVersion
}

// SearchQuery selects chart versions from indexes.
type SearchQuery struct {
	// Term matches names, descriptions and keywords, case-insensitively; empty matches all.
	Term   string
	Regexp bool
	// Version is a SemVer constraint; empty means the newest release.
	Version string
	// AllVersions lists every matching version, not only the newest.
	AllVersions bool
	// Devel includes prereleases when Version is empty.
	Devel bool
}

// sep separates the fields of a search line: chart name, REPO/NAME, description, keywords.
// A match's score is the number of separators before it, so name matches rank first.
const sep = "\v"

// Search looks for charts in the indexes, keyed by repository name, the way Helm's
// `search repo` does. Results come best match first, then by name, newest version first;
// without AllVersions only the best version of each chart is kept.
func Search(indexes map[string]*Index, q SearchQuery) ([]SearchResult, error) {
	constraint := q.Version
	if constraint == "" {
		constraint = ">0.0.0"
		if q.Devel {
			constraint = ">0.0.0-0"
		}
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return nil, fmt.Errorf("an invalid version/constraint format %q: %w", q.Version, err)
	}
	var re *regexp.Regexp
	if q.Regexp && q.Term != "" {
		if re, err = regexp.Compile(q.Term); err != nil {
			// Helm's words: the regexp package's own.
			return nil, err
		}
	}
	term := strings.ToLower(q.Term)

	var out []SearchResult
	for repoName, idx := range indexes {
		for chartName, cvs := range idx.Entries {
			full := repoName + "/" + chartName
			for _, cv := range cvs {
				line := chartName + sep + full + sep + cv.Description + sep + strings.Join(cv.Keywords, " ")
				at := 0
				switch {
				case q.Term == "":
				case re != nil:
					loc := re.FindStringIndex(line)
					if loc == nil {
						continue
					}
					at = loc[0]
				default:
					at = strings.Index(strings.ToLower(line), term)
					if at < 0 {
						continue
					}
				}
				out = append(out, SearchResult{Name: full, Score: score(at, line), Chart: cv})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Score != b.Score {
			return a.Score < b.Score
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		va, erra := semver.NewVersion(a.Chart.Version)
		vb, errb := semver.NewVersion(b.Chart.Version)
		if erra != nil || errb != nil {
			return erra == nil
		}
		return va.GreaterThan(vb)
	})
	kept := out[:0]
	seen := map[string]bool{}
	for _, r := range out {
		if !q.AllVersions && seen[r.Name] {
			continue
		}
		v, err := semver.NewVersion(r.Chart.Version)
		if err != nil || !c.Check(v) {
			continue
		}
		kept = append(kept, r)
		seen[r.Name] = true
	}
	return kept, nil
}

// score counts the separators before byte offset at.
func score(at int, line string) int {
	n := 0
	for i := 0; i < len(line) && i < at; i++ {
		if line[i] == sep[0] {
			n++
		}
	}
	return n
}
