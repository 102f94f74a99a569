// Package postgres stores releases in PostgreSQL in the tables of Helm's SQL
// driver (HELM_DRIVER=sql), so that Helm 3 and 4 and kubectl chart share one
// database: releases_v1 (one row per revision: key sh.helm.release.v1.<name>.v<revision>,
// the record as the Secret driver encodes it in body, and the name,
// namespace, version, status, owner, createdAt and modifiedAt columns),
// custom_labels_v1 (the user's labels of each revision) and the migrations
// table of Helm's migrator, gorp_migrations (ids init and custom_labels).
// Schema and semantics were read from Helm's pkg/storage/driver/sql.go.
//
// Unlike Helm's driver, every write is one transaction whose commit error is
// returned, creating an existing revision fails with ports.ErrReleaseExists,
// and a deletion removes the row and its labels or nothing. Release locks are
// session advisory locks (lock.go): a process that dies releases its locks
// when its connection ends.
package postgres

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Helm's constants of the SQL driver.
const (
	releasesTable = "releases_v1"
	labelsTable   = "custom_labels_v1"
	recordType    = "helm.sh/release.v1"
	owner         = "helm"
)

// DefaultConnectTimeout bounds connecting when the connection string sets no
// connect_timeout.
const DefaultConnectTimeout = 10 * time.Second

// Store is a ports.ReleaseStore in a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	// target names the database in errors: host:port/database, never the password.
	target string
	now    func() time.Time
}

var (
	_ ports.ReleaseStore      = (*Store)(nil)
	_ ports.ReleaseSummarizer = (*Store)(nil)
)

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock of the createdAt and modifiedAt columns.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// Open connects to the database of a connection string (a postgres:// URL or
// key=value pairs, as Helm's $HELM_DRIVER_SQL_CONNECTION_STRING) and creates
// Helm's tables when they are missing, as Helm does. A user without the
// right to create tables works on existing ones. Errors name the host and
// the database, never the password.
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("release database: %s", redact(err.Error(), connString, ""))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// An unreachable host fails instead of hanging the command.
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	s := &Store{target: target(cfg), now: time.Now}
	for _, o := range opts {
		o(s)
	}
	password := cfg.ConnConfig.Password
	s.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.fail("connect", err, password)
	}
	if err := s.pool.Ping(ctx); err != nil {
		s.pool.Close()
		return nil, s.fail("connect", err, password)
	}
	if err := s.ensureSchema(ctx); err != nil {
		s.pool.Close()
		return nil, s.fail("create tables", err, password)
	}
	return s, nil
}

// Close closes the store's connections.
func (s *Store) Close() { s.pool.Close() }

// Target names the database: host:port/database.
func (s *Store) Target() string { return s.target }

func target(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	host := c.Host
	if !strings.HasPrefix(host, "/") {
		host = net.JoinHostPort(host, strconv.Itoa(int(c.Port)))
	}
	return host + "/" + c.Database
}

// fail wraps an error of the database, naming it, with its password removed.
func (s *Store) fail(what string, err error, password string) error {
	msg := redact(err.Error(), "", password)
	if msg == err.Error() {
		return fmt.Errorf("%s release database %s: %w", what, s.target, err)
	}
	return fmt.Errorf("%s release database %s: %s", what, s.target, msg)
}

// redact removes a password (given, or found in a URL connection string)
// from an error's text.
func redact(msg, connString, password string) string {
	if password == "" && connString != "" {
		if u, err := url.Parse(connString); err == nil && u.User != nil {
			password, _ = u.User.Password()
		}
	}
	if password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, password, "xxxxx")
}

// wrap names the database in an error of an operation, keeping errors.Is.
func (s *Store) wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s in release database %s: %w", fmt.Sprintf(format, args...), s.target, err)
}
