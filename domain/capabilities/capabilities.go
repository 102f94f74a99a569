// Package capabilities describes what the target cluster offers, as templates see it
// in .Capabilities: the Kubernetes version, the API versions and the Helm version
// whose behaviour kubectl-chart reproduces.
package capabilities

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chartutil"
	helm3version "github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/version"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/common"
	helm4version "github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/version"
)

// HelmCompatVersion is the Helm 3 release whose template behaviour kubectl-chart
// follows in the Helm 3 dialect; dialect.Dialect.HelmVersion names each dialect's.
const HelmCompatVersion = "v3.22.0"

// defaultKubeMinor is the Kubernetes minor version assumed when no cluster is asked
// and no --kube-version is given: the one both Helm releases were built for. It is
// also Helm 4's kube_client_version.
const defaultKubeMinor = "37"

// Capabilities describe the target cluster. Templates see them through
// ForTemplates, in the shape of the dialect's Helm release.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion BuildInfo
}

// KubeVersion is the Kubernetes version, e.g. Version "v1.31.0", Major "1", Minor "31".
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
	// normalized is the version as Helm 4 compares it ("v1.31.2" for a given
	// "1.31.2-gke.1"); empty for a version a cluster reported, which Helm
	// compares as it is.
	normalized string
}

// String is the full version.
func (kv *KubeVersion) String() string { return kv.Version }

// GitVersion is the full version; kept for charts written against Helm 2.
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// Normalized is the version Helm 4 checks a chart's kubeVersion constraint against
// (and prints as .Capabilities.KubeVersion): the version it understood from a
// --kube-version, the version as reported by a cluster.
func (kv *KubeVersion) Normalized() string {
	if kv.normalized != "" {
		return kv.normalized
	}
	return kv.Version
}

// BuildInfo describes the Helm version; JSON names as Helm's.
type BuildInfo struct {
	Version      string `json:"version,omitempty"`
	GitCommit    string `json:"git_commit,omitempty"`
	GitTreeState string `json:"git_tree_state,omitempty"`
	GoVersion    string `json:"go_version,omitempty"`
}

// VersionSet is a list of "group/version" and "group/version/Kind" strings.
type VersionSet []string

// Has reports whether the set holds apiVersion exactly.
func (v VersionSet) Has(apiVersion string) bool { return slices.Contains(v, apiVersion) }

// Default returns the capabilities used when no cluster is consulted.
func Default(goVersion string) *Capabilities {
	v := "v1." + defaultKubeMinor + ".0"
	return &Capabilities{
		KubeVersion: KubeVersion{Version: v, Major: "1", Minor: defaultKubeMinor, normalized: v},
		APIVersions: defaultAPIVersions(),
		HelmVersion: BuildInfo{Version: HelmCompatVersion, GitTreeState: "clean", GoVersion: goVersion},
	}
}

// ParseKubeVersion reads a version such as "1.31", "v1.31.0" or "1.31.0-gke.1" as
// Helm 3's --kube-version does: Version is the version understood ("v1.31.0").
func ParseKubeVersion(s string) (*KubeVersion, error) {
	v, err := version.ParseGeneric(s)
	if err != nil {
		return nil, err
	}
	return &KubeVersion{
		Version:    "v" + v.String(),
		Major:      strconv.FormatUint(uint64(v.Major()), 10),
		Minor:      strconv.FormatUint(uint64(v.Minor()), 10),
		normalized: "v" + v.String(),
	}, nil
}

// ServerKubeVersion is the version a cluster reports, kept as given, as both
// Helms keep it ("v1.30.4-eks-a737599", "1", "30+"): templates see it and
// a chart's kubeVersion constraint is checked against it. It must parse.
func ServerKubeVersion(gitVersion, major, minor string) (*KubeVersion, error) {
	if _, err := version.ParseGeneric(gitVersion); err != nil {
		return nil, err
	}
	return &KubeVersion{Version: gitVersion, Major: major, Minor: minor}, nil
}

// ParseKubeVersionFor reads a --kube-version by the dialect's rules. Helm 4 keeps
// the text given as Version (with a "v" in front: "v1.31.0-gke.1") and compares
// the version it understood ("v1.31.0").
func ParseKubeVersionFor(d dialect.Dialect, s string) (*KubeVersion, error) {
	kv, err := ParseKubeVersion(s)
	if err != nil || !d.IsHelm4() {
		return kv, err
	}
	if !strings.HasPrefix(s, "v") {
		s = "v" + s
	}
	kv.Version = s
	return kv, nil
}

// WithExtraAPIVersions returns a copy with more API versions, as --api-versions adds.
func (c *Capabilities) WithExtraAPIVersions(extra []string) *Capabilities {
	out := *c
	out.APIVersions = append(append(VersionSet{}, c.APIVersions...), extra...)
	return &out
}

// InvalidKubeVersionError is a --kube-version that cannot be parsed.
func InvalidKubeVersionError(s string, err error) error {
	return fmt.Errorf("invalid kube version '%s': %s", s, err)
}

// ForTemplates is .Capabilities as the dialect's templates see it: field for field
// the Helm release's own type, so printing or serialising it reads as in Helm.
// Helm 4's KubeVersion holds the normalised version beside Version (its String),
// and its HelmVersion names Helm 4 and the Kubernetes client it was built with.
func (c *Capabilities) ForTemplates(d dialect.Dialect) any {
	if !d.IsHelm4() {
		return &chartutil.Capabilities{
			KubeVersion: chartutil.KubeVersion{Version: c.KubeVersion.Version, Major: c.KubeVersion.Major, Minor: c.KubeVersion.Minor},
			APIVersions: chartutil.VersionSet(c.APIVersions),
			HelmVersion: helm3version.BuildInfo(c.HelmVersion),
		}
	}
	return &common.Capabilities{
		KubeVersion: common.NewKubeVersion(c.KubeVersion.Version, c.KubeVersion.normalized, c.KubeVersion.Major, c.KubeVersion.Minor),
		APIVersions: common.VersionSet(c.APIVersions),
		HelmVersion: helm4version.BuildInfo{
			Version:           d.HelmVersion(),
			GitCommit:         c.HelmVersion.GitCommit,
			GitTreeState:      c.HelmVersion.GitTreeState,
			GoVersion:         c.HelmVersion.GoVersion,
			KubeClientVersion: "v1." + defaultKubeMinor,
		},
	}
}

// HelmBuildInfo is b as the dialect's Helm holds its own build information, in
// Helm's type (version.BuildInfo), so that `version` prints it (%#v) and its
// --template sees it, errors included, as Helm does. Helm 4's also names the
// Kubernetes client it speaks.
func HelmBuildInfo(d dialect.Dialect, b BuildInfo) any {
	if !d.IsHelm4() {
		return helm3version.BuildInfo(b)
	}
	return helm4version.BuildInfo{
		Version: b.Version, GitCommit: b.GitCommit, GitTreeState: b.GitTreeState, GoVersion: b.GoVersion,
		KubeClientVersion: "v1." + defaultKubeMinor,
	}
}
