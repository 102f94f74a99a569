// Package lock implements ports.ReleaseLocker with a coordination.k8s.io/v1
// Lease per release, in the release's namespace, naming its holder.
package lock

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chart/kubectl-chart/adapters/hostproc"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// HolderAnnotation carries the holder's description as JSON.
const HolderAnnotation = "kubectl-chart.dev/lock-holder"

// DefaultDuration is how long a lease lasts without renewal.
const DefaultDuration = 60 * time.Second

// LeaseName is the Lease that locks a release.
func LeaseName(release string) string { return "kubectl-chart.release." + release }

// Leases locks releases with Leases.
type Leases struct {
	client   coordclient.LeasesGetter
	duration time.Duration
	clock    ports.TickingClock
	// boot identifies this machine's boot and alive probes its processes: a
	// lease whose holder ran here in this boot and is gone is taken over at
	// once instead of after it expires.
	boot  string
	alive func(pid int) bool
}

var (
	_ ports.ReleaseLocker = (*Leases)(nil)
	_ ports.ClusterBacked = (*Leases)(nil)
)

// BackingResource names the Leases locks are, for the preflight of operations.
func (ls *Leases) BackingResource() (group, resource string, ok bool) {
	return coordv1.GroupName, "leases", true
}

// New locks with Leases through cfg; duration <= 0 means DefaultDuration. A
// holder renews its lease every third of the duration.
func New(cfg *rest.Config, duration time.Duration) (*Leases, error) {
	c, err := coordclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create lease client: %w", err)
	}
	return NewForClient(c, duration, ports.SystemClock{}), nil
}

// NewForClient locks with a given Lease client and clock (which times the
// leases and ticks their renewals).
func NewForClient(c coordclient.LeasesGetter, duration time.Duration, clock ports.TickingClock) *Leases {
	if duration <= 0 {
		duration = DefaultDuration
	}
	return &Leases{client: c, duration: duration, clock: clock, boot: hostproc.BootID(), alive: hostproc.Alive}
}

// WithHost is ls as seen from a host of another boot id and process table (tests).
func (ls *Leases) WithHost(boot string, alive func(pid int) bool) *Leases {
	c := *ls
	c.boot, c.alive = boot, alive
	return &c
}

