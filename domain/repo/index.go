// Package repo models chart repositories: the index.yaml file a repository serves,
// lookups and searches in it, and the repositories file naming the repositories in use.
package repo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// APIVersionV1 is the only index.yaml API version.
const APIVersionV1 = "v1"

// DefaultMaxIndexSize caps how much of an index.yaml is read.
const DefaultMaxIndexSize int64 = 100 << 20

// Errors callers branch on.
var (
	ErrEmptyIndex     = errors.New("empty index.yaml file")
	ErrNoAPIVersion   = errors.New("no API version specified")
	ErrNoChartName    = errors.New("no chart name found")
	ErrNoChartVersion = errors.New("no chart version found")
	ErrIndexTooLarge  = errors.New("index.yaml is too large")
)

// Index is a repository's index.yaml.
type Index struct {
	ServerInfo  map[string]any           `json:"serverInfo,omitempty"`
	APIVersion  string                   `json:"apiVersion"`
	Generated   time.Time                `json:"generated"`
	Entries     map[string]ChartVersions `json:"entries"`
	PublicKeys  []string                 `json:"publicKeys,omitempty"`
	Annotations map[string]string        `json:"annotations,omitempty"`
}

// ChartVersion is one version of a chart in an index.
type ChartVersion struct {
	*chart.Metadata
	URLs    []string  `json:"urls"`
	Created time.Time `json:"created,omitempty"`
	Removed bool      `json:"removed,omitempty"`
	Digest  string    `json:"digest,omitempty"`

	// Fields older indexes carry; kept so such indexes parse and round-trip.
	ChecksumDeprecated      string `json:"checksum,omitempty"`
	EngineDeprecated        string `json:"engine,omitempty"`
	TillerVersionDeprecated string `json:"tillerVersion,omitempty"`
	URLDeprecated           string `json:"url,omitempty"`
}

// ChartVersions lists a chart's versions, newest first once sorted.
type ChartVersions []*ChartVersion

// Warning is an index entry skipped while parsing, with the reason.
type Warning struct {
	Chart, Version, Reason string
}

func (w Warning) String() string {
	return fmt.Sprintf("skipping chart %q version %q: %s", w.Chart, w.Version, w.Reason)
}

// NewIndex returns an empty index.
func NewIndex(now time.Time) *Index {
	return &Index{APIVersion: APIVersionV1, Generated: now, Entries: map[string]ChartVersions{}, PublicKeys: []string{}}
}

// ParseIndex reads an index.yaml (YAML or JSON). source names it in messages. Entries
// whose version is not SemVer or whose metadata is invalid are skipped and reported as
// warnings, as Helm does, so one bad entry does not make a whole repository unusable;
// duplicate keys, a chart version listed twice, truncated or oversize input are errors.
func ParseIndex(data []byte, source string) (*Index, []Warning, error) {
	return ParseIndexLimit(data, source, DefaultMaxIndexSize)
}

// ParseIndexLimit is ParseIndex refusing input over limit bytes.
func ParseIndexLimit(data []byte, source string, limit int64) (*Index, []Warning, error) {
	if int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", source, ErrIndexTooLarge, len(data), limit)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, fmt.Errorf("%s: %w", source, ErrEmptyIndex)
	}
	js := data
	if !json.Valid(data) {
		var err error
		// Strict conversion refuses duplicate keys, which would silently shadow entries.
		js, err = yaml.YAMLToJSONStrict(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: invalid index: %w", source, err)
		}
	}
	idx := &Index{}
	if err := json.Unmarshal(js, idx); err != nil {
		return nil, nil, fmt.Errorf("%s: invalid index: %w", source, err)
	}
	if idx.APIVersion == "" {
		return nil, nil, fmt.Errorf("%s: %w (truncated or not an index.yaml?)", source, ErrNoAPIVersion)
	}
	if idx.Entries == nil {
		idx.Entries = map[string]ChartVersions{}
	}
	var warnings []Warning
	for name, cvs := range idx.Entries {
		kept := cvs[:0]
		seen := map[string]bool{}
		for _, cv := range cvs {
			if cv == nil {
				warnings = append(warnings, Warning{Chart: name, Reason: "empty entry"})
				continue
			}
			if cv.Metadata == nil {
				cv.Metadata = &chart.Metadata{}
			}
			if cv.APIVersion == "" {
				cv.APIVersion = chart.APIVersionV1
			}
			if err := cv.Validate(); err != nil && !skippable(err) {
				warnings = append(warnings, Warning{Chart: name, Version: cv.Version, Reason: err.Error()})
				continue
			}
			v, _ := semver.NewVersion(cv.Version)
			key := cv.Version
			if v != nil {
				key = v.String()
			}
			if seen[key] {
				return nil, warnings, fmt.Errorf("%s: chart %q lists version %q more than once", source, name, cv.Version)
			}
			seen[key] = true
			kept = append(kept, cv)
		}
		idx.Entries[name] = kept
	}
	idx.SortEntries()
	sort.Slice(warnings, func(i, j int) bool {
		if warnings[i].Chart != warnings[j].Chart {
			return warnings[i].Chart < warnings[j].Chart
		}
		return warnings[i].Version < warnings[j].Version
	})
	return idx, warnings, nil
}

