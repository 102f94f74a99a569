package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// migration is one of Helm's migrations: its id in gorp_migrations, the table
// it creates and the statements that create it. The statements make the
// schema Helm v3.22 and v4.3 make (the tests compare pg_dump's output of both).
type migration struct {
	id, table string
	stmts     []string
}

var migrations = []migration{
	{id: "init", table: releasesTable, stmts: []string{
		`CREATE TABLE releases_v1 (
			key VARCHAR(90),
			type VARCHAR(64) NOT NULL,
			body TEXT NOT NULL,
			name VARCHAR(64) NOT NULL,
			namespace VARCHAR(64) NOT NULL,
			version INTEGER NOT NULL,
			status TEXT NOT NULL,
			owner TEXT NOT NULL,
			createdAt INTEGER NOT NULL,
			modifiedAt INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY(key, namespace)
		)`,
		`CREATE INDEX ON releases_v1 (key, namespace)`,
		`CREATE INDEX ON releases_v1 (version)`,
		`CREATE INDEX ON releases_v1 (status)`,
		`CREATE INDEX ON releases_v1 (owner)`,
		`CREATE INDEX ON releases_v1 (createdAt)`,
		`CREATE INDEX ON releases_v1 (modifiedAt)`,
		`GRANT ALL ON releases_v1 TO PUBLIC`,
		`ALTER TABLE releases_v1 ENABLE ROW LEVEL SECURITY`,
	}},
	{id: "custom_labels", table: labelsTable, stmts: []string{
		`CREATE TABLE custom_labels_v1 (
			releaseKey VARCHAR(64),
			releaseNamespace VARCHAR(67),
			key VARCHAR(317),
			value VARCHAR(63)
		)`,
		`CREATE INDEX ON custom_labels_v1 (releaseKey, releaseNamespace)`,
		`GRANT ALL ON custom_labels_v1 TO PUBLIC`,
		`ALTER TABLE custom_labels_v1 ENABLE ROW LEVEL SECURITY`,
	}},
}

// migrationsTable is the table of Helm's migrator (rubenv/sql-migrate over
// gorp), as it creates it.
const migrationsTable = `CREATE TABLE IF NOT EXISTS gorp_migrations (id text NOT NULL PRIMARY KEY, applied_at timestamp with time zone)`

// schemaLockKey serialises our processes creating the tables (an advisory
// transaction lock; Helm takes none).
const schemaLockKey = 0x6b63_6861_7274_0001

// schemaState is which tables exist and which migrations are recorded.
type schemaState struct {
	tables  map[string]bool
	applied map[string]bool
}

func (st schemaState) complete() bool {
	for _, m := range migrations {
		if !st.tables[m.table] || !st.applied[m.id] {
			return false
		}
	}
	return true
}

func (st schemaState) tablesExist() bool {
	for _, m := range migrations {
		if !st.tables[m.table] {
			return false
		}
	}
	return true
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func readSchema(ctx context.Context, q querier) (schemaState, error) {
	st := schemaState{tables: map[string]bool{}, applied: map[string]bool{}}
	var rel, lbl, mig bool
	err := q.QueryRow(ctx, `SELECT to_regclass('releases_v1') IS NOT NULL, to_regclass('custom_labels_v1') IS NOT NULL, to_regclass('gorp_migrations') IS NOT NULL`).Scan(&rel, &lbl, &mig)
	if err != nil {
		return st, err
	}
	st.tables[releasesTable], st.tables[labelsTable] = rel, lbl
	if !mig {
		return st, nil
	}
	rows, err := q.Query(ctx, `SELECT id FROM gorp_migrations`)
	if err != nil {
		return st, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		// Helm's migrator grants nothing on its table: a user who may use
		// the tables may not read it. What is applied is then unknown.
		return st, nil
	}
	for _, id := range ids {
		st.applied[id] = true
	}
	return st, nil
}

// ensureSchema creates what Helm's migrations create and records them as
// Helm's migrator does, in one transaction. It writes nothing when all is
// there, so that a user without CREATE rights works on existing tables;
// tables that exist without their migration records (created by hand) are
// used as they are when the records cannot be written.
func (s *Store) ensureSchema(ctx context.Context) error {
	st, err := readSchema(ctx, s.pool)
	if err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	if st.complete() {
		return nil
	}
	err = s.migrate(ctx)
	if err != nil && st.tablesExist() {
		return nil
	}
	return err
}

func (s *Store) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockKey)); err != nil {
			return err
		}
		st, err := readSchema(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, migrationsTable); err != nil {
			return err
		}
		for _, m := range migrations {
			if !st.tables[m.table] {
				for _, stmt := range m.stmts {
					if _, err := tx.Exec(ctx, stmt); err != nil {
						return fmt.Errorf("migration %s: %w", m.id, err)
					}
				}
			}
			if !st.applied[m.id] {
				if _, err := tx.Exec(ctx, `INSERT INTO gorp_migrations (id, applied_at) VALUES ($1, now())`, m.id); err != nil {
					return fmt.Errorf("record migration %s: %w", m.id, err)
				}
			}
		}
		return nil
	})
}

// errCommit marks a failed commit: the transaction's writes are undone.
var errCommit = errors.New("commit failed; nothing was written")
