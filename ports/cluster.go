package ports

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
)

// ErrObjectNotFound is a live object that does not exist.
var ErrObjectNotFound = errors.New("object not found")

// ErrUnknownKind is a kind the cluster does not serve.
var ErrUnknownKind = errors.New("kind not served by the cluster")

// ObjectRef names one live object.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespace is empty for cluster-scoped objects.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// RefOf names an object.
func RefOf(u Object) ObjectRef {
	return ObjectRef{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return fmt.Sprintf("%s %s", r.Kind, r.Name)
	}
	return fmt.Sprintf("%s %s/%s", r.Kind, r.Namespace, r.Name)
}

// DefaultFieldManager is the field manager writes are made as when none is
// chosen: Helm's own (v4.3.1 and v3.22.0 write objects as "helm"), so that
// Helm's next server-side apply of a release we wrote meets its own fields
// rather than a conflict.
const DefaultFieldManager = "helm"

// ApplyOptions tune a server-side apply.
type ApplyOptions struct {
	// FieldManager is the field manager to apply as (kubectl's
	// --field-manager); empty is DefaultFieldManager.
	FieldManager string
	// ForceConflicts takes over fields other managers own.
	ForceConflicts bool
	// TakeOverFrom lists field managers whose fields are taken over without
	// ForceConflicts (Helm's own manager, so that releases move between
	// tools): what they wrote with updates, and with applies of a name other
	// than FieldManager, becomes FieldManager's apply, so that fields the
	// applied object no longer sets are removed.
	TakeOverFrom []string
	// DryRun asks the server to validate without persisting.
	DryRun bool
}

// Manager is the field manager o names, or DefaultFieldManager.
func (o ApplyOptions) Manager() string { return FieldManagerOr(o.FieldManager) }

// FieldManagerOr is name, or DefaultFieldManager when name is empty.
func FieldManagerOr(name string) string {
	if name == "" {
		return DefaultFieldManager
	}
	return name
}

// Propagation is how a delete treats dependents.
type Propagation string

// Propagation policies, as kubectl's --cascade names them.
const (
	PropagationBackground Propagation = "background"
	PropagationForeground Propagation = "foreground"
	PropagationOrphan     Propagation = "orphan"
)

// WaitOptions tune waiting for readiness.
type WaitOptions struct {
	// WaitForJobs waits for Jobs to complete, not only to exist.
	WaitForJobs bool
	// Completion waits for Pods and Jobs to succeed (hooks and tests): a failed
	// Pod or Job ends the wait with an error.
	Completion bool
	// Progress receives each object's status as it changes; may be nil.
	Progress func(ObjectStatus)
	// Checks decide the readiness of the objects they name instead of the
	// adapter's rules (a chart's helm.sh/readiness-success and -failure);
	// those objects are watched whatever their kind.
	Checks map[ObjectRef]ReadinessCheck
}

// ReadinessCheck tells an object's readiness from the object as it is now.
type ReadinessCheck func(Object) ObjectStatus

// ObjectStatus is what waiting knows of one object.
type ObjectStatus struct {
	Ref   ObjectRef
	Ready bool
	// Failed means the object will not become ready by itself (a failed Job).
	Failed  bool
	Message string
}

// NotReadyError lists the objects that did not become ready in time, and why.
type NotReadyError struct {
	Pending []ObjectStatus
	Err     error
}

func (e *NotReadyError) Error() string {
	msg := fmt.Sprintf("%d object(s) not ready", len(e.Pending))
	for i, s := range e.Pending {
		if i == 5 {
			msg += fmt.Sprintf("; and %d more", len(e.Pending)-i)
			break
		}
		msg += fmt.Sprintf("; %s: %s", s.Ref, s.Message)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *NotReadyError) Unwrap() error { return e.Err }

// Form is the shape a read returns objects in.
type Form int

const (
	// AsList is the objects' list, as the server sends it: kind <Kind>List,
	// its metadata and its items.
	AsList Form = iota
	// AsTable is the server's table of the objects (a meta.k8s.io/v1 Table,
	// what kubectl get prints).
	AsTable
)

// Cluster is the live Kubernetes cluster the lifecycle use cases drive.
type Cluster interface {
	// Reachable checks that the API server answers (it asks for its
	// version, as Helm does before it renders for the cluster).
	Reachable(ctx context.Context) error
	// Capabilities describes the server: its version and the API versions it serves.
	Capabilities(ctx context.Context) (*capabilities.Capabilities, error)
	// Namespaced reports whether a kind is namespaced (ErrUnknownKind if not served).
	Namespaced(ctx context.Context, apiVersion, kind string) (bool, error)
	// Apply server-side applies an object as opts' field manager and
	// returns the live object.
	Apply(ctx context.Context, obj Object, opts ApplyOptions) (Object, error)
	// Create creates an object that does not exist yet as fieldManager
	// (empty: DefaultFieldManager) and returns the live object: a create, not
	// an apply, as Helm 3 writes hooks. An object that exists is refused with
	// a *CreateError that is also ErrAlreadyExists.
	Create(ctx context.Context, obj Object, fieldManager string) (Object, error)
	// Replace writes obj whole over the live object as fieldManager (empty:
	// DefaultFieldManager) and returns it: an update (PUT) of the live
	// object's resource version, as Helm's --force and kubectl replace
	// write; fields obj does not set are dropped, whoever set them. A missing
	// object is ErrObjectNotFound; a refused one an *ApplyError.
	Replace(ctx context.Context, obj Object, fieldManager string) (Object, error)
	// Get reads one object; ErrObjectNotFound if it does not exist.
	Get(ctx context.Context, ref ObjectRef) (Object, error)
	// List reads the objects of a kind in a namespace ("" for all or for
	// cluster-scoped kinds) matching a label selector.
	List(ctx context.Context, apiVersion, kind, namespace, selector string) ([]Object, error)
	// GetTable reads the server's table of one object (a meta.k8s.io/v1
	// Table of one row); ErrObjectNotFound if it does not exist.
	GetTable(ctx context.Context, ref ObjectRef) (Object, error)
	// ListAs reads what List reads as one object in the form asked.
	ListAs(ctx context.Context, apiVersion, kind, namespace, selector string, form Form) (Object, error)
	// Delete deletes one object; ErrObjectNotFound if it does not exist.
	Delete(ctx context.Context, ref ObjectRef, propagation Propagation) error
	// WaitReady watches objects until every one is ready, one fails, or ctx ends
	// (then a *NotReadyError says what was still pending).
	WaitReady(ctx context.Context, refs []ObjectRef, opts WaitOptions) error
	// WaitDeleted watches objects until they are gone.
	WaitDeleted(ctx context.Context, refs []ObjectRef) error
	// InstallCRDs creates the CustomResourceDefinitions that do not exist yet
	// as fieldManager (empty: DefaultFieldManager; existing ones are left
	// alone, as Helm does), waits until they are established and refreshes
	// the cluster's kind mapping.
	InstallCRDs(ctx context.Context, crds []Object, fieldManager string) error
	// PodLogs copies the logs of one container of a pod to w, of every
	// container when container is "". A missing pod is ErrObjectNotFound.
	PodLogs(ctx context.Context, namespace, pod, container string, w io.Writer) error
	// ReviewAccess asks the API server which of the permissions the caller
	// lacks and returns those, with Group and Resource filled in (and
	// Namespace cleared for cluster-scoped resources), in the order asked.
	// Permissions on kinds the cluster does not serve, and that name no
	// Resource, are left out: an operation fails on such kinds by itself.
	ReviewAccess(ctx context.Context, want []Access) (denied []Access, err error)
}
