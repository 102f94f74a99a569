package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kubectl-chart/kubectl-chart/adapters/hostproc"
	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// DefaultLockDuration is how long a holder that stops renewing (a stalled
// process whose connection lives) keeps its lock.
const DefaultLockDuration = 60 * time.Second

// takeoverWait bounds the wait for an expired holder's session to end.
const takeoverWait = 10 * time.Second

// locksTable names each lock's holder, for the others' errors; created when
// first needed, if the user may. Without it locks still work, and a waiting
// operation names the holder from what pg_stat_activity shows of its session.
const locksTable = `CREATE TABLE IF NOT EXISTS kubectl_chart_locks_v1 (
	namespace VARCHAR(64) NOT NULL,
	name VARCHAR(64) NOT NULL,
	token TEXT NOT NULL,
	backend_pid INTEGER NOT NULL,
	holder JSONB NOT NULL,
	renewed TIMESTAMPTZ NOT NULL,
	duration_ms BIGINT NOT NULL,
	PRIMARY KEY (namespace, name)
)`

// Locker locks releases with session advisory locks in the store's database,
// one per release: operations on many machines sharing the database
// serialise without a Lease, and the lock of a process that dies is released
// when its connection ends. A holder renews its row every third of the
// duration; one that stops (a stalled process) is taken over once its row
// expires, its session ended by the taker, as is at once one whose process,
// on this host, is gone.
type Locker struct {
	store    *Store
	duration time.Duration
	clock    ports.TickingClock
	// alive reports whether a process of this host runs.
	alive func(pid int) bool

	once  sync.Once
	table bool
}

var _ ports.ReleaseLocker = (*Locker)(nil)

// Locker returns the store's release locker; duration <= 0 means DefaultLockDuration.
func (s *Store) Locker(duration time.Duration, clock ports.TickingClock) *Locker {
	if duration <= 0 {
		duration = DefaultLockDuration
	}
	return &Locker{store: s, duration: duration, clock: clock, alive: hostproc.Alive}
}

// lockKey is a release's advisory lock key.
func lockKey(namespace, name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("kubectl-chart release\x00" + namespace + "\x00" + name))
	return int64(h.Sum64())
}

func (l *Locker) ensureTable(ctx context.Context) bool {
	l.once.Do(func() {
		_, err := l.store.pool.Exec(ctx, locksTable+`; GRANT ALL ON kubectl_chart_locks_v1 TO PUBLIC`)
		if err != nil {
			// Without CREATE rights: usable if someone else created it.
			var ok bool
			err = l.store.pool.QueryRow(ctx, `SELECT to_regclass('kubectl_chart_locks_v1') IS NOT NULL`).Scan(&ok)
			l.table = err == nil && ok
			return
		}
		l.table = true
	})
	return l.table
}

type lockRow struct {
	token   string
	pid     int32
	holder  ports.LockHolder
	renewed time.Time
	dur     time.Duration
}

func (r lockRow) expires() time.Time { return r.renewed.Add(r.dur) }

func readLockRow(ctx context.Context, c *pgx.Conn, namespace, name string) (*lockRow, error) {
	var r lockRow
	var holder []byte
	var ms int64
	err := c.QueryRow(ctx, `SELECT token, backend_pid, holder, renewed, duration_ms FROM kubectl_chart_locks_v1 WHERE namespace = $1 AND name = $2`, namespace, name).
		Scan(&r.token, &r.pid, &holder, &r.renewed, &ms)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r.dur = time.Duration(ms) * time.Millisecond
	if err := json.Unmarshal(holder, &r.holder); err != nil {
		return nil, nil // an unreadable row names no one
	}
	return &r, nil
}

// Acquire takes the release's lock, or fails fast with *ports.LockedError
// while another session holds it.
func (l *Locker) Acquire(ctx context.Context, namespace, name string, holder ports.LockHolder) (ports.Lock, error) {
	fail := func(err error) error { return l.store.wrap(err, "lock release %s/%s", namespace, name) }
	table := l.ensureTable(ctx)
	if holder.Since.IsZero() {
		holder.Since = l.clock.Now()
	}
	pc, err := l.store.pool.Acquire(ctx)
	if err != nil {
		return nil, fail(err)
	}
	// The lock lives as long as this session: it leaves the pool.
	c := pc.Hijack()
	lk, err := l.acquire(ctx, c, table, namespace, name, holder)
	if err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		var le *ports.LockedError
		if errors.As(err, &le) {
			return nil, err
		}
		return nil, fail(err)
	}
	return lk, nil
}

