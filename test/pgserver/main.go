package pgserver

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
)

// Shared is the server the tests of one package share, or why there is none.
type Shared struct {
	*Server
	err error
	n   atomic.Int64
}

// Main runs a package's tests with a server started for them and returns the
// exit code, for TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgserver.Main(m, &db)) }
//
// Without PostgreSQL the tests that need it skip, or fail when $CI is true.
// m is a *testing.M, or what runs it inside another harness's Main.
func Main(m interface{ Run() int }, shared **Shared) int {
	s, err := Start(context.Background())
	*shared = &Shared{Server: s, err: err}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgserver: %v\n", err)
	}
	code := m.Run()
	if s != nil {
		if code != 0 {
			fmt.Fprintf(os.Stderr, "pgserver: log kept in %s\n", s.LogFile())
			_ = s.Stop()
		} else if err := s.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "pgserver: %v\n", err)
		}
	}
	return code
}

// Need returns the server, or ends the test: a skip, or a failure under CI.
func (s *Shared) Need(t testing.TB) *Server {
	t.Helper()
	if s == nil || s.Server == nil {
		err := ErrNoPostgres
		if s != nil && s.err != nil {
			err = s.err
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required in CI: %v", err)
		}
		t.Skipf("no PostgreSQL: %v", err)
	}
	return s.Server
}

// Database creates a fresh database for one test and returns its superuser URL.
func (s *Shared) Database(t testing.TB) string {
	t.Helper()
	srv := s.Need(t)
	url, err := srv.CreateDatabase(context.Background(), fmt.Sprintf("t%d", s.n.Add(1)))
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	return url
}
