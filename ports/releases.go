package ports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// Errors a release store returns; callers branch on them with errors.Is.
var (
	ErrReleaseNotFound = errors.New("release: not found")
	ErrReleaseExists   = errors.New("release: already exists")
)

// ReleaseStore keeps release revisions. Every adapter (Secret, ConfigMap, bbolt,
// memory) passes the contract suite in ports/porttest unchanged.
type ReleaseStore interface {
	// Create stores a new revision; ErrReleaseExists if that revision exists.
	Create(ctx context.Context, r *release.Release) error
	// Update replaces a stored revision; ErrReleaseNotFound if it does not exist.
	Update(ctx context.Context, r *release.Release) error
	// Get returns one revision; ErrReleaseNotFound if it does not exist.
	Get(ctx context.Context, namespace, name string, revision int) (*release.Release, error)
	// History returns every revision of a release, oldest first; ErrReleaseNotFound
	// when there is none.
	History(ctx context.Context, namespace, name string) (release.History, error)
	// List returns summaries of the revisions that match, without decoding payloads
	// where the store can avoid it. Records that cannot be read are reported in the
	// result's Problems, never by failing the whole listing.
	List(ctx context.Context, q ListQuery) (ListResult, error)
	// Delete removes one revision and returns it; ErrReleaseNotFound if it does not exist.
	// A revision whose record cannot be read is still deleted; the error says so.
	Delete(ctx context.Context, namespace, name string, revision int) (*release.Release, error)
}

// ReleaseSummarizer is implemented by stores that summarise one revision more
// cheaply than Get reads it: what callers of a ListQuery.LabelsOnly listing use
// to complete the Partial summaries they show. Summary returns what
// Get(...).Summarize() would, the status being the storage label's where the
// store keeps one (as List's), and the same errors.
type ReleaseSummarizer interface {
	Summary(ctx context.Context, namespace, name string, revision int) (release.Summary, error)
	// Summaries is Summary for many revisions, in their order (errs[i] is
	// revs[i]'s error), read in as few requests as the store can: a page of
	// `list` is then a few reads, not one per release.
	Summaries(ctx context.Context, revs []RevisionRef) (sums []release.Summary, errs []error)
}

// RevisionRef names one revision of a release.
type RevisionRef struct {
	Namespace, Name string
	Revision        int
}

// ListQuery selects revisions to list.
type ListQuery struct {
	// Namespace to list; "" lists all namespaces.
	Namespace string
	// Name limits the listing to one release when set.
	Name string
	// Statuses keeps only revisions in these statuses; empty keeps all.
	Statuses []release.Status
	// Selector keeps only revisions whose storage labels match (label=value,
	// label!=value, label, !label, as kubectl's -l).
	Selector string
	// LatestOnly keeps only the highest revision of each release (among those of
	// Namespace and Name), before Statuses and Selector apply: what `list` shows.
	// Stores use it to read no more than one record per release.
	LatestOnly bool
	// LabelsOnly lets the store answer from its storage labels alone where it
	// would otherwise read and decode a record (records Helm wrote carry no
	// summary): such summaries hold Name, Namespace, Revision, Status and
	// Labels only, and are marked Partial. The caller Gets the revisions it
	// shows. Stores that summarise cheaply may ignore it.
	LabelsOnly bool
}

// ListResult is a listing plus the records that could not be read.
type ListResult struct {
	Releases []release.Summary
	Problems []RecordError
}

// RecordError is a stored record that could not be decoded.
type RecordError struct {
	// Object names the storage object (e.g. "secret demo/sh.helm.release.v1.web.v3").
	Object string
	// Namespace and Release name the release the record belongs to, where
	// the storage object tells ("" otherwise).
	Namespace, Release string
	Err                error
}

func (e RecordError) Error() string { return fmt.Sprintf("%s: %v", e.Object, e.Err) }

func (e RecordError) Unwrap() error { return e.Err }

// LockHolder names who holds a release lock, so that others can tell whom they
// wait for.
type LockHolder struct {
	User    string
	Host    string
	PID     int
	Command string
	Since   time.Time
}

func (h LockHolder) String() string {
	return fmt.Sprintf("%s@%s (pid %d, %q, since %s)", h.User, h.Host, h.PID, h.Command, h.Since.UTC().Format(time.RFC3339))
}

// LockedError means another operation holds the release's lock.
type LockedError struct {
	Namespace, Name string
	Holder          LockHolder
	// Expires is when the holder's lease runs out unless renewed.
	Expires time.Time
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("release %s/%s is locked by %s; the lock expires at %s unless renewed", e.Namespace, e.Name, e.Holder, e.Expires.UTC().Format(time.RFC3339))
}

// ErrLocked matches any *LockedError with errors.Is.
var ErrLocked = errors.New("release: locked")

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// ReleaseLocker serialises mutating operations on one release. A lock is a lease
// renewed while its holder runs; a holder that dies stops renewing and the lease
// expires.
type ReleaseLocker interface {
	// Acquire takes the lock or fails fast with *LockedError. The returned Lock
	// must be released; its Lost channel closes if renewal fails.
	Acquire(ctx context.Context, namespace, name string, holder LockHolder) (Lock, error)
}

// Lock is a held release lock.
type Lock interface {
	// Release frees the lock.
	Release(ctx context.Context) error
	// Lost is closed when the lock could not be renewed and may be taken by others.
	Lost() <-chan struct{}
	// Recovered reports whether the lock was taken over from an expired holder, in
	// which case a pending revision left behind must be recovered.
	Recovered() (LockHolder, bool)
}
