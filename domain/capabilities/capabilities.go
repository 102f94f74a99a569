// Package capabilities describes what the target cluster offers, as templates see it
// in .Capabilities: the Kubernetes version, the API versions and the Helm version
// whose behaviour kubectl-chart reproduces.
package capabilities

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/util/version"
)

// HelmCompatVersion is the Helm release whose template behaviour kubectl-chart
// follows; charts that check .Capabilities.HelmVersion see it.
const HelmCompatVersion = "v3.22.0"

// defaultKubeMinor is the Kubernetes minor version assumed when no cluster is asked
// and no --kube-version is given: the one the Helm release above was built for.
const defaultKubeMinor = "37"

// Capabilities is .Capabilities in templates.
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
}

// String is the full version.
func (kv *KubeVersion) String() string { return kv.Version }

// GitVersion is the full version; kept for charts written against Helm 2.
func (kv *KubeVersion) GitVersion() string { return kv.Version }

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
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// Default returns the capabilities used when no cluster is consulted.
func Default(goVersion string) *Capabilities {
	return &Capabilities{
		KubeVersion: KubeVersion{Version: "v1." + defaultKubeMinor + ".0", Major: "1", Minor: defaultKubeMinor},
		APIVersions: defaultAPIVersions(),
		HelmVersion: BuildInfo{Version: HelmCompatVersion, GitTreeState: "clean", GoVersion: goVersion},
	}
}

// ParseKubeVersion reads a version such as "1.31", "v1.31.0" or "1.31.0-gke.1".
func ParseKubeVersion(s string) (*KubeVersion, error) {
	v, err := version.ParseGeneric(s)
	if err != nil {
		return nil, err
	}
	return &KubeVersion{
		Version: "v" + v.String(),
		Major:   strconv.FormatUint(uint64(v.Major()), 10),
		Minor:   strconv.FormatUint(uint64(v.Minor()), 10),
	}, nil
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
