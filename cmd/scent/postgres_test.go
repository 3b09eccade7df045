package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

// pgCount runs a counting query on the database at url.
func pgCount(t *testing.T, url, query string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
		return -1 // the schema is not there yet
	}
	return n
}

// sharedRun is crawl processes of one crawl, each a child process, of
// which the tests kill one with -9.
type sharedRun struct {
	cmds  []*exec.Cmd
	outs  []*bytes.Buffer
	exits []chan error
}

// startShared starts procs processes of bin with the arguments args
// gives each; they are killed if the test ends first.
func startShared(t *testing.T, bin string, procs int, args func(i int) []string) *sharedRun {
	t.Helper()
	r := &sharedRun{cmds: make([]*exec.Cmd, procs), outs: make([]*bytes.Buffer, procs), exits: make([]chan error, procs)}
	for i := range r.cmds {
		r.cmds[i] = exec.Command(bin, args(i)...)
		r.outs[i] = new(bytes.Buffer)
		r.cmds[i].Stdout, r.cmds[i].Stderr = r.outs[i], r.outs[i]
		if err := r.cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
		r.exits[i] = make(chan error, 1)
		go func() { r.exits[i] <- r.cmds[i].Wait() }()
		t.Cleanup(func() { r.cmds[i].Process.Kill() })
	}
	return r
}

// await polls ready every 10 ms, for up to 60 s, and fails the test if
// process victim ends before ready holds.
func (r *sharedRun) await(t *testing.T, victim int, ready func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !ready() && time.Now().Before(deadline); {
		select {
		case err := <-r.exits[victim]:
			t.Fatalf("process %d ended before the kill: %v\n%s", victim, err, r.outs[victim])
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// kill kills process victim with -9 and waits for it to end.
func (r *sharedRun) kill(victim int) {
	r.cmds[victim].Process.Signal(syscall.SIGKILL)
	<-r.exits[victim]
}

// waitOthers waits for every process but victim and fails the test if
// one failed or did not end with an empty frontier.
func (r *sharedRun) waitOthers(t *testing.T, victim int) {
	t.Helper()
	for i := range r.cmds {
		if i == victim {
			continue
		}
		if err := <-r.exits[i]; err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, r.outs[i])
		}
		if !strings.Contains(r.outs[i].String(), "frontier empty") {
			t.Errorf("process %d did not end with an empty frontier:\n%s", i, r.outs[i])
		}
	}
}

// TestCrawl_postgresShared: four crawl processes share one crawl on
// PostgreSQL; one is killed with -9 midway. Every page of the site is
// stored once, every page was requested, and no page was requested twice
// but those the killed process had in flight.
func TestCrawl_postgresShared(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs crawls in child processes")
	}
	db := pgtest.URL(t)
	bin := scentBinary(t)
	const n, procs, workers, victim = 400, 4, 2, 1
	// Page i links to i+1, 2i+1 and 7i mod n (all reachable from /p0);
	// the site counts the requests of every User-Agent.
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: n, Delay: 20 * time.Millisecond,
		Text: func(i int) string { return fmt.Sprintf("page number %d of the shared crawl, %d", i, i*7919) }})
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/p0\n")
	run := startShared(t, bin, procs, func(i int) []string {
		return []string{"crawl", "--seeds", seeds, "--db", db, "--crawl", "shared", "--strategy", "bfs",
			"--max-pages", "0", "--delay", "0", "--host-parallelism", "0", "--workers", fmt.Sprint(workers), "--retries", "0",
			"--sitemaps=false", "--lease-expiry", "2s", "--user-agent", fmt.Sprintf("scent-test-%d", i), "--quiet"}
	})
	run.await(t, victim, func() bool { return pgCount(t, db, `SELECT count(*) FROM pages`) >= n/4 })
	run.kill(victim)
	killedAt := pgCount(t, db, `SELECT count(*) FROM pages`)
	if killedAt >= n {
		t.Fatalf("killed after %d pages: the kill did not land mid-crawl", killedAt)
	}
	run.waitOthers(t, victim)
	if got := pgCount(t, db, `SELECT count(DISTINCT url) FROM pages WHERE failure = ''`); got != n {
		t.Errorf("%d distinct pages stored, want %d", got, n)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM pages`); got != n {
		t.Errorf("%d page records stored, want %d (each URL once)", got, n)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM urls WHERE state <> 2`); got != 0 {
		t.Errorf("%d URLs left waiting or leased", got)
	}
	// The server's log: each page requested; twice only when the killed
	// process had it in flight (its workers' fetches, and the results
	// of its last batch not committed).
	killedUA := fmt.Sprintf("scent-test-%d", victim)
	twice := 0
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("/p%d", i)
		total := site.Hits(p)
		others := total - site.HitsBy(p, killedUA)
		switch {
		case total == 0:
			t.Errorf("/p%d was never requested", i)
		case others > 1:
			t.Errorf("/p%d was requested %d times by the processes that lived", i, others)
		case total > 1:
			twice++
		}
	}
	t.Logf("killed after %d of %d pages; %d pages requested twice (in flight in the killed process)", killedAt, n, twice)
	if limit := leasedAtKill(workers); twice > limit {
		t.Errorf("%d pages requested twice; only the %d the killed process may have had leased may be", twice, limit)
	}
}

