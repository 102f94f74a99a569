// Package stack holds a stack: many releases, possibly across clusters, read
// from one state file (helmfile's format) and resolved — templates rendered,
// environments and bases layered, defaults applied, needs named by release
// identity — so that planning and applying never look at the file again.
package stack

import (
	"fmt"
	"time"
)

// Stack is a resolved state file: the releases it selects, in file order, and
// the repositories their charts come from.
type Stack struct {
	// Environment is the environment the file was resolved for ("default"
	// unless chosen).
	Environment  string
	Repositories []Repository
	Releases     []Release
	// Notes are what reading the file has to say about a group of releases,
	// said when the group is worked on (helmfile's warnings of needs on
	// releases not installed).
	Notes []Note
}

// Note is one thing to say before working on a group of releases.
type Note struct {
	Group int
	Text  string
}

// ID names a release across clusters: helmfile's needs forms
// (`name`, `namespace/name`, `context/namespace/name`) resolve to one.
type ID struct {
	KubeContext string `json:"kubeContext,omitempty"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
}

// String prints the ID in helmfile's `[context/]namespace/name` form.
func (id ID) String() string {
	if id.KubeContext != "" {
		return fmt.Sprintf("%s/%s/%s", id.KubeContext, id.Namespace, id.Name)
	}
	return id.Namespace + "/" + id.Name
}

// Release is one release of a stack with everything needed to plan it.
type Release struct {
	ID ID
	// Chart is as written: a local path (relative paths already joined to the
	// state file's directory), `repo/chart`, or `oci://...`.
	Chart string
	// ChartAsWritten is the chart as the state file wrote it, cleaned
	// (helmfile prints it so in its progress lines).
	ChartAsWritten string
	Version        string
	// Values are the values documents in helmfile's order (files, then inline
	// entries), each already rendered; later ones override earlier ones.
	Values [][]byte
	// Set and SetString are `--set` / `--set-string` entries in order.
	Set       []SetValue
	SetString []SetValue
	// Needs are the releases this one waits for, resolved.
	Needs []ID
	// NeedsUninstalled are the Needs the file marks installed: false, found
	// over every release of the file, selected or not (helmfile warns of them
	// when it loads the file and again when it renders this release).
	NeedsUninstalled []ID
	// Wave is the release's depth in needs over every release of the file,
	// selected or not (0: needs nothing): helmfile runs wave by wave.
	Wave int
	// Group is the state file the release comes from, numbered in the order
	// helmfile works on them: a sub-helmfile's before the file naming it.
	Group  int
	Labels map[string]string
	// Installed false means the release must not exist: planned as an
	// uninstall when it does, nothing otherwise.
	Installed       bool
	CreateNamespace bool
	Wait            bool
	WaitForJobs     bool
	Timeout         time.Duration
	// Source names where the release was declared (file:line), for errors.
	Source string
}

// SetValue is one `--set`-style entry.
type SetValue struct {
	Name  string
	Value string
}

// Repository is a chart repository a release's chart may name.
type Repository struct {
	Name string
	URL  string
	// OCI marks a registry: charts are pulled as oci://URL/chart.
	OCI      bool
	Username string
	Password string `json:"-"`
	// Group is the state file that declared it first (Release.Group):
	// helmfile adds a repository when it first works on a file naming it.
	Group int `json:"-"`
}
