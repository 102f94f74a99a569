package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// inTx runs fn in a transaction and commits it; a failed commit is returned
// (Helm's driver drops it), marked with errCommit.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%w: %w", errCommit, err)
	}
	return nil
}

// revisionLockKey is the advisory transaction lock taken while a revision's
// row is created, so that concurrent creates see each other whatever the
// table's constraints (older schemas, tables made by hand).
func revisionLockKey(namespace, key string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("kubectl-chart revision\x00" + namespace + "\x00" + key))
	return int64(h.Sum64())
}

// status is the revision's status column, as Helm writes it.
func status(r *release.Release) string {
	if r.Info == nil || r.Info.Status == "" {
		return string(release.StatusUnknown)
	}
	return string(r.Info.Status)
}

// writeLabels replaces a revision's rows in custom_labels_v1 by its user's
// labels (Helm's system labels are columns, never label rows).
func writeLabels(ctx context.Context, tx pgx.Tx, namespace, key string, lbls map[string]string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM custom_labels_v1 WHERE releaseKey = $1 AND releaseNamespace = $2`, key, namespace); err != nil {
		return fmt.Errorf("delete labels: %w", err)
	}
	user := helmrecord.UserLabels(lbls)
	if len(user) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, k := range slices.Sorted(maps.Keys(user)) {
		b.Queue(`INSERT INTO custom_labels_v1 (releaseKey, releaseNamespace, key, value) VALUES ($1, $2, $3, $4)`, key, namespace, k, user[k])
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("write labels: %w", err)
	}
	return nil
}

// encode is a revision's key and body, as Helm writes them.
func encode(r *release.Release) (key, body string, err error) {
	if err := helmrecord.Validate(r); err != nil {
		return "", "", err
	}
	body, err = helmrecord.Encode(r)
	return helmrecord.ObjectName(r.Name, r.Version), body, err
}

// Create stores a new revision, its row and its labels in one transaction.
func (s *Store) Create(ctx context.Context, r *release.Release) error {
	key, body, err := encode(r)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, revisionLockKey(r.Namespace, key)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO releases_v1 (key, type, body, name, namespace, version, status, owner, createdAt)
			SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::int, $7::text, $8::text, $9::int
			WHERE NOT EXISTS (SELECT 1 FROM releases_v1 WHERE key = $1::text AND namespace = $5::text)`,
			key, recordType, body, r.Name, r.Namespace, r.Version, status(r), owner, s.now().Unix())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ports.ErrReleaseExists
		}
		return writeLabels(ctx, tx, r.Namespace, key, r.Labels)
	})
	return s.wrap(err, "create %s/%s", r.Namespace, key)
}

// Update replaces a stored revision's row and labels in one transaction. As
// Helm, it leaves createdAt and sets modifiedAt.
func (s *Store) Update(ctx context.Context, r *release.Release) error {
	key, body, err := encode(r)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE releases_v1 SET body = $1, name = $2, version = $3, status = $4, owner = $5, modifiedAt = $6
			WHERE key = $7 AND namespace = $8`,
			body, r.Name, r.Version, status(r), owner, s.now().Unix(), key, r.Namespace)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ports.ErrReleaseNotFound
		}
		return writeLabels(ctx, tx, r.Namespace, key, r.Labels)
	})
	return s.wrap(err, "update %s/%s", r.Namespace, key)
}

// Delete removes a revision's row and labels in one transaction and returns
// the revision. A row whose body does not decode is still deleted.
func (s *Store) Delete(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	key := helmrecord.ObjectName(name, revision)
	var body string
	lbls := map[string]string{}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM releases_v1 WHERE key = $1 AND namespace = $2 RETURNING body`, key, namespace)
		if err != nil {
			return err
		}
		bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(bodies) == 0 {
			return ports.ErrReleaseNotFound
		}
		body = bodies[0]
		rows, err = tx.Query(ctx, `DELETE FROM custom_labels_v1 WHERE releaseKey = $1 AND releaseNamespace = $2 RETURNING key, value`, key, namespace)
		if err != nil {
			return err
		}
		var k, v string
		_, err = pgx.ForEachRow(rows, []any{&k, &v}, func() error {
			lbls[k] = v
			return nil
		})
		return err
	})
	if err != nil {
		return nil, s.wrap(err, "delete %s/%s", namespace, key)
	}
	return s.decode(row{namespace: namespace, key: key, body: body, labels: lbls})
}

// IsCommitError reports whether err is a failed commit (nothing written).
func IsCommitError(err error) bool { return errors.Is(err, errCommit) }