type holderRecord struct {
	User    string    `json:"user"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
	// Boot is the holder's machine boot id (hostproc.BootID).
	Boot string `json:"boot,omitempty"`
}

func identity(h ports.LockHolder) string { return fmt.Sprintf("%s@%s/%d", h.User, h.Host, h.PID) }

func holderOf(l *coordv1.Lease) ports.LockHolder {
	var r holderRecord
	if err := json.Unmarshal([]byte(l.Annotations[HolderAnnotation]), &r); err != nil || r.User == "" {
		id := ""
		if l.Spec.HolderIdentity != nil {
			id = *l.Spec.HolderIdentity
		}
		return ports.LockHolder{User: id}
	}
	return ports.LockHolder{User: r.User, Host: r.Host, PID: r.PID, Command: r.Command, Since: r.Since}
}

func expiry(l *coordv1.Lease) time.Time {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
}

// Acquire takes the release's Lease, or fails fast with *ports.LockedError
// while another holder's lease runs. An expired lease is taken over and the
// lock reports Recovered.
func (ls *Leases) Acquire(ctx context.Context, namespace, name string, holder ports.LockHolder) (ports.Lock, error) {
	leases := ls.client.Leases(namespace)
	if holder.Since.IsZero() {
		holder.Since = ls.clock.Now()
	}
	rec, _ := json.Marshal(holderRecord{User: holder.User, Host: holder.Host, PID: holder.PID, Command: holder.Command, Since: holder.Since.UTC(), Boot: ls.boot})
	id := identity(holder)
	secs := int32((ls.duration + time.Second - 1) / time.Second)
	// The first attempt creates without reading: a release's lease usually
	// does not exist, and then one request takes it.
	var (
		cur *coordv1.Lease
		err error
	)
	for attempt := 0; attempt < 3; attempt++ {
		now := metav1.NewMicroTime(ls.clock.Now())
		if attempt > 0 {
			cur, err = leases.Get(ctx, LeaseName(name), metav1.GetOptions{})
		}
		if attempt == 0 || apierrors.IsNotFound(err) {
			l := &coordv1.Lease{
				ObjectMeta: metav1.ObjectMeta{
					Name: LeaseName(name), Namespace: namespace,
					Labels:      map[string]string{"app.kubernetes.io/managed-by": "kubectl-chart", "kubectl-chart.dev/release": name},
					Annotations: map[string]string{HolderAnnotation: string(rec)},
				},
				Spec: coordv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &secs, AcquireTime: &now, RenewTime: &now},
			}
			created, err := leases.Create(ctx, l, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			if apierrors.IsNotFound(err) {
				// The namespace is gone: no lease, and so no other holder, can exist
				// there, and nothing of the release is left in it to race over
				// (uninstalling a release whose namespace was deleted).
				return namespaceGone{}, nil
			}
			if err != nil {
				return nil, leaseError(namespace, name, "create", err)
			}
			return ls.held(created, ports.LockHolder{}, false), nil
		}
		if err != nil {
			return nil, leaseError(namespace, name, "read", err)
		}
		taken := cur.Spec.HolderIdentity != nil && *cur.Spec.HolderIdentity != ""
		if taken && ls.clock.Now().Before(expiry(cur)) && !ls.holderGone(cur, holder) {
			return nil, &ports.LockedError{Namespace: namespace, Name: name, Holder: holderOf(cur), Expires: expiry(cur)}
		}
		previous := holderOf(cur)
		next := cur.DeepCopy()
		if next.Annotations == nil {
			next.Annotations = map[string]string{}
		}
		next.Annotations[HolderAnnotation] = string(rec)
		next.Spec.HolderIdentity, next.Spec.LeaseDurationSeconds = &id, &secs
		next.Spec.AcquireTime, next.Spec.RenewTime = &now, &now
		transitions := int32(1)
		if cur.Spec.LeaseTransitions != nil {
			transitions = *cur.Spec.LeaseTransitions + 1
		}
		next.Spec.LeaseTransitions = &transitions
		updated, err := leases.Update(ctx, next, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return nil, leaseError(namespace, name, "update", err)
		}
		return ls.held(updated, previous, taken), nil
	}
	cur, err = leases.Get(ctx, LeaseName(name), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("lock release %s/%s: %w", namespace, name, err)
	}
	return nil, &ports.LockedError{Namespace: namespace, Name: name, Holder: holderOf(cur), Expires: expiry(cur)}
}

// holderGone reports whether a lease's holder provably no longer runs: it ran
// on this machine in this boot (same host name and boot id), is not this
// process, and its process is gone.
func (ls *Leases) holderGone(l *coordv1.Lease, self ports.LockHolder) bool {
	var r holderRecord
	if json.Unmarshal([]byte(l.Annotations[HolderAnnotation]), &r) != nil {
		return false
	}
	return ls.boot != "" && r.Boot == ls.boot && r.Host == self.Host && r.PID > 0 && r.PID != self.PID && !ls.alive(r.PID)
}

// namespaceGone is the lock of a release whose namespace does not exist.
type namespaceGone struct{}

func (namespaceGone) Release(context.Context) error       { return nil }
func (namespaceGone) Lost() <-chan struct{}               { return nil }
func (namespaceGone) Recovered() (ports.LockHolder, bool) { return ports.LockHolder{}, false }

// held starts renewing a lease.
func (ls *Leases) held(l *coordv1.Lease, previous ports.LockHolder, recovered bool) *lease {
	h := &lease{ls: ls, current: l, previous: previous, recovered: recovered}
	h.Renewal = StartRenewal(ls.clock, ls.duration/3, h.renew)
	return h
}

type lease struct {
	*Renewal
	ls        *Leases
	mu        sync.Mutex
	current   *coordv1.Lease
	previous  ports.LockHolder
	recovered bool
}

// renew writes a new renew time; it reports false once the lease is lost.
func (h *lease) renew(ctx context.Context) bool {
	next := h.snapshot().DeepCopy()
	now := metav1.NewMicroTime(h.ls.clock.Now())
	next.Spec.RenewTime = &now
	updated, err := h.ls.client.Leases(next.Namespace).Update(ctx, next, metav1.UpdateOptions{})
	if ctx.Err() != nil {
		return true
	}
	if err != nil && apierrors.IsConflict(err) {
		// A conflict is a takeover, or an earlier renewal that was written
		// although its answer got lost: the holder tells which.
		if live, gerr := h.ls.client.Leases(next.Namespace).Get(ctx, next.Name, metav1.GetOptions{}); gerr == nil && sameHolder(live, next) {
			h.set(live)
			return true
		}
		return false
	}
	if err != nil {
		// Other errors may pass, but once the lease has expired the lock is
		// gone either way.
		return h.ls.clock.Now().Before(expiry(h.snapshot()))
	}
	h.set(updated)
	return true
}

func (h *lease) set(l *coordv1.Lease) {
	h.mu.Lock()
	h.current = l
	h.mu.Unlock()
}

func (h *lease) snapshot() *coordv1.Lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.current
}

// Release stops renewing and deletes the lease if this holder still has it.
func (h *lease) Release(ctx context.Context) error {
	h.Stop()
	cur := h.snapshot()
	// Only a lease this holder still has is deleted. The lease as last
	// written is ours: deleted on that condition, it needs no read.
	rv, uid := cur.ResourceVersion, cur.UID
	err := h.ls.client.Leases(cur.Namespace).Delete(ctx, cur.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{ResourceVersion: &rv, UID: &uid},
	})
	if err == nil || apierrors.IsNotFound(err) {
		return nil
	}
	if !apierrors.IsConflict(err) {
		return fmt.Errorf("release lock %s/%s: %w", cur.Namespace, cur.Name, err)
	}
	// It changed since: after a takeover it names someone else, or a renewal
	// cut short by stop was written all the same. The precondition covers a
	// takeover in between.
	live, err := h.ls.client.Leases(cur.Namespace).Get(ctx, cur.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("release lock %s/%s: %w", cur.Namespace, cur.Name, err)
	}
	if live.UID != cur.UID || !sameHolder(live, cur) {
		return nil
	}
	rv, uid = live.ResourceVersion, live.UID
	err = h.ls.client.Leases(cur.Namespace).Delete(ctx, cur.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{ResourceVersion: &rv, UID: &uid},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("release lock %s/%s: %w", cur.Namespace, cur.Name, err)
	}
	return nil
}

func sameHolder(a, b *coordv1.Lease) bool {
	if a.Spec.HolderIdentity == nil || b.Spec.HolderIdentity == nil || a.Spec.AcquireTime == nil || b.Spec.AcquireTime == nil {
		return false
	}
	return *a.Spec.HolderIdentity == *b.Spec.HolderIdentity && a.Spec.AcquireTime.Equal(b.Spec.AcquireTime)
}

func (h *lease) Recovered() (ports.LockHolder, bool) { return h.previous, h.recovered }

// leaseError says what failed on the release's Lease; when the user may not
// use Leases it says so, and which permissions locking needs.
func leaseError(namespace, name, verb string, err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("cannot lock release %s/%s: you may not %s its Lease %s in namespace %s (each release is locked while it changes with a coordination.k8s.io Lease: ask for get, create and update on leases there): %w",
			namespace, name, verb, LeaseName(name), namespace, err)
	}
	return fmt.Errorf("lock release %s/%s: %s lease: %w", namespace, name, verb, err)
}
