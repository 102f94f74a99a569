package release

import (
	"sort"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonobj"
)

// Release is one revision of a release. JSON names are Helm's storage format.
type Release struct {
	Name      string         `json:"name,omitempty"`
	Info      *Info          `json:"info,omitempty"`
	Chart     *chart.Chart   `json:"chart,omitempty"`
	Config    map[string]any `json:"config,omitempty"`
	Manifest  string         `json:"manifest,omitempty"`
	Hooks     []*Hook        `json:"hooks,omitempty"`
	Version   int            `json:"version,omitempty"`
	Namespace string         `json:"namespace,omitempty"`
	// Labels are the user's labels (--labels), kept on the storage object, not in
	// the record.
	Labels map[string]string `json:"-"`
	// StorageLabels are all the labels of the storage object the revision
	// was read from, Helm's own (name, owner, status, version, modifiedAt)
	// included, as Helm 4's get metadata shows them; stores write their
	// labels from Labels and the revision, and keep createdAt from these on
	// update, as Helm does with the labels of a revision it read.
	StorageLabels map[string]string `json:"-"`
	// ApplyMethod is how the revision's objects are applied, as Helm 4
	// records it ("ssa" or "csa"); empty in records of Helm 3, which Helm 4
	// takes as client-side apply.
	ApplyMethod ApplyMethod `json:"apply_method,omitempty"`
	// SequencingInfo says whether the revision was deployed in order
	// (HIP-0025); uninstall and rollback follow it. Helm 3 and 4 ignore it.
	SequencingInfo *SequencingInfo `json:"sequencing_info,omitempty"`

	// rest is what the record held beyond these fields; see json.go.
	rest jsonobj.Rest
}

// SequencingInfo is how a revision was sequenced, as HIP-0025's proposed
// implementation records it.
type SequencingInfo struct {
	Enabled bool `json:"enabled"`
	// Strategy is the wait strategy that sequenced it: "ordered".
	Strategy string `json:"strategy,omitempty"`
}

// Sequenced reports whether the revision was deployed in order.
func (r *Release) Sequenced() bool {
	return r != nil && r.SequencingInfo != nil && r.SequencingInfo.Enabled
}

// ApplyMethod is how a revision's objects are applied, with Helm 4's names.
type ApplyMethod string

// Apply methods.
const (
	ApplyServerSide ApplyMethod = "ssa"
	ApplyClientSide ApplyMethod = "csa"
)

// Info is what happened to a revision.
type Info struct {
	FirstDeployed Time   `json:"first_deployed,omitempty"`
	LastDeployed  Time   `json:"last_deployed,omitempty"`
	Deleted       Time   `json:"deleted"`
	Description   string `json:"description,omitempty"`
	Status        Status `json:"status,omitempty"`
	// RollbackRevision is the revision a rollback deployed again (Helm 4); 0
	// for other revisions.
	RollbackRevision int    `json:"rollback_revision,omitempty"`
	Notes            string `json:"notes,omitempty"`
	// Resources are live objects by kind, filled for `status --show-resources`.
	Resources map[string][]map[string]any `json:"resources,omitempty"`

	rest jsonobj.Rest // see json.go
}

// SetStatus sets the status and its description.
func (r *Release) SetStatus(s Status, description string) {
	if r.Info == nil {
		r.Info = &Info{}
	}
	r.Info.Status = s
	r.Info.Description = description
}

// Summary is what listing shows of a revision; stores provide it without decoding
// the whole record where they can.
type Summary struct {
	Name         string
	Namespace    string
	Revision     int
	Status       Status
	Updated      Time
	Chart        string // name-version, e.g. "nginx-1.2.3"
	AppVersion   string
	Description  string
	Labels       map[string]string
	FirstApplied Time
	// RollbackRevision is the revision a rollback deployed again, 0 otherwise.
	RollbackRevision int
	// Partial marks a summary made from storage labels alone (a listing that
	// asked for no decoding): only Name, Namespace, Revision, Status and Labels
	// are known.
	Partial bool
}

// Summarize derives the summary of a decoded release.
func (r *Release) Summarize() Summary {
	s := Summary{Name: r.Name, Namespace: r.Namespace, Revision: r.Version, Labels: r.Labels}
	if r.Info != nil {
		s.Status, s.Updated, s.Description, s.FirstApplied = r.Info.Status, r.Info.LastDeployed, r.Info.Description, r.Info.FirstDeployed
		s.RollbackRevision = r.Info.RollbackRevision
	}
	if r.Chart != nil && r.Chart.Metadata != nil {
		s.Chart = r.Chart.Metadata.Name + "-" + r.Chart.Metadata.Version
		s.AppVersion = r.Chart.Metadata.AppVersion
	}
	return s
}

// SortSummaries orders a listing by namespace, name and revision.
func SortSummaries(sums []Summary) {
	sort.Slice(sums, func(i, j int) bool {
		a, b := sums[i], sums[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Revision < b.Revision
	})
}