// skippable reports validation errors that do not matter for an index: indexes are
// often written by other tools with names or fields Chart.yaml validation rejects.
func skippable(err error) bool {
	var ve chart.ValidationError
	if !errors.As(err, &ve) {
		return false
	}
	s := string(ve)
	return strings.Contains(s, "dependency") || strings.Contains(s, "maintainers") || strings.Contains(s, "chart.metadata.type")
}

// Marshal writes the index as YAML.
func (i *Index) Marshal() ([]byte, error) { return yaml.Marshal(i) }

// SortEntries orders each chart's versions newest first.
func (i *Index) SortEntries() {
	for _, cvs := range i.Entries {
		sort.SliceStable(cvs, func(a, b int) bool { return olderVersion(cvs[b], cvs[a]) })
	}
}

// olderVersion orders versions by SemVer; a version that is not SemVer comes
// before every one that is, and by text among its kind.
func olderVersion(a, b *ChartVersion) bool {
	va, erra := semver.NewVersion(a.Version)
	vb, errb := semver.NewVersion(b.Version)
	if erra != nil || errb != nil {
		return erra == nil && errb != nil || erra != nil && errb != nil && a.Version < b.Version
	}
	return va.LessThan(vb)
}

// Has reports whether the index holds name at exactly version.
func (i *Index) Has(name, version string) bool {
	_, err := i.Get(name, version)
	return err == nil
}

// Get returns the newest version of name matching constraint ("" means the newest
// stable release; an exact version or a SemVer range works too).
func (i *Index) Get(name, constraint string) (*ChartVersion, error) {
	return i.get(name, constraint, false)
}

// GetDevel is Get with prereleases considered when no constraint is given.
func (i *Index) GetDevel(name, constraint string) (*ChartVersion, error) {
	return i.get(name, constraint, true)
}

func (i *Index) get(name, constraint string, devel bool) (*ChartVersion, error) {
	vs, ok := i.Entries[name]
	if !ok || len(vs) == 0 {
		return nil, ErrNoChartName
	}
	var c *semver.Constraints
	switch {
	case constraint == "" && devel:
		c, _ = semver.NewConstraint(DevelConstraint)
	case constraint == "":
		c, _ = semver.NewConstraint("*")
	default:
		var err error
		c, err = semver.NewConstraint(constraint)
		if err != nil {
			// Not a range: an exact version string, as some repositories use.
			for _, cv := range vs {
				if cv.Version == constraint {
					return cv, nil
				}
			}
			return nil, noVersionError(name, constraint, "")
		}
	}
	for _, cv := range vs {
		if constraint != "" && cv.Version == constraint {
			return cv, nil
		}
		v, err := semver.NewVersion(cv.Version)
		if err != nil {
			continue
		}
		if c.Check(v) {
			return cv, nil
		}
	}
	if constraint == "" && devel {
		return nil, noVersionError(name, DevelConstraint, "")
	}
	if constraint == "" {
		return nil, noVersionError(name, constraint, "\nonly prereleases of the chart exist: use --devel to consider them")
	}
	return nil, noVersionError(name, constraint, "")
}

// DevelConstraint is the version constraint --devel stands for.
const DevelConstraint = ">0.0.0-0"

// noVersionError is ErrNoChartVersion in Helm's words (NAME-CONSTRAINT),
// with more said on a second line when more is useful.
func noVersionError(name, constraint, more string) error {
	return fmt.Errorf("%w for %s-%s%s", ErrNoChartVersion, name, constraint, more)
}

// Add records a chart version served at url (relative names are joined to baseURL).
func (i *Index) Add(md *chart.Metadata, filename, baseURL, digest string, created time.Time) error {
	u := filename
	if baseURL != "" {
		u = strings.TrimSuffix(baseURL, "/") + "/" + path.Base(filename)
		if strings.Contains(filename, "/") {
			u = strings.TrimSuffix(baseURL, "/") + "/" + strings.TrimPrefix(filename, "/")
		}
	}
	cv := &ChartVersion{Metadata: md, URLs: []string{u}, Digest: digest, Created: created}
	if i.Entries == nil {
		i.Entries = map[string]ChartVersions{}
	}
	i.Entries[md.Name] = append(i.Entries[md.Name], cv)
	return nil
}

// Merge adds f's versions that i lacks.
func (i *Index) Merge(f *Index) {
	for name, cvs := range f.Entries {
		for _, cv := range cvs {
			if !i.Has(name, cv.Version) {
				i.Entries[name] = append(i.Entries[name], cv)
			}
		}
	}
}

// ResolveURL makes a chart URL from an index absolute against the repository's URL.
func ResolveURL(repoURL, chartURL string) (string, error) {
	ref, err := url.Parse(chartURL)
	if err != nil {
		return "", fmt.Errorf("invalid chart URL %q: %w", chartURL, err)
	}
	if ref.IsAbs() {
		return chartURL, nil
	}
	base, err := url.Parse(repoURL)
	if err != nil {
		return "", fmt.Errorf("invalid repository URL %q: %w", repoURL, err)
	}
	base.Path = strings.TrimSuffix(base.Path, "/") + "/"
	return base.ResolveReference(ref).String(), nil
}

// Digest is the sha256 of a chart archive, as index.yaml records it.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
