package helmrecord

import (
	"strconv"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// Labels Helm puts on every release object. They are "system" labels: Helm and
// kubectl-chart strip them when handing the user's labels back.
const (
	LabelName       = "name"
	LabelOwner      = "owner"
	LabelStatus     = "status"
	LabelVersion    = "version"
	LabelCreatedAt  = "createdAt"
	LabelModifiedAt = "modifiedAt"

	// Owner is the value of the owner label; Helm lists objects by owner=helm.
	Owner = "helm"
)

// IsSystemLabel reports whether a label is one Helm manages.
func IsSystemLabel(key string) bool {
	switch key {
	case LabelName, LabelOwner, LabelStatus, LabelVersion, LabelCreatedAt, LabelModifiedAt:
		return true
	}
	return false
}

// UserLabels returns the labels that are not system labels, nil when none are.
func UserLabels(all map[string]string) map[string]string {
	var out map[string]string
	for k, v := range all {
		if IsSystemLabel(k) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// StorageLabels are the labels of a revision's storage object: the user's labels,
// then Helm's name, owner, status and version (which win over user labels of the
// same key, as in Helm). createdAt/modifiedAt are the caller's to add.
func StorageLabels(r *release.Release) map[string]string {
	out := make(map[string]string, len(r.Labels)+6)
	for k, v := range r.Labels {
		if !IsSystemLabel(k) {
			out[k] = v
		}
	}
	out[LabelName] = r.Name
	out[LabelOwner] = Owner
	status := release.StatusUnknown
	if r.Info != nil && r.Info.Status != "" {
		status = r.Info.Status
	}
	out[LabelStatus] = string(status)
	out[LabelVersion] = strconv.Itoa(r.Version)
	return out
}

// ObjectName is the storage object's name, as Helm names it.
func ObjectName(name string, revision int) string {
	return "sh.helm.release.v1." + name + ".v" + strconv.Itoa(revision)
}