// TestCrawl_postgresReplay: one focused crawl of the real corpus on
// PostgreSQL, model trained by the crawl: it stores its budget of pages,
// keeps the model in the database for the next process, and asked the
// replay for each stored URL once.
func TestCrawl_postgresReplay(t *testing.T) {
	addr, seeds, log := courseReplay(t)
	db := pgtest.URL(t)
	args := []string{"crawl", "--seeds", seeds, "--db", db, "--crawl", "course", "--proxy", "http://" + addr,
		"--delay", "0", "--host-parallelism", "0", "--max-pages", "150", "--quiet"}
	out, err := runScent(t, args...)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM pages WHERE failure = ''`); got != 150 {
		t.Errorf("%d successful pages stored, want the budget of 150\n%s", got, out)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM models WHERE name IN ('crawl/course', 'crawl/course/page', 'crawl/course/prior')`); got != 3 {
		t.Errorf("%d models in the database, want the model, the page judge and the learner's prior", got)
	}
	if !strings.Contains(out, "training pages, kept in the database (crawl/course/prior)") {
		t.Errorf("the first process did not prime its learner from the prior it kept:\n%s", out)
	}
	// The judge is stored first: a process that finds the model finds
	// its judge too, and does not train them again.
	if got := pgCount(t, db, `SELECT count(*) FROM models m JOIN models j ON j.name = 'crawl/course/page' WHERE m.name = 'crawl/course' AND j.saved_at < m.saved_at`); got != 1 {
		t.Error("the page judge was not stored before the model")
	}
	if got := pgCount(t, db, `SELECT count(*) FROM page_scores`); got < 150 {
		t.Errorf("%d page scores stored for 150 pages", got)
	}
	// The crawl keeps the pages its model learnt from (scent report's
	// default list of pages that are no targets).
	s, err := training.LoadSeeds(seeds)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pgCount(t, db, `SELECT count(*) FROM learnt`), len(training.LearntFrom(s, nil)); got != want || want == 0 {
		t.Errorf("%d pages kept as learnt from, want the seed file's %d training pages", got, want)
	}
	// Each stored URL was asked once, by its own fetch.
	asked := askedCounts(log.String())
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT url FROM pages`)
	if err != nil {
		t.Fatal(err)
	}
	urls, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	// A redirect's target is also asked by the fetch that followed it.
	rows, err = conn.Query(context.Background(), `SELECT target FROM aliases`)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	redirected := make(map[string]int)
	for _, u := range targets {
		redirected[u]++
	}
	for _, u := range urls {
		if asked[u] < 1 || asked[u] > 1+redirected[u] {
			t.Errorf("%s stored, asked %d times (%d redirects to it)", u, asked[u], redirected[u])
		}
	}
	// A second process of the same crawl uses the stored model. Its
	// learner finds no state saved (as when processes start together)
	// and primes from the prior the first kept, reading no training page.
	if _, err := conn.Exec(context.Background(), `DELETE FROM learners`); err != nil {
		t.Fatal(err)
	}
	trainingAsks := func() int {
		asked := askedCounts(log.String())
		n := 0
		for _, u := range training.LearntFrom(s, nil) {
			n += asked[u.String()]
		}
		return n
	}
	before := trainingAsks()
	args[slices.Index(args, "--max-pages")+1] = "200"
	out, err = runScent(t, args...)
	if err != nil || !strings.Contains(out, "using the model of crawl \"course\" stored in the database") ||
		!strings.Contains(out, "using the page judge of crawl \"course\" stored in the database") {
		t.Errorf("second process: %v\n%s", err, out)
	}
	if !strings.Contains(out, "training pages, kept in the database (crawl/course/prior)") {
		t.Errorf("second process: did not prime from the stored prior:\n%s", out)
	}
	if n := trainingAsks() - before; n != 0 {
		t.Errorf("second process: %d requests for training pages, want none", n)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM pages WHERE failure = ''`); got != 200 {
		t.Errorf("after the second process %d successful pages, want the budget of 200", got)
	}
	// A stored model whose record of its window is damaged is refused,
	// as a model file is.
	tag, err := conn.Exec(context.Background(), `UPDATE models SET model = convert_to(regexp_replace(convert_from(model, 'UTF8'), '"window": *"[0-9]+"', '"window":"abc"'), 'UTF8') WHERE name = 'crawl/course'`)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("damage the stored model: %v, %d rows", err, tag.RowsAffected())
	}
	args[slices.Index(args, "--max-pages")+1] = "250"
	out, err = runScent(t, args...)
	if err == nil || !strings.Contains(err.Error(), `meta window "abc"`) {
		t.Errorf("a process with the stored model damaged: %v, want the window named\n%s", err, out)
	}
}

