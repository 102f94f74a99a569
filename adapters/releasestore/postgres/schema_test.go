package postgres_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/postgres"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

// connect connects to a database, closed after the test.
func connect(t *testing.T, dbURL string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// execSQL runs statements on a database as the superuser.
func execSQL(t *testing.T, dbURL string, stmts ...string) {
	t.Helper()
	c := connect(t, dbURL)
	for _, s := range stmts {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// asUser is dbURL with another user and password.
func asUser(t *testing.T, dbURL, user, password string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}

func roundTrip(t *testing.T, s *postgres.Store) {
	t.Helper()
	ctx := context.Background()
	want := porttest.Release("prod", "web", 1, release.StatusDeployed)
	if err := s.Create(ctx, want); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err := s.Get(ctx, "prod", "web", 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	porttest.AssertSame(t, got, want)
	res, err := s.List(ctx, ports.ListQuery{LatestOnly: true})
	if err != nil || len(res.Releases) != 1 {
		t.Fatalf("List = %+v, %v", res, err)
	}
}

// Helm's first schema had key VARCHAR(67); databases made then still work.
func TestOlderKeyColumn(t *testing.T) {
	dbURL := db.Database(t)
	open(t, dbURL).Close()
	execSQL(t, dbURL, `ALTER TABLE releases_v1 ALTER COLUMN key TYPE VARCHAR(67)`)
	roundTrip(t, open(t, dbURL))
}

// A user who may not create tables works on tables someone else made (with
// row-level security policies that let them see rows: Helm's tables enable
// row-level security, which hides every row from a user who does not own them).
func TestUserWithoutCreateRights(t *testing.T) {
	dbURL := db.Database(t)
	open(t, dbURL).Close()
	execSQL(t, dbURL,
		`CREATE ROLE app LOGIN PASSWORD 'app-secret'`,
		`REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
		`CREATE POLICY everyone ON releases_v1 USING (true) WITH CHECK (true)`,
		`CREATE POLICY everyone ON custom_labels_v1 USING (true) WITH CHECK (true)`,
	)
	app := open(t, asUser(t, dbURL, "app", "app-secret"))
	roundTrip(t, app)

	// The lock works without its holders' table, naming the holder from its session.
	locker := app.Locker(time.Minute, ports.SystemClock{})
	lk, err := locker.Acquire(context.Background(), "prod", "web", ports.LockHolder{User: "alice", Host: "h", PID: 1})
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	defer func() { _ = lk.Release(context.Background()) }()
	_, err = locker.Acquire(context.Background(), "prod", "web", ports.LockHolder{User: "bob", Host: "h", PID: 2})
	var le *ports.LockedError
	if !errors.As(err, &le) || le.Holder.User != "app" {
		t.Fatalf("second Acquire = %v, want a LockedError naming the session's user", err)
	}
}

// Without the tables and without the right to create them, Open says so.
func TestNoTablesAndNoCreateRights(t *testing.T) {
	dbURL := db.Database(t)
	execSQL(t, dbURL, `CREATE ROLE nobody_app LOGIN PASSWORD 'pw'`, `REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
	_, err := postgres.Open(context.Background(), asUser(t, dbURL, "nobody_app", "pw"))
	if err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("Open = %v, want permission denied", err)
	}
}

// Wrong credentials and an unreachable server are errors naming the host and
// the database, never the password.
func TestConnectionErrorsNameTheDatabase(t *testing.T) {
	srv := db.Need(t)
	dbURL := db.Database(t)
	u, _ := url.Parse(dbURL)
	name := strings.TrimPrefix(u.Path, "/")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	unreachable := *u
	unreachable.Host = "127.0.0.1:" + strconv.Itoa(closedPort)
	for label, c := range map[string]struct{ url, target string }{
		"wrong password": {asUser(t, dbURL, "postgres", "s3cr3t-wrong"), "127.0.0.1:" + strconv.Itoa(srv.Port) + "/" + name},
		"unreachable":    {unreachable.String(), unreachable.Host + "/" + name},
		"key=value form": {"host=127.0.0.1 port=" + strconv.Itoa(srv.Port) + " dbname=" + name + " user=postgres password=s3cr3t-wrong sslmode=disable", "127.0.0.1:" + strconv.Itoa(srv.Port) + "/" + name},
	} {
		t.Run(label, func(t *testing.T) {
			_, err := postgres.Open(context.Background(), c.url)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), c.target) {
				t.Errorf("error %q does not name %s", err, c.target)
			}
			if strings.Contains(err.Error(), "s3cr3t-wrong") || strings.Contains(err.Error(), srv.Password) {
				t.Errorf("error %q shows a password", err)
			}
		})
	}
}

// A row whose body does not decode is reported; the others are listed.
func TestUndecodableRecord(t *testing.T) {
	dbURL := db.Database(t)
	s := open(t, dbURL)
	ctx := context.Background()
	for _, name := range []string{"good", "bad"} {
		if err := s.Create(ctx, porttest.Release("prod", name, 1, release.StatusDeployed)); err != nil {
			t.Fatal(err)
		}
	}
	execSQL(t, dbURL, `UPDATE releases_v1 SET body = 'not a record' WHERE name = 'bad'`)
	res, err := s.List(ctx, ports.ListQuery{Namespace: "prod", LatestOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Releases) != 1 || res.Releases[0].Name != "good" {
		t.Errorf("listed %+v, want good only", res.Releases)
	}
	if len(res.Problems) != 1 || res.Problems[0].Release != "bad" || !strings.Contains(res.Problems[0].Error(), "prod/sh.helm.release.v1.bad.v1") {
		t.Errorf("problems = %v, want the bad row", res.Problems)
	}
	if _, err := s.Get(ctx, "prod", "bad", 1); err == nil {
		t.Error("Get of the bad row succeeded")
	}
	// It can still be deleted.
	if _, err := s.Delete(ctx, "prod", "bad", 1); err == nil || errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("Delete of the bad row = %v, want its decode error", err)
	}
	if _, err := s.Get(ctx, "prod", "bad", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("Get after Delete = %v", err)
	}
}
