// Package release holds the release model: a chart installed under a name in a
// namespace, its revisions, hooks and status. JSON names follow Helm's release
// records so that Helm and kubectl-chart read each other's releases.
package release