// TestRevisit_postgres: scent revisit on a crawl kept on PostgreSQL
// stores the new versions, the change log and, with --watch, the
// schedule in that database.
func TestRevisit_postgres(t *testing.T) {
	db := pgtest.URL(t)
	site := newChangingSite(t)
	srv := site.srv
	seeds := writeSeeds(t, t.TempDir(), "seed "+srv.URL+"/\n")
	if out, err := runScent(t, "crawl", "--seeds", seeds, "--db", db, "--crawl", "site", "--strategy", "bfs", "--delay", "0", "--quiet"); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	site.setText("the course meets on tuesday at noon")
	out, err := runScent(t, "revisit", "--db", db, "--delay", "0", "--quiet")
	if err != nil {
		t.Fatalf("revisit: %v\n%s", err, out)
	}
	if want := `revisit "site": 2 pages checked: 1 changed, 0 unchanged, 1 not modified (304), 0 failed; 0 not due`; !strings.Contains(out, want) {
		t.Errorf("revisit printed %q, want %q", out, want)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM change_log`); got != 2 {
		t.Errorf("%d change-log rows, want 2", got)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM page_versions WHERE text LIKE '%tuesday%' AND version = 2`); got != 1 {
		t.Errorf("%d second versions with the new text, want 1", got)
	}
	// Nothing is due an hour later, and the scheduler is refused.
	if out, err := runScent(t, "revisit", "--db", db, "--crawl", "site", "--delay", "0", "--quiet", "--older-than", "1h"); err != nil || !strings.Contains(out, "0 pages checked") {
		t.Errorf("revisit --older-than 1h: %v\n%s", err, out)
	}
	// The scheduler, nine simulated days on a fast clock (about 4 s),
	// keeps the schedule in the database too. A page of the weekly group
	// is due a week after its last check at its hour of the day, up to a
	// day later: a week alone would end before it when the test runs
	// after that hour.
	epoch := time.Now().UTC()
	out, err = runScent(t, "revisit", "--watch", "--db", db, "--delay", "0", "--quiet", "--policy", "groups",
		"--clock-epoch", epoch.Format(time.RFC3339Nano), "--clock-scale", "200000",
		"--until", epoch.Add(9*24*time.Hour).Format(time.RFC3339))
	if err != nil {
		t.Fatalf("revisit --watch: %v\n%s", err, out)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM refresh_schedule`); got != 2 {
		t.Errorf("%d pages scheduled, want 2", got)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM change_log`); got < 4 {
		t.Errorf("%d change-log rows after nine days of watching, want the scheduler's checks beside the 2 before", got)
	}
	if _, err := runScent(t, "revisit", "--db", db, "--crawl", "nope", "--quiet"); err == nil || !strings.Contains(err.Error(), `crawl "nope"`) {
		t.Errorf("revisit of a missing crawl: %v", err)
	}
}

