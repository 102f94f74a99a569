// Package pgserver runs a throwaway PostgreSQL server for tests, as package
// test/cluster runs Kubernetes: Debian's postgresql binaries, a data directory
// and a unix socket directory in a temporary directory, listening on a free
// port of 127.0.0.1 with password authentication, stopped (and the directory
// removed) after the tests. initdb refuses to run as root, so when the tests
// run as root the server runs as the system user "postgres" (else "nobody"),
// switched to through the child's credentials (what runuser does).
package pgserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinDirEnv names a directory holding initdb and postgres, when they are not
// in Debian's /usr/lib/postgresql/<major>/bin.
const BinDirEnv = "KUBECTL_CHART_TEST_PG_BIN"

// Superuser is the server's superuser; its password is Server.Password.
const Superuser = "postgres"

// ErrNoPostgres means no PostgreSQL binaries were found.
var ErrNoPostgres = errors.New("PostgreSQL not found: install Debian's postgresql package (binaries in /usr/lib/postgresql/<major>/bin) or set $" + BinDirEnv)

// BinDir finds initdb and postgres: $KUBECTL_CHART_TEST_PG_BIN, else the
// newest /usr/lib/postgresql/<major>/bin.
func BinDir() (string, error) {
	if d := os.Getenv(BinDirEnv); d != "" {
		return d, checkBinDir(d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if checkBinDir(d) == nil {
			return d, nil
		}
	}
	return "", ErrNoPostgres
}

func major(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func checkBinDir(d string) error {
	for _, b := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(d, b)); err != nil {
			return fmt.Errorf("%w: %v", ErrNoPostgres, err)
		}
	}
	return nil
}

// Server is a running PostgreSQL server.
type Server struct {
	// Dir holds the data directory, the socket directory and the log.
	Dir      string
	Port     int
	Password string
	bin      string
	cred     *credential
	proc     *exec.Cmd
	done     chan struct{}
}

// Start initialises a database cluster in a new temporary directory and
// starts a server on it.
func Start(ctx context.Context) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubectl-chart-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, bin: bin, cred: cred}
	if err := s.init(ctx); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := s.start(ctx); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) dataDir() string   { return filepath.Join(s.Dir, "data") }
func (s *Server) socketDir() string { return filepath.Join(s.Dir, "sock") }

// LogFile is the server's log.
func (s *Server) LogFile() string { return filepath.Join(s.Dir, "postgres.log") }

func (s *Server) init(ctx context.Context) error {
	pw := make([]byte, 16)
	if _, err := rand.Read(pw); err != nil {
		return err
	}
	s.Password = hex.EncodeToString(pw)
	pwFile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwFile, []byte(s.Password+"\n"), 0o600); err != nil {
		return err
	}
	for _, d := range []string{s.socketDir()} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if err := s.cred.own(s.Dir, pwFile, s.socketDir()); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "initdb"), "-D", s.dataDir(), "-U", Superuser,
		"--pwfile="+pwFile, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.SysProcAttr = s.cred.sysProcAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return os.Remove(pwFile)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start(ctx context.Context) error {
	if s.Port == 0 {
		p, err := freePort()
		if err != nil {
			return err
		}
		s.Port = p
	}
	log, err := os.OpenFile(s.LogFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	// Durability is not what these tests measure: no fsync keeps them fast.
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), "-D", s.dataDir(), "-k", s.socketDir(),
		"-h", "127.0.0.1", "-p", strconv.Itoa(s.Port),
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "log_min_messages=warning")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = s.cred.sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.proc, s.done = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			return c.Close(ctx)
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited at start; see %s", s.LogFile())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after 60s: %w; see %s", err, s.LogFile())
		}
	}
}

// URL is the superuser's connection URL of database db over TCP.
func (s *Server) URL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(Superuser, s.Password), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// Stop shuts the server down (fast shutdown: sessions are ended).
func (s *Server) Stop() error {
	if s.proc == nil {
		return nil
	}
	_ = s.proc.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.proc.Process.Kill()
		<-s.done
	}
	s.proc = nil
	return nil
}

// Restart stops the server and starts it again on the same port and data:
// every session is cut.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Stop(); err != nil {
		return err
	}
	return s.start(ctx)
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	err := s.Stop()
	return errors.Join(err, os.RemoveAll(s.Dir))
}

// CreateDatabase creates an empty database and returns its superuser URL.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	if err := s.Exec(ctx, "postgres", "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	return s.URL(name), nil
}

// Exec runs statements as the superuser in database db.
func (s *Server) Exec(ctx context.Context, db string, stmts ...string) error {
	c, err := pgx.Connect(ctx, s.URL(db))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, st := range stmts {
		if _, err := c.Exec(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", strings.SplitN(st, "\n", 2)[0], err)
		}
	}
	return nil
}
