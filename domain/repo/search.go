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

// Search looks for charts in the indexes, keyed by repository name. Results come
// best match first, then by name, newest version first.
func Search(indexes map[string]*Index, q SearchQuery) ([]SearchResult, error) {
	var match func(string) bool
	switch {
	case q.Term == "":
		match = func(string) bool { return true }
	case q.Regexp:
		re, err := regexp.Compile("(?i)" + q.Term)
		if err != nil {
			return nil, fmt.Errorf("invalid search regexp %q: %w", q.Term, err)
		}
		match = re.MatchString
	default:
		t := strings.ToLower(q.Term)
		match = func(s string) bool { return strings.Contains(strings.ToLower(s), t) }
	}
	constraint := q.Version
	if constraint == "" {
		constraint = ">=0.0.0"
		if q.Devel {
			constraint = ">=0.0.0-0"
		}
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return nil, fmt.Errorf("invalid version constraint %q: %w", q.Version, err)
	}

	var out []SearchResult
	for repoName, idx := range indexes {
		for chartName, cvs := range idx.Entries {
			full := repoName + "/" + chartName
			for _, cv := range cvs {
				score := 0
				switch {
				case match(full):
				case match(cv.Description):
					score = 10
				case match(strings.Join(cv.Keywords, " ")):
					score = 20
				default:
					continue
				}
				v, err := semver.NewVersion(cv.Version)
				if err != nil || !c.Check(v) {
					continue
				}
				out = append(out, SearchResult{Name: full, Score: score, Chart: cv})
				if !q.AllVersions {
					break
				}
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
		va, _ := semver.NewVersion(a.Chart.Version)
		vb, _ := semver.NewVersion(b.Chart.Version)
		return va.GreaterThan(vb)
	})
	return out, nil
}
