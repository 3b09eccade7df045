package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Server is a PostgreSQL server running in a temporary directory.
type Server struct {
	dir    string // owned by the server's user
	bin    string // directory of initdb, pg_ctl
	port   int
	runAs  string // user to run the binaries as, or "" for the current one
	opts   string // the server's options (pg_ctl -o)
	nextDB atomic.Int64
}

var (
	once    sync.Once
	shared  *Server
	initErr error
)

// Main runs the tests of m and stops the server if one was started; a
// package whose tests call URL has a TestMain that calls
// os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	return code
}

// URL returns the address of a new, empty database on the package's
// server, started on first use. It skips t when PostgreSQL's binaries are
// absent or with -short (a server takes seconds to start and each
// database about a second to make), and fails it when the server cannot
// start.
func URL(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the PostgreSQL tests start a real server; run them without -short")
	}
	once.Do(func() { shared, initErr = Start() })
	if errors.Is(initErr, ErrNoBinaries) {
		t.Skipf("PostgreSQL is not installed (%v): install Debian's postgresql package to run this test", initErr)
	}
	if initErr != nil {
		t.Fatalf("start PostgreSQL: %v", initErr)
	}
	u, err := shared.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// ErrNoBinaries is returned by Start when initdb and pg_ctl are not found.
var ErrNoBinaries = errors.New("initdb and pg_ctl not found on PATH or in /usr/lib/postgresql/*/bin")

// Start creates a cluster in a temporary directory and starts a server on
// a free loopback port, without durability (fsync off): a server for
// tests and measurements, not for data to keep.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if os.Geteuid() == 0 {
		for _, name := range []string{"postgres", "nobody"} {
			if _, err := user.Lookup(name); err == nil {
				s.runAs = name
				break
			}
		}
		if s.runAs == "" {
			return nil, errors.New("running as root and neither user postgres nor nobody exists: initdb refuses to run as root")
		}
	}
	if s.dir, err = os.MkdirTemp("", "scent-pg-"); err != nil {
		return nil, err
	}
	if err := s.chown(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	data := filepath.Join(s.dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "scent", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(s.dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if s.port, err = freePort(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	s.opts = fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
		s.port, s.dir)
	if err := s.Up(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	return s, nil
}

// Private starts a server of t's own, stopped when t ends, for a test
// that stops and starts it (Down, Up) while others use the shared one.
// It skips t as URL does.
func Private(t testing.TB) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the PostgreSQL tests start a real server; run them without -short")
	}
	s, err := Start()
	if errors.Is(err, ErrNoBinaries) {
		t.Skipf("PostgreSQL is not installed (%v): install Debian's postgresql package to run this test", err)
	}
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Down stops the server as an administrator's fast shutdown does: the
// sessions are ended (SQLSTATE 57P01) and their open transactions rolled
// back. Up starts it again on the same port with the same data.
func (s *Server) Down() error {
	if out, err := s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// Up starts the server (again).
func (s *Server) Up() error {
	if out, err := s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-l", filepath.Join(s.dir, "log"), "-o", s.opts, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return nil
}

// Addr returns the address of the server's database postgres.
func (s *Server) Addr() string {
	return fmt.Sprintf("postgres://scent@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// NewDatabase creates an empty database and returns its address.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, s.Addr())
	if err != nil {
		return "", fmt.Errorf("connect to test server: %w", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), s.nextDB.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create database: %w", err)
	}
	return fmt.Sprintf("postgres://scent@127.0.0.1:%d/%s?sslmode=disable", s.port, name), nil
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() {
	s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(s.dir)
}

func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// chown gives the temporary directory to the user the server runs as.
func (s *Server) chown() error {
	if s.runAs == "" {
		return nil
	}
	u, err := user.Lookup(s.runAs)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(s.dir, uid, gid); err != nil {
		return fmt.Errorf("give %s to %s: %w", s.dir, s.runAs, err)
	}
	return nil
}

// binDir finds the directory holding initdb and pg_ctl.
func binDir() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // the newest version first
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
