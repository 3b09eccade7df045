package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/postgres"
)

// exportLines reads the JSON lines of an export and returns the order of
// each page; it fails t on a line that is not a whole page.
func exportLines(t *testing.T, r io.Reader) []int {
	t.Helper()
	var orders []int
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e experiment.ExportLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("export line %d is not a whole page: %v", len(orders)+1, err)
		}
		orders = append(orders, e.Order)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return orders
}

// TestReadCommands_postgresRestart: scent export of a crawl on a
// PostgreSQL server that is stopped while the export is writing and
// started again 0.5s later waits for it and goes on after the last page
// it wrote: every page once, in order, exit 0, the outage said on
// standard error. A server that stays away past --max-outage ends the
// export with exit status 3, the pages written before it each whole on
// standard output, and an error saying the output is incomplete.
func TestReadCommands_postgresRestart(t *testing.T) {
	srv := pgtest.Private(t)
	ctx := context.Background()
	db, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bin := scentBinary(t)
	s, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // the schema
	// 2,000 pages with 8 kB titles: 16 MB to export, more than the pipe
	// and the sockets hold, so that the export is still reading when the
	// server stops.
	const n = 2000
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `WITH c AS (INSERT INTO crawls(name, strategy, stacks, topics, config, fetched, succeeded)
			VALUES ('big', 'bfs', '[""]', '[]', '{}', $1, $1) RETURNING id),
		u AS (INSERT INTO urls(crawl_id, url, host, state)
			SELECT c.id, 'http://big.test/' || i, 'big.test', 2 FROM c, generate_series(1, $1) i RETURNING crawl_id, id, url)
		INSERT INTO pages(crawl_id, ord, url_id, url, final_url, topic, depth, status, fetched_at, duration_ms, size,
			content_type, etag, modified, content_hash, title, text, failure)
		SELECT crawl_id, substr(url, 17)::bigint, id, url, url, '', 1, 200, now(), 1, 100, 'text/html', '', '', '', repeat('t', 8192), '', ''
		FROM u`, n)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// export starts reading; stopped midway by the full pipe, it meets
	// the server's stop.
	export := func(maxOutage string) (*exec.Cmd, *bufio.Reader, *bytes.Buffer) {
		cmd := exec.Command(bin, "export", "--db", db, "--max-outage", maxOutage)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		r := bufio.NewReader(stdout)
		if _, err := r.Peek(1); err != nil {
			t.Fatalf("export wrote nothing: %v\n%s", err, &stderr)
		}
		return cmd, r, &stderr
	}

	cmd, out, stderr := export("30s")
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	up := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		up <- srv.Up()
	}()
	orders := exportLines(t, out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("export across a restart: %v\n%s", err, stderr)
	}
	if err := <-up; err != nil {
		t.Fatal(err)
	}
	if len(orders) != n || !slices.IsSorted(orders) || orders[0] != 1 || orders[n-1] != n {
		t.Errorf("export across a restart wrote %d lines: want %d, pages 1 to %d in order, each once", len(orders), n, n)
	}
	if !strings.Contains(stderr.String(), "database server lost") || !strings.Contains(stderr.String(), "database server back") {
		t.Errorf("export does not say the server was lost and back:\n%s", stderr)
	}

	cmd, out, stderr = export("1s")
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	orders = exportLines(t, out)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUnreachable {
		t.Errorf("export with the server gone: %v, want exit status %d\n%s", err, exitUnreachable, stderr)
	}
	if len(orders) == 0 || len(orders) >= n || !slices.IsSorted(orders) || orders[len(orders)-1] != len(orders) {
		t.Errorf("export with the server gone wrote %d lines: want fewer than %d, pages 1 to %[1]d in order", len(orders), n)
	}
	for _, w := range []string{"lost the database server", fmt.Sprintf("stopped after %d pages, the output is incomplete", len(orders))} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("export with the server gone does not say %q:\n%s", w, stderr)
		}
	}
}
