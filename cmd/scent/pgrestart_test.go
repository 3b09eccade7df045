package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/internal/pgtest"
)

// hostsWeb is a web of several hosts, each an httptest server of its own
// port: n pages /p0 … /p(n-1) on each, page i of host h linking to page
// i+1 of its own host, to page 2i+1 of the next host and to page 7i mod n
// of the one after, so that every page is reachable from any /p0. Every
// page request is logged by host and path; robots.txt is not found and
// not logged. Once trip page requests were made, tripped is closed and
// the requests after wait until release: a crawl stays mid-way until
// the test lets it go on.
type hostsWeb struct {
	hosts   []*httptest.Server
	n       int
	trip    int
	tripped chan struct{}
	gate    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	hits    map[string]int // page URL → requests
	served  int
}

func newHostsWeb(t *testing.T, hosts, n, trip int, delay time.Duration) *hostsWeb {
	w := &hostsWeb{hosts: make([]*httptest.Server, hosts), n: n, trip: trip, tripped: make(chan struct{}), gate: make(chan struct{}),
		hits: make(map[string]int)}
	for h := range w.hosts {
		w.hosts[h] = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			var i int
			if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); err != nil || i < 0 || i >= n || r.URL.Path != fmt.Sprintf("/p%d", i) {
				http.NotFound(rw, r)
				return
			}
			w.mu.Lock()
			w.hits[w.page(h, i)]++
			w.served++
			served := w.served
			w.mu.Unlock()
			switch {
			case served == w.trip:
				close(w.tripped)
			case served > w.trip:
				select {
				case <-w.gate:
				case <-r.Context().Done():
					return
				}
			}
			time.Sleep(delay)
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(rw, "<html><head><title>host %d page %d</title></head><body>page %d of host %d, %d", h, i, i, h, (h+1)*i*7919)
			for k, j := range []int{i + 1, 2*i + 1, (7 * i) % n} {
				if j < n {
					fmt.Fprintf(rw, ` <a href="%s">a link</a>`, w.page((h+k)%hosts, j))
				}
			}
			fmt.Fprint(rw, "</body></html>")
		}))
		t.Cleanup(w.hosts[h].Close)
	}
	t.Cleanup(w.release) // before the servers close, which waits for their requests
	return w
}

// release lets the requests after the trip be answered.
func (w *hostsWeb) release() { w.once.Do(func() { close(w.gate) }) }

// page returns the URL of page i of host h.
func (w *hostsWeb) page(h, i int) string {
	return fmt.Sprintf("%s/p%d", w.hosts[h].URL, i)
}

// pages returns the URLs of every page of the web, sorted.
func (w *hostsWeb) pages() []string {
	var out []string
	for h := range w.hosts {
		for i := 0; i < w.n; i++ {
			out = append(out, w.page(h, i))
		}
	}
	slices.Sort(out)
	return out
}

// requests returns how many times each page of the web was requested.
func (w *hostsWeb) requests() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]int, len(w.hits))
	for u, k := range w.hits {
		out[u] = k
	}
	return out
}

// process is a scent command run as a child process, killed if the test
// ends first.
type process struct {
	cmd  *exec.Cmd
	out  syncBuffer // standard output and error, readable while it runs
	exit chan error
}

func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), exit: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exit <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

// wait waits for the process to end, for up to d, and returns its error.
func (p *process) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.exit:
		return err
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.exit
		t.Fatalf("%s did not end in %s:\n%s", strings.Join(p.cmd.Args, " "), d, &p.out)
		return nil
	}
}

// await waits, for up to a minute, until cond holds, polling; it fails
// t, showing the process's output, if it does not.
func (p *process) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not in 60s:\n%s", what, &p.out)
		}
	}
}

// says reports whether the process's output holds s so far.
func (p *process) says(s string) bool { return strings.Contains(p.out.String(), s) }

// queryInt runs a query of one integer on a connection of its own; -1
// when it fails (the schema not made yet, the server down).
func queryInt(url, query string) int {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return -1
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
		return -1
	}
	return n
}

