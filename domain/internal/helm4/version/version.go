// Package version holds .Capabilities.HelmVersion's type under Helm 4's name for it
// (version.BuildInfo), so that typeOf and text/template's type errors read as in Helm 4.
package version

// BuildInfo is Helm 4's build information: kube_client_version is always serialised.
type BuildInfo struct {
	Version           string `json:"version,omitempty"`
	GitCommit         string `json:"git_commit,omitempty"`
	GitTreeState      string `json:"git_tree_state,omitempty"`
	GoVersion         string `json:"go_version,omitempty"`
	KubeClientVersion string `json:"kube_client_version"`
}
