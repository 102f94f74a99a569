// Package version holds .Capabilities.HelmVersion's type under Helm 3's name for it
// (version.BuildInfo), so that typeOf and text/template's type errors read as in Helm 3.
package version

// BuildInfo describes the Helm version; JSON names as Helm 3's.
type BuildInfo struct {
	Version      string `json:"version,omitempty"`
	GitCommit    string `json:"git_commit,omitempty"`
	GitTreeState string `json:"git_tree_state,omitempty"`
	GoVersion    string `json:"go_version,omitempty"`
}
