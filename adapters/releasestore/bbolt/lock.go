package bbolt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubectl-chart/kubectl-chart/adapters/hostproc"
	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// DefaultLockDuration is how long a release lock lasts without renewal.
const DefaultLockDuration = 60 * time.Second

var bucketLocks = []byte("locks")

// Locker locks releases with records in the store's file (bucket "locks",
// keyed <namespace>\x00<name>), the local counterpart of the Lease lock: a
// holder renews its record while it runs, so the lock of a process that died
// expires. A holder on this host whose process is gone is taken over at once.
type Locker struct {
	store    *Store
	duration time.Duration
	clock    ports.TickingClock
	// alive reports whether a process of this host runs.
	alive func(pid int) bool
}

var _ ports.ReleaseLocker = (*Locker)(nil)

// Locker returns the store's release locker; duration <= 0 means
// DefaultLockDuration. A holder renews every third of the duration.
func (s *Store) Locker(duration time.Duration, clock ports.TickingClock) *Locker {
	if duration <= 0 {
		duration = DefaultLockDuration
	}
	return &Locker{store: s, duration: duration, clock: clock, alive: hostproc.Alive}
}

type lockRecord struct {
	Token    string        `json:"token"`
	User     string        `json:"user"`
	Host     string        `json:"host"`
	PID      int           `json:"pid"`
	Command  string        `json:"command"`
	Since    time.Time     `json:"since"`
	Renewed  time.Time     `json:"renewed"`
	Duration time.Duration `json:"duration"`
}

func (r lockRecord) holder() ports.LockHolder {
	return ports.LockHolder{User: r.User, Host: r.Host, PID: r.PID, Command: r.Command, Since: r.Since}
}

func (r lockRecord) expires() time.Time { return r.Renewed.Add(r.Duration) }

func lockKey(namespace, name string) []byte { return fmt.Appendf(nil, "%s\x00%s", namespace, name) }

// Acquire takes the release's lock, or fails fast with *ports.LockedError while
// another holder's lock runs.
func (l *Locker) Acquire(ctx context.Context, namespace, name string, holder ports.LockHolder) (ports.Lock, error) {
	now := l.clock.Now()
	if holder.Since.IsZero() {
		holder.Since = now
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, fmt.Errorf("lock release %s/%s: %w", namespace, name, err)
	}
	rec := lockRecord{
		Token: hex.EncodeToString(token), User: holder.User, Host: holder.Host, PID: holder.PID, Command: holder.Command,
		Since: holder.Since.UTC(), Renewed: now.UTC(), Duration: l.duration,
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("lock release %s/%s: %w", namespace, name, err)
	}
	k := lockKey(namespace, name)
	var previous ports.LockHolder
	recovered := false
	err = l.store.do(ctx, true, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLocks)
		if v := b.Get(k); v != nil {
			var cur lockRecord
			// An unreadable record locks nothing: it is taken over.
			if json.Unmarshal(v, &cur) == nil && l.held(cur, holder, now) {
				return &ports.LockedError{Namespace: namespace, Name: name, Holder: cur.holder(), Expires: cur.expires()}
			}
			previous, recovered = cur.holder(), true
		}
		return b.Put(k, data)
	})
	if err != nil {
		return nil, fmt.Errorf("lock release %s/%s: %w", namespace, name, err)
	}
	lk := &heldLock{locker: l, key: k, record: rec, previous: previous, recovered: recovered}
	lk.Renewal = lock.StartRenewal(l.clock, l.duration/3, lk.renew)
	return lk, nil
}

// held reports whether cur still locks the release for holder: it has not
// expired, and its process is not known to be gone.
func (l *Locker) held(cur lockRecord, holder ports.LockHolder, now time.Time) bool {
	if !now.Before(cur.expires()) {
		return false
	}
	sameHost := cur.Host != "" && cur.Host == holder.Host
	return !sameHost || cur.PID <= 0 || cur.PID == holder.PID || l.alive(cur.PID)
}

type heldLock struct {
	*lock.Renewal
	locker    *Locker
	key       []byte
	mu        sync.Mutex
	record    lockRecord
	previous  ports.LockHolder
	recovered bool
}

// renew writes a new renew time; it reports false once the lock is lost.
func (lk *heldLock) renew(ctx context.Context) bool {
	lk.mu.Lock()
	rec := lk.record
	lk.mu.Unlock()
	rec.Renewed = lk.locker.clock.Now().UTC()
	data, err := json.Marshal(rec)
	if err != nil {
		return true
	}
	takenOver := false
	err = lk.locker.store.do(ctx, true, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLocks)
		var cur lockRecord
		if v := b.Get(lk.key); v == nil || json.Unmarshal(v, &cur) != nil || cur.Token != rec.Token {
			takenOver = true
			return nil
		}
		return b.Put(lk.key, data)
	})
	switch {
	case takenOver:
		return false
	case err != nil:
		// A busy file may pass; once the lock has expired it is gone either way.
		return lk.locker.clock.Now().Before(lk.expires())
	}
	lk.mu.Lock()
	lk.record = rec
	lk.mu.Unlock()
	return true
}

func (lk *heldLock) expires() time.Time {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	return lk.record.expires()
}

// Release stops renewing and removes the lock if this holder still has it.
func (lk *heldLock) Release(ctx context.Context) error {
	lk.Stop()
	err := lk.locker.store.do(ctx, true, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLocks)
		var cur lockRecord
		if v := b.Get(lk.key); v == nil || json.Unmarshal(v, &cur) != nil || cur.Token != lk.record.Token {
			return nil
		}
		return b.Delete(lk.key)
	})
	if err != nil {
		return fmt.Errorf("release lock %s: %w", printableKey(lk.key), err)
	}
	return nil
}

func (lk *heldLock) Recovered() (ports.LockHolder, bool) { return lk.previous, lk.recovered }
