package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler/crawlertest"
)

// TestCrawl_secondRunnerRefused: a second crawl of the same database and
// crawl name is refused at once, and the first finishes undisturbed.
func TestCrawl_secondRunnerRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs crawls in child processes")
	}
	bin := scentBinary(t)
	const n = 200
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: n, Delay: 10 * time.Millisecond})
	site.Hold(n / 2) // the first crawl runs until the second was refused
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/p0\n")
	db := filepath.Join(dir, "c.db")
	args := []string{"crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--max-pages", "0",
		"--delay", "0", "--host-parallelism", "0", "--workers", "2", "--quiet",
		// Short groups of writes: the first pages show while the first
		// crawl still runs, so the second starts against a running crawl.
		"--group-commit", "20ms"}
	first := exec.Command(bin, args...)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); countPages(db) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is being run by process") {
		t.Errorf("second crawl of a running crawl: %v\n%s", err, out)
	}
	site.Release()
	if err := first.Wait(); err != nil {
		t.Fatalf("first crawl: %v\n%s", err, firstOut.String())
	}
	if got := len(fetchedSet(t, db)); got != n {
		t.Errorf("first crawl fetched %d pages, want %d:\n%s", got, n, firstOut.String())
	}
}

// TestReadOnlyFile_commands: export, report, search and dedup work on a
// database the user cannot write, in a directory the user cannot write,
// and leave it as it was.
func TestReadOnlyFile_commands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	src := dupStore(t)
	root := t.TempDir()
	roDir := filepath.Join(root, "ro")
	os.Mkdir(roDir, 0o755)
	db := filepath.Join(roDir, "d.db")
	copyFile(t, src, db)
	bin := filepath.Join(root, "scent")
	copyFile(t, scentBinary(t), bin)
	os.Chmod(bin, 0o755)
	os.Chmod(db, 0o444)
	os.Chmod(roDir, 0o555)
	t.Cleanup(func() { os.Chmod(roDir, 0o755) })
	for p := root; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	before := fileHash(t, db)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = root
		if os.Geteuid() == 0 {
			// root writes anywhere: run as nobody, for whom the file is
			// really read-only.
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("scent %s on a read-only database: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := run("export", "--db", db); strings.Count(out, "\n") != 5 {
		t.Errorf("export of the read-only database: %q", out)
	}
	run("report", "--db", db, "--format", "json", "--topics", "pangolin")
	if out := run("search", "--db", db, "pangolin"); !strings.Contains(out, "x.test") {
		t.Errorf("search of the read-only database: %q", out)
	}
	run("dedup", "--db", db)
	if fileHash(t, db) != before {
		t.Error("the read-only database changed")
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(db + suffix); err == nil {
			t.Errorf("%s%s was created", db, suffix)
		}
	}
}

// TestExport_foreignDatabase: scent refuses another program's SQLite file
// and does not add its tables to it.
func TestExport_foreignDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "notes.db")
	d, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	d.Exec(`CREATE TABLE notes(x TEXT)`)
	d.Close()
	for _, args := range [][]string{{"export", "--db", db}, {"search", "--db", db, "x"}, {"report", "--db", db}} {
		if _, err := runScent(t, args...); err == nil || !strings.Contains(err.Error(), "not a scent database") {
			t.Errorf("scent %s: error %v", strings.Join(args, " "), err)
		}
	}
	d, _ = sql.Open("sqlite3", db)
	defer d.Close()
	var n int
	d.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'`).Scan(&n)
	if n != 1 {
		t.Errorf("%d tables in another program's database after scent read it, want its 1", n)
	}
}