// reachableWithin returns the stored pages of a that a breadth-first
// crawl from the one seed reaches within depth links, independently of
// the crawler: the replay's own link extraction ((*replay.Page).Links)
// and routing (directory redirects keep the depth of their URL), and of
// the pages reached only those served as HTML, which a crawl accepts.
// From one seed and with a depth limit of 2 the set a crawl stores does
// not depend on the order of its fetches, however many processes share
// it: the seed's links are all queued at depth 1 before any other page is
// fetched, and pages at depth 2 are not expanded. (A redirect among the
// seed's links would break this: its target keeps depth 1 only when not
// queued at depth 2 before. The Cornell home page links to none.)
func reachableWithin(a *replay.Archive, seed urlnorm.URL, depth int) map[*replay.Page]bool {
	dist := make(map[*replay.Page]int)
	if p, ok := a.Follow(seed); ok {
		dist[p] = 0
	}
	out := make(map[*replay.Page]bool)
	for _, p := range linkgraph.BFS(a, []urlnorm.URL{seed}, func(p *replay.Page) []urlnorm.URL {
		d := dist[p]
		if d >= depth {
			return nil
		}
		ls := p.Links()
		for _, l := range ls {
			if q, ok := a.Follow(l); ok {
				if _, seen := dist[q]; !seen {
					dist[q] = d + 1
				}
			}
		}
		return ls
	}) {
		if p.IsHTML() {
			out[p] = true
		}
	}
	return out
}

// requestLog is the replay's request log read back: URL → User-Agent →
// statuses answered, robots.txt left out (every process asks it).
func requestLog(log string) map[string]map[string][]string {
	m := make(map[string]map[string][]string)
	for _, line := range strings.Split(log, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		u, status, ua := f[1], f[2], strings.Trim(strings.Join(f[3:], " "), `"`)
		if strings.HasSuffix(u, "/robots.txt") {
			continue
		}
		if m[u] == nil {
			m[u] = make(map[string][]string)
		}
		m[u][ua] = append(m[u][ua], status)
	}
	return m
}