func (l *Locker) acquire(ctx context.Context, c *pgx.Conn, table bool, namespace, name string, holder ports.LockHolder) (*heldLock, error) {
	key := lockKey(namespace, name)
	var got bool
	var pid int32
	var previous *lockRow
	// A holder that releases between our try and our look at it is tried
	// again, a few times.
	for attempt := 0; !got; attempt++ {
		if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1), pg_backend_pid()`, key).Scan(&got, &pid); err != nil {
			return nil, err
		}
		if got {
			break
		}
		taken, prev, err := l.takeOver(ctx, c, table, namespace, name, key, holder)
		switch {
		case err != nil:
			return nil, err
		case taken:
			got, previous = true, prev.row
		case !prev.gone || attempt == 2:
			return nil, prev.LockedError
		}
	}
	if previous == nil && table {
		// A row left by a holder whose session ended without releasing (a
		// killed process): its pending revision is ours to recover.
		var err error
		if previous, err = readLockRow(ctx, c, namespace, name); err != nil {
			return nil, err
		}
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	lk := &heldLock{locker: l, conn: c, key: key, namespace: namespace, name: name, token: hex.EncodeToString(token), table: table}
	if previous != nil {
		lk.previous, lk.recovered = previous.holder, true
	}
	if table {
		js, err := json.Marshal(holder)
		if err != nil {
			return nil, err
		}
		if _, err := c.Exec(ctx, `INSERT INTO kubectl_chart_locks_v1 (namespace, name, token, backend_pid, holder, renewed, duration_ms)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (namespace, name) DO UPDATE SET token = $3, backend_pid = $4, holder = $5, renewed = $6, duration_ms = $7`,
			namespace, name, lk.token, pid, js, l.clock.Now(), l.duration.Milliseconds()); err != nil {
			return nil, err
		}
	}
	lk.Renewal = lock.StartRenewal(l.clock, l.duration/3, lk.renew)
	return lk, nil
}

// lockedBy is why a lock was not taken: the holder's error, and its row when
// it had one.
type lockedBy struct {
	*ports.LockedError
	row *lockRow
	// gone: no session held the lock any more when looked at.
	gone bool
}

// takeOver decides about a lock another session holds: when the holder's row
// has expired, or names a process of this host that is gone (killed: the
// server may not have seen its connection end yet), its session is ended and
// the lock taken (taken is true); otherwise the LockedError naming the holder
// is returned.
func (l *Locker) takeOver(ctx context.Context, c *pgx.Conn, table bool, namespace, name string, key int64, me ports.LockHolder) (bool, lockedBy, error) {
	locked := lockedBy{LockedError: &ports.LockedError{Namespace: namespace, Name: name, Expires: l.clock.Now().Add(l.duration)}}
	var holderPID int32
	var user, app string
	var since *time.Time
	var sameClient bool
	err := c.QueryRow(ctx, `SELECT l.pid, coalesce(a.usename::text, ''), coalesce(a.application_name, ''), a.backend_start,
		coalesce(a.client_addr IS NOT DISTINCT FROM inet_client_addr(), false)
		FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.classid::int8 = $1 AND l.objid::int8 = $2 AND l.objsubid = 1 LIMIT 1`,
		int64(uint64(key)>>32), int64(uint64(key)&0xffffffff)).Scan(&holderPID, &user, &app, &since, &sameClient)
	if errors.Is(err, pgx.ErrNoRows) {
		locked.gone = true
		return false, locked, nil
	}
	if err != nil {
		return false, locked, err
	}
	locked.Holder = ports.LockHolder{User: user, Command: app}
	if since != nil {
		locked.Holder.Since = *since
	}
	if !table {
		return false, locked, nil
	}
	row, err := readLockRow(ctx, c, namespace, name)
	if err != nil || row == nil || row.pid != holderPID {
		// The holder has not written its row yet.
		return false, locked, err
	}
	locked.row, locked.Holder, locked.Expires = row, row.holder, row.expires()
	// Same host name and same client address: the holder ran here.
	h := row.holder
	gone := sameClient && h.Host != "" && h.Host == me.Host && h.PID > 0 && h.PID != me.PID && !l.alive(h.PID)
	if !gone && l.clock.Now().Before(row.expires()) {
		return false, locked, nil
	}
	// The holder stopped renewing: end its session, which frees the lock.
	if _, err := c.Exec(ctx, `SELECT pg_terminate_backend($1)`, holderPID); err != nil {
		return false, locked, nil
	}
	wait, cancel := context.WithTimeout(ctx, takeoverWait)
	defer cancel()
	for {
		var got bool
		if err := c.QueryRow(wait, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil {
			return false, locked, err
		}
		if got {
			return true, locked, nil
		}
		select {
		case <-wait.Done():
			return false, locked, nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}

type heldLock struct {
	*lock.Renewal
	locker          *Locker
	conn            *pgx.Conn
	key             int64
	namespace, name string
	token           string
	table           bool
	previous        ports.LockHolder
	recovered       bool
}

// renew writes the row's renew time on the lock's session; it reports false
// once the session is gone (its lock with it).
func (lk *heldLock) renew(ctx context.Context) bool {
	var err error
	if lk.table {
		_, err = lk.conn.Exec(ctx, `UPDATE kubectl_chart_locks_v1 SET renewed = $1 WHERE namespace = $2 AND name = $3 AND token = $4`,
			lk.locker.clock.Now(), lk.namespace, lk.name, lk.token)
	} else {
		_, err = lk.conn.Exec(ctx, `SELECT 1`)
	}
	return err == nil || !lk.conn.IsClosed()
}

// Release stops renewing, removes the holder's row and ends the session,
// which frees the lock. A session already gone has freed it.
func (lk *heldLock) Release(ctx context.Context) error {
	lk.Stop()
	defer func() { _ = lk.conn.Close(context.WithoutCancel(ctx)) }()
	if lk.conn.IsClosed() {
		return nil
	}
	var err error
	if lk.table {
		_, err = lk.conn.Exec(ctx, `DELETE FROM kubectl_chart_locks_v1 WHERE namespace = $1 AND name = $2 AND token = $3`, lk.namespace, lk.name, lk.token)
	}
	if err == nil {
		_, err = lk.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, lk.key)
	}
	if err != nil && !lk.conn.IsClosed() {
		return fmt.Errorf("release lock of %s/%s: %w", lk.namespace, lk.name, err)
	}
	return nil
}

func (lk *heldLock) Recovered() (ports.LockHolder, bool) { return lk.previous, lk.recovered }