// TestCrawl_postgresSharedRestart: two crawl processes share one crawl
// of a web of three hosts on PostgreSQL. Once a third of the pages was
// requested the web holds the other requests; when both processes hold
// the crawl the server is stopped (fast: the sessions ended, 57P01), the
// web answers again, and the server is started a second later, within
// the processes' lease expiry. Both processes say they lost the server
// and found it again, both fetch pages, and both end normally (exit 0,
// frontier empty). The store then holds exactly the web's pages, each
// once; the web saw every page requested exactly once (none lost, none
// fetched twice across the processes or the restart); nothing is left
// leased, waiting or on the frontier, and the crawl's counters agree
// with its rows.
func TestCrawl_postgresSharedRestart(t *testing.T) {
	srv := pgtest.Private(t)
	db, err := srv.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bin := scentBinary(t)
	const hosts, n = 3, 40
	total := hosts * n
	web := newHostsWeb(t, hosts, n, total/3, 5*time.Millisecond)
	var seedLines strings.Builder
	for h := 0; h < hosts; h++ {
		fmt.Fprintf(&seedLines, "seed %s\n", web.page(h, 0))
	}
	seeds := writeSeeds(t, t.TempDir(), seedLines.String())
	// A host is leased once per --delay across the processes: with one
	// host they would take turns, with three both have work. The leases
	// outlive the outage, so no URL goes to a second process.
	var procs []*process
	for i := 0; i < 2; i++ {
		procs = append(procs, startProcess(t, bin, "crawl", "--seeds", seeds, "--db", db, "--crawl", "restart", "--strategy", "bfs",
			"--max-pages", "0", "--delay", "10ms", "--host-parallelism", "0", "--workers", "2", "--retries", "0", "--sitemaps=false",
			"--lease-expiry", "30s", "--max-outage", "60s", "--user-agent", fmt.Sprintf("scent-test-%d", i), "--quiet"))
	}
	// Mid-crawl, whatever the machine's speed: a third requested, the
	// rest held, both processes at work on the crawl.
	select {
	case <-web.tripped:
	case <-time.After(60 * time.Second):
		t.Fatalf("a third of the pages not requested in 60s:\n%s\n%s", &procs[0].out, &procs[1].out)
	}
	for deadline := time.Now().Add(60 * time.Second); queryInt(db, `SELECT count(*) FROM holders`) < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("the second process did not join the crawl in 60s:\n%s\n%s", &procs[0].out, &procs[1].out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := queryInt(db, `SELECT count(*) FROM pages`)
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	web.release()
	time.Sleep(time.Second)
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		if err := p.wait(t, 90*time.Second); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, &p.out)
		}
		out := p.out.String()
		if !strings.Contains(out, "database server lost") || !strings.Contains(out, "database server back") {
			t.Errorf("process %d does not tell the server lost and back:\n%s", i, out)
		}
		if !strings.Contains(out, "frontier empty") {
			t.Errorf("process %d did not end with an empty frontier:\n%s", i, out)
		}
	}

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var stored []string
	rows, err := conn.Query(ctx, `SELECT url FROM pages WHERE failure = '' ORDER BY url`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u string
		rows.Scan(&u)
		stored = append(stored, u)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(stored)
	if want := web.pages(); !slices.Equal(stored, want) {
		t.Errorf("%d pages stored, %d distinct; want the web's %d pages, each once (missing %d)",
			len(stored), len(slices.Compact(slices.Clone(stored))), len(want), countMissing(want, stored))
	}
	twice, never := 0, 0
	reqs := web.requests()
	for _, u := range web.pages() {
		switch k := reqs[u]; {
		case k == 0:
			never++
		case k > 1:
			twice++
		}
	}
	if twice > 0 || never > 0 {
		t.Errorf("%d pages requested more than once, %d never; want each once", twice, never)
	}
	var pages, fetched, succeeded, waiting, holders, byHolders, notFetched, frontier, hostsOff int
	err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pages WHERE crawl_id = c.id), c.fetched, c.succeeded, c.waiting,
			(SELECT count(*) FROM holders WHERE crawl_id = c.id),
			(SELECT count(DISTINCT holder) FROM pages WHERE crawl_id = c.id),
			(SELECT count(*) FROM urls WHERE crawl_id = c.id AND state <> 2),
			(SELECT count(*) FROM frontier WHERE crawl_id = c.id),
			(SELECT count(*) FROM hosts h WHERE h.crawl_id = c.id AND h.waiting <> 0)
		FROM crawls c WHERE c.name = 'restart'`).Scan(&pages, &fetched, &succeeded, &waiting, &holders, &byHolders, &notFetched, &frontier, &hostsOff)
	if err != nil {
		t.Fatal(err)
	}
	if pages != total || fetched != total || succeeded != total {
		t.Errorf("%d page rows, counters fetched %d, succeeded %d; want %d each", pages, fetched, succeeded, total)
	}
	if waiting != 0 || notFetched != 0 || frontier != 0 || hostsOff != 0 || holders != 0 {
		t.Errorf("the crawl's end: %d waiting (counter), %d URLs not fetched, %d frontier rows, %d hosts with URLs waiting, %d holders left; want none",
			waiting, notFetched, frontier, hostsOff, holders)
	}
	if byHolders != 2 {
		t.Errorf("pages stored by %d processes, want both", byHolders)
	}
	t.Logf("server stopped after %d of %d pages; both processes ended:\n%s\n%s", before, total, &procs[0].out, &procs[1].out)
}

// countMissing returns how many of want are not in got (both sorted).
func countMissing(want, got []string) int {
	missing := 0
	for _, u := range want {
		if _, ok := slices.BinarySearch(got, u); !ok {
			missing++
		}
	}
	return missing
}