// TestCrawl_postgresReplayShared: four processes crawl the WebKB replay
// breadth-first together, two links deep from the Cornell department's
// home page, and one is killed with -9 midway. The store then holds every
// page reachable within that scope (computed from the archive, not from
// the crawl), each URL once, none outside it, nothing leased; the
// replay's request log shows each stored URL asked once but those the
// killed process had in flight, and every URL the killed process was
// answered without committing it fetched again by another process.
func TestCrawl_postgresReplayShared(t *testing.T) {
	archive := sharedtest.Path(t, "corpus/webkb.tgz")
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	db := pgtest.URL(t)
	bin := scentBinary(t)
	a, err := webkb.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	seed := seeds[0] // cornell: 832 fetches, 108 pages within two links
	const depth, procs, workers, victim = 2, 4, 2, 2
	want := reachableWithin(a, seed, depth)

	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A delay per answer, as of a distant server, keeps the crawl long
	// enough for the kill to land in its middle.
	srv, err := replay.ServeWith(ctx, a, "127.0.0.1:0", replay.ServeOptions{Log: &log, Delay: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	seedFile := writeSeeds(t, t.TempDir(), "seed "+seed.String()+"\n")
	run := startShared(t, bin, procs, func(i int) []string {
		return []string{"crawl", "--seeds", seedFile, "--db", db, "--crawl", "webkb", "--strategy", "bfs",
			"--proxy", "http://" + srv.Addr(), "--max-depth", fmt.Sprint(depth), "--max-pages", "0",
			"--delay", "0", "--host-parallelism", "0", "--workers", fmt.Sprint(workers), "--retries", "0",
			"--sitemaps=false", "--lease-expiry", "2s", "--user-agent", fmt.Sprintf("scent-test-%d", i), "--quiet"}
	})
	const fetches = 830
	// Connected before the wait, so that the kill follows it at once (at
	// 800 fetches a second, a connection made in between let the crawl
	// run on past the scope's middle on a loaded machine).
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// The kill waits for the victim's own first pages too: a process
	// started last on a loaded machine may not have committed any when
	// the others have stored a quarter of the scope.
	victimPages := func() int {
		var n int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pages p JOIN holders h ON h.id = p.holder WHERE h.pid = $1`,
			run.cmds[victim].Process.Pid).Scan(&n); err != nil {
			return 0 // the schema is not there yet
		}
		return n
	}
	run.await(t, victim, func() bool { return pgCount(t, db, `SELECT count(*) FROM pages`) >= fetches/4 && victimPages() > 0 })
	// The killed process's holder, by its process id, to tell its pages.
	var victimHolder string
	if err := conn.QueryRow(context.Background(), `SELECT id FROM holders WHERE pid = $1`, run.cmds[victim].Process.Pid).Scan(&victimHolder); err != nil {
		t.Fatalf("holder of process %d: %v", victim, err)
	}
	run.kill(victim)
	var killedAt int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pages`).Scan(&killedAt); err != nil {
		t.Fatal(err)
	}
	if killedAt >= fetches*3/4 {
		t.Fatalf("killed after %d of about %d fetches: the kill did not land mid-crawl", killedAt, fetches)
	}
	run.waitOthers(t, victim)

	// The store: each URL once, nothing left waiting or leased, and the
	// successful pages exactly the pages reachable within the scope.
	if got := pgCount(t, db, `SELECT count(*) - count(DISTINCT url) FROM pages`); got != 0 {
		t.Errorf("%d URLs stored more than once", got)
	}
	if got := pgCount(t, db, `SELECT count(*) FROM urls WHERE state <> 2`); got != 0 {
		t.Errorf("%d URLs left waiting or leased", got)
	}
	type stored struct {
		url, failure, holder string
	}
	rows, err := conn.Query(context.Background(), `SELECT url, failure, COALESCE(holder, '') FROM pages`)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (stored, error) {
		var s stored
		err := r.Scan(&s.url, &s.failure, &s.holder)
		return s, err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[*replay.Page][]string)
	for _, s := range pages {
		if s.failure != "" {
			continue
		}
		p, ok := a.Follow(urlnorm.MustParse(s.url))
		if !ok {
			t.Errorf("%s stored, but the archive does not hold it", s.url)
			continue
		}
		got[p] = append(got[p], s.url)
	}
	for p := range want {
		if got[p] == nil {
			t.Errorf("%s is reachable within %d links, not stored", p.URL, depth)
		}
	}
	for p, urls := range got {
		if !want[p] {
			t.Errorf("%v stored, not reachable within %d links", urls, depth)
		}
	}

	// The replay's log: every stored URL asked, once by the processes
	// that lived; twice only when the killed process had it in flight.
	asked := requestLog(log.String())
	killedUA := fmt.Sprintf("scent-test-%d", victim)
	twice := 0
	storedBy := make(map[string]string, len(pages))
	for _, s := range pages {
		storedBy[s.url] = s.holder
		total, others := 0, 0
		for ua, statuses := range asked[s.url] {
			total += len(statuses)
			if ua != killedUA {
				others += len(statuses)
			}
		}
		switch {
		case total == 0:
			t.Errorf("%s stored, never asked", s.url)
		case others > 1:
			t.Errorf("%s asked %d times by the processes that lived", s.url, others)
		case total > 1:
			twice++
		}
		if s.holder == victimHolder && len(asked[s.url][killedUA]) == 0 {
			t.Errorf("%s stored by the killed process, which never asked it", s.url)
		}
	}
	// Nothing lost: what the killed process was answered and did not
	// commit was fetched again by another.
	victimStored := 0
	for u, byUA := range asked {
		if len(byUA[killedUA]) == 0 {
			continue
		}
		holder, ok := storedBy[u]
		switch {
		case !ok:
			t.Errorf("%s asked by the killed process (answered %v), stored by none", u, byUA[killedUA])
		case holder == victimHolder:
			victimStored++
		case len(byUA) < 2:
			t.Errorf("%s asked by the killed process only, stored by another", u)
		}
	}
	if victimStored == 0 {
		t.Error("the killed process stored nothing before the kill")
	}
	t.Logf("killed after %d of %d records (%d its own); %d pages reachable, %d stored; %d URLs asked twice (in flight in the killed process)",
		killedAt, len(pages), victimStored, len(want), len(got), twice)
	if limit := leasedAtKill(workers); twice > limit {
		t.Errorf("%d URLs asked twice; only the %d the killed process may have had leased may be", twice, limit)
	}
}

// TestReadCommands_postgres crawls a small site into PostgreSQL, and the
// same site into SQLite, and reads the crawl back with report (held-out
// recall with --trained), export and search, each from the database URL.
func TestReadCommands_postgres(t *testing.T) {
	db := pgtest.URL(t)
	// The home page links to three course pages, two others and a
	// missing page; every page has words of its own.
	pages := map[string]string{
		"/":   `<title>department home</title> welcome <a href="/c1">c1</a> <a href="/c2">c2</a> <a href="/c3">c3</a> <a href="/o1">o1</a> <a href="/o2">o2</a> <a href="/gone">gone</a>`,
		"/c1": `<title>compilers course</title> syllabus of the compilers course: parsing, register allocation, code generation`,
		"/c2": `<title>functional programming course</title> lambda calculus, type inference and monads, homework every friday`,
		"/c3": `<title>databases course</title> relational algebra, transactions and query optimisation, final exam in june`,
		"/o1": `<title>faculty list</title> professors and lecturers of the department with their office hours`,
		"/o2": `<title>research projects</title> robotics laboratory, vision group and the distributed systems seminar`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head></head><body>%s</body></html>", body)
	}))
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seeds := write("seeds.txt", "seed "+srv.URL+"/\n")
	labels := write("labels.tsv", fmt.Sprintf("%[1]s/c1\tcourse\n%[1]s/c2\tcourse\n%[1]s/c3\tcourse\n%[1]s/o1\tfaculty\n%[1]s/o2\tproject\n", srv.URL))
	trained := write("trained.txt", srv.URL+"/c1\n") // the model "learnt from" c1: no target
	sqliteDB := filepath.Join(dir, "site.db")
	for _, d := range []string{db, sqliteDB} {
		if out, err := runScent(t, "crawl", "--seeds", seeds, "--db", d, "--crawl", "site", "--strategy", "bfs", "--delay", "0", "--quiet"); err != nil {
			t.Fatalf("crawl into %s: %v\n%s", d, err, out)
		}
	}

	// report: the same figures from both stores; c1 is learnt from, so
	// the targets are c2 and c3, both found.
	type topicFigures struct {
		Topic    string `json:"topic"`
		Targets  int    `json:"targets"`
		Found    int    `json:"found"`
		Relevant int    `json:"relevant"`
	}
	type figures struct {
		Crawl      string         `json:"crawl"`
		Pages      int            `json:"pages"`
		Failed     int            `json:"failed"`
		HeldOut    bool           `json:"held_out"`
		LearntFrom int            `json:"learnt_from"`
		Topics     []topicFigures `json:"topics"`
	}
	var got [2]figures
	for i, d := range []string{db, sqliteDB} {
		out, err := runScent(t, "report", "--db", d, "--labels", labels, "--trained", trained, "--topics", "course", "--format", "json")
		if err != nil {
			t.Fatalf("report on %s: %v\n%s", d, err, out)
		}
		if err := json.Unmarshal([]byte(out), &got[i]); err != nil {
			t.Fatalf("report on %s: %v\n%s", d, err, out)
		}
	}
	want := figures{Crawl: "site", Pages: 6, Failed: 1, HeldOut: true, LearntFrom: 1,
		Topics: []topicFigures{{Topic: "course", Targets: 2, Found: 2, Relevant: 3}}}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("report on PostgreSQL: %+v, want %+v", got[0], want)
	}
	if !reflect.DeepEqual(got[1], got[0]) {
		t.Errorf("report on SQLite: %+v, on PostgreSQL %+v: want the same", got[1], got[0])
	}
	// Without --trained or --seeds nothing is beside a database URL: all
	// three course pages are targets, and the command says why.
	out, err := runScent(t, "report", "--db", db, "--labels", labels, "--topics", "course", "--format", "json")
	if err != nil {
		t.Fatalf("report without --trained: %v\n%s", err, out)
	}
	if !strings.Contains(out, "the crawl kept none") || !strings.Contains(out, `"targets": 3`) {
		t.Errorf("report without --trained on a database URL:\n%s", out)
	}

	// export: one line per fetch in fetch order, the home page first.
	exported := filepath.Join(dir, "pages.jsonl")
	if out, err := runScent(t, "export", "--db", db, "--crawl", "site", "--out", exported); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	data, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	var lines []experiment.ExportLine
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e experiment.ExportLine
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("export line %q: %v", l, err)
		}
		lines = append(lines, e)
	}
	if len(lines) != 7 || lines[0].URL != srv.URL+"/" || lines[0].Order != 1 {
		t.Fatalf("export wrote %d lines, first %+v: want 7 (6 pages and the missing one), the home page first", len(lines), lines[0])
	}
	byURL := make(map[string]experiment.ExportLine)
	for _, e := range lines {
		byURL[e.URL] = e
	}
	if e := byURL[srv.URL+"/c2"]; e.Status != 200 || e.Title != "functional programming course" || e.Depth != 1 {
		t.Errorf("exported /c2: %+v", e)
	}
	if e := byURL[srv.URL+"/gone"]; e.Status != 404 || e.Failure == "" {
		t.Errorf("exported /gone: %+v, want a 404 with its failure", e)
	}
	if _, err := runScent(t, "export", "--db", db, "--format", "warc", "--out", filepath.Join(dir, "warc")); err == nil || !strings.Contains(err.Error(), "keeps no raw responses") {
		t.Errorf("export --format warc from PostgreSQL: %v, want a refusal", err)
	}

	// search: one page speaks of lambda calculus, three of courses.
	out, err = runScent(t, "search", "--db", db, "--json", "lambda calculus")
	if err != nil {
		t.Fatalf("search: %v\n%s", err, out)
	}
	var hits []searchHit
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if len(hits) != 1 || hits[0].URL != srv.URL+"/c2" || hits[0].Crawl != "site" || !strings.Contains(hits[0].Snippet, "[lambda]") {
		t.Errorf("search lambda calculus: %+v, want /c2 alone with [lambda] in its snippet", hits)
	}
	out, err = runScent(t, "search", "--db", db, "--json", "course")
	if err != nil {
		t.Fatalf("search: %v\n%s", err, out)
	}
	hits = nil
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	var found []string
	for _, h := range hits {
		found = append(found, strings.TrimPrefix(h.URL, srv.URL))
	}
	slices.Sort(found)
	if !slices.Equal(found, []string{"/c1", "/c2", "/c3"}) {
		t.Errorf("search course found %v, want the three course pages", found)
	}
	if _, err := runScent(t, "report", "--db", db, "--crawl", "nope"); err == nil || !strings.Contains(err.Error(), `crawl "nope"`) {
		t.Errorf("report of a missing crawl: %v", err)
	}
}