// TestCommands_notSQLite: a --db that is not an SQLite database at all
// is said to be so, not to fail a read-only open, by a command that
// writes (crawl, revisit) as by one that reads (report), and is left as
// it was.
func TestCommands_notSQLite(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "notes.db")
	text := "these are notes, not a database; long enough to fill SQLite's 100-byte header, and then some more text\n"
	os.WriteFile(db, []byte(text), 0o644)
	seeds := writeSeeds(t, dir, "seed http://127.0.0.1:9/\n")
	for _, args := range [][]string{
		{"crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--max-pages", "1", "--quiet"},
		{"revisit", "--db", db, "--quiet"},
		{"report", "--db", db},
	} {
		_, err := runScent(t, args...)
		if err == nil || !strings.Contains(err.Error(), db+": not an SQLite database; give another --db") || strings.Contains(err.Error(), "read-only") {
			t.Errorf("scent %s: error %v, want one saying it is not an SQLite database", args[0], err)
		}
	}
	if b, _ := os.ReadFile(db); string(b) != text {
		t.Errorf("%s was written: %q", db, b)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func fileHash(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// TestCrawl_leaseExpiryIgnoredWithSQLite: --lease-expiry, which sets the
// leases of a crawl shared on PostgreSQL, is said to be ignored when
// given with a SQLite database, on the command line or by a config file,
// and the crawl goes on; without it nothing is said.
func TestCrawl_leaseExpiryIgnoredWithSQLite(t *testing.T) {
	site := crawlertest.NewSite(t, map[string]string{"/": "<html><body>home</body></html>"}, nil)
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/\n")
	config := filepath.Join(dir, "scent.yaml")
	os.WriteFile(config, []byte("crawl:\n  lease-expiry: 1m\n"), 0o644)
	const notice = "crawl: --lease-expiry sets the leases of a crawl shared on PostgreSQL (--db postgres://…) and is ignored with a SQLite database\n"
	for i, tc := range []struct {
		args   []string
		notice bool
	}{
		{[]string{"--lease-expiry", "1m"}, true},
		{[]string{"--config", config}, true},
		{nil, false},
	} {
		args := append([]string{"crawl", "--seeds", seeds, "--db", filepath.Join(dir, fmt.Sprintf("c%d.db", i)), "--strategy", "bfs", "--delay", "0", "--quiet"}, tc.args...)
		out, err := runScent(t, args...)
		if err != nil || !strings.Contains(out, "1 pages fetched in all") {
			t.Errorf("scent %s: %v, want the crawl done:\n%s", strings.Join(tc.args, " "), err, out)
		}
		if got := strings.Count(out, notice); got != 1 && tc.notice {
			t.Errorf("scent %s: the notice %d times, want once that --lease-expiry is ignored:\n%s", strings.Join(tc.args, " "), got, out)
		} else if !tc.notice && strings.Contains(out, "ignored") {
			t.Errorf("a crawl without --lease-expiry says a flag is ignored:\n%s", out)
		}
	}
}

// TestCrawl_groupCommitIgnoredWithPostgres: --group-commit groups a
// SQLite database's writes; with PostgreSQL the crawl says it is ignored
// (before it reaches the server, here one that is not there).
func TestCrawl_groupCommitIgnoredWithPostgres(t *testing.T) {
	site := crawlertest.NewSite(t, map[string]string{"/": "<html><body>home</body></html>"}, nil)
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/\n")
	const notice = "crawl: --group-commit groups the writes of a SQLite database and is ignored with PostgreSQL"
	for _, tc := range []struct {
		args   []string
		notice bool
	}{
		{[]string{"--group-commit", "1s"}, true},
		{nil, false},
	} {
		args := append([]string{"crawl", "--seeds", seeds, "--db", "postgres://scent@127.0.0.1:1/scent?connect_timeout=2", "--strategy", "bfs", "--delay", "0", "--quiet"}, tc.args...)
		out, err := runScent(t, args...)
		if err == nil {
			t.Fatalf("scent %s: no error from a server that is not there:\n%s", strings.Join(tc.args, " "), out)
		}
		if got := strings.Count(out, notice); tc.notice && got != 1 {
			t.Errorf("scent %s: the notice %d times, want once that --group-commit is ignored:\n%s", strings.Join(tc.args, " "), got, out)
		} else if !tc.notice && strings.Contains(out, "ignored") {
			t.Errorf("a crawl without --group-commit says a flag is ignored:\n%s", out)
		}
	}
}
