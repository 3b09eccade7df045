package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler/crawlertest"
)

// buildScent compiles the command once per test binary run.
var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func scentBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "scent-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "scent")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func countPages(db string) int {
	d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=2000")
	if err != nil {
		return 0
	}
	defer d.Close()
	var n int
	if err := d.QueryRow(`SELECT COUNT(*) FROM pages`).Scan(&n); err != nil {
		return 0
	}
	return n
}

func fetchedSet(t *testing.T, db string) []string {
	t.Helper()
	d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Query(`SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY u.url`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

func TestCrawl_killAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs crawls in child processes")
	}
	bin := scentBinary(t)
	const n, workers = 400, 8
	// Groups of writes shorter than the default, so that the crawl is
	// many groups long and each kill lands within one.
	const group = 20 * time.Millisecond
	dir := t.TempDir()

	crawl := func(site *crawlertest.ChainSite, db string) *exec.Cmd {
		seeds := filepath.Join(dir, "seeds-"+filepath.Base(db)+".txt")
		os.WriteFile(seeds, []byte("seed "+site.Server.URL+"/p0\n"), 0o644)
		return exec.Command(bin, "crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs",
			"--max-pages", "0", "--delay", "0", "--host-parallelism", "0", "--workers", fmt.Sprint(workers), "--quiet",
			"--group-commit", group.String())
	}

	// The reference: one uninterrupted crawl.
	ref := crawlertest.NewChainSite(t, crawlertest.Chain{N: n})
	refDB := filepath.Join(dir, "ref.db")
	if out, err := crawl(ref, refDB).CombinedOutput(); err != nil {
		t.Fatalf("reference crawl: %v\n%s", err, out)
	}
	want := fetchedSet(t, refDB)
	for i := range want {
		want[i] = strings.TrimPrefix(want[i], ref.Server.URL)
	}

	// The same crawl, killed with SIGKILL at three points (a quarter, a
	// half and three quarters of the pages), each time run again, and
	// then left to finish.
	const delay = 3 * time.Millisecond
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: n, Delay: delay})
	db := filepath.Join(dir, "killed.db")
	var kills []int
	for _, at := range []int{n / 4, n / 2, 3 * n / 4} {
		cmd := crawl(site, db)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for countPages(db) < at && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		before := countPages(db)
		if before == 0 || before >= n {
			t.Fatalf("killed after %d pages: the kill did not land mid-crawl", before)
		}
		kills = append(kills, before)
	}
	if out, err := crawl(site, db).CombinedOutput(); err != nil {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "frontier empty") || !strings.Contains(string(out), `resuming crawl "default": `) {
		t.Errorf("resumed crawl did not say it resumed, or did not finish: %s", out)
	}
	got := fetchedSet(t, db)
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], site.Server.URL)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fetched set after kills and resumes (%d pages) differs from the uninterrupted crawl's (%d)", len(got), len(want))
	}
	// Pages only: each run reads the site's /sitemap.xml once, which is
	// no page fetched twice.
	twice := 0
	for path, h := range site.Paths() {
		if h > 1 && strings.HasPrefix(path, "/p") {
			twice++
		}
	}
	t.Logf("killed after %v of %d pages; %d pages fetched twice", kills, len(want), twice)
	// Fetched and not committed at each kill: at most what was leased,
	// and what the workers fetched into the group of writes not committed
	// yet (--group-commit: a fetch takes at least delay).
	inGroup := workers * int(group/delay)
	if limit := len(kills) * (leasedAtKill(workers) + inGroup); twice > limit {
		t.Errorf("%d pages fetched twice; only those in flight at the %d kills (at most %d) may be", twice, len(kills), limit)
	}
}

func TestCommands_trainCrawlExportReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := scentBinary(t)
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	topicPage := func(i int) string {
		return fmt.Sprintf(`<html><body><h1>Course CS%d</h1> lecture syllabus homework exam grading
			<a href="/c%d">course CS%d lecture notes</a>`+fill+`<a href="/o%d">sports football scores</a></body></html>`, i, i+1, i+1, i)
	}
	otherPage := func(i int) string {
		return fmt.Sprintf(`<html><body><h1>News %d</h1> parking weather dining`+fill+`
			<a href="/o%d">more sports football scores</a></body></html>`, i, i+1)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		switch {
		case r.URL.Path == "/":
			fmt.Fprint(w, `<html><body>Department. <a href="/c0">course CS0 lecture syllabus homework</a>
				one two three four five six seven eight nine ten eleven twelve <a href="/o0">campus parking news</a></body></html>`)
		case strings.HasPrefix(r.URL.Path, "/c") && func() bool { _, err := fmt.Sscanf(r.URL.Path, "/c%d", &i); return err == nil }() && i < 20:
			fmt.Fprint(w, topicPage(i))
		case strings.HasPrefix(r.URL.Path, "/o") && func() bool { _, err := fmt.Sscanf(r.URL.Path, "/o%d", &i); return err == nil }() && i < 20:
			fmt.Fprint(w, otherPage(i))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	seedFile := topicSeeds(t, srv.URL, dir)
	db := filepath.Join(dir, "t.db")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "SCENT_DELAY=0", "SCENT_HOST_PARALLELISM=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scent %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// The default crawler learns, follows every link (off-topic ones
	// last) and never fetches the examples it learnt from.
	learnt := filepath.Join(dir, "learnt.db")
	run("crawl", "--seeds", seedFile, "--db", learnt, "--max-pages", "100")
	var fetched []string
	for _, l := range strings.Split(strings.TrimSpace(run("export", "--db", learnt, "--format", "jsonl")), "\n") {
		var p struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		fetched = append(fetched, strings.TrimPrefix(p.URL, srv.URL))
	}
	all := " " + strings.Join(fetched, " ") + " "
	for i := 0; i < 20; i++ {
		if in := strings.Contains(all, fmt.Sprintf(" /c%d ", i)); in != (i < 10) {
			t.Errorf("default crawl: /c%d fetched %v, want %v (examples are not fetched): %v", i, in, i < 10, fetched)
		}
	}
	// What its learner learnt: links of course words lead to course
	// pages, links of sports words nowhere.
	if out := run("learnt", "--db", learnt, "--top", "40"); !strings.Contains(out, "topic course: evidence of ") ||
		!regexp.MustCompile(`(?s)lead to course pages.*\n    (anchor:)?(lecture|syllabus|notes) .*lead nowhere.*\n    (anchor:)?(sports|football|scores) `).MatchString(out) {
		t.Errorf("scent learnt: want course words leading to course pages, sports words nowhere:\n%s", out)
	}
	// The paper's crawler follows on-topic links only.
	out := run("crawl", "--seeds", seedFile, "--db", db, "--max-pages", "100", "--preset", "paper")
	if !strings.Contains(out, "frontier empty") || !strings.Contains(out, "the paper's crawler follows only the links it scores on-topic") {
		t.Errorf("crawl output (want the stacks run dry, and why): %s", out)
	}
	if _, err := os.Stat(db + ".model.json"); err != nil {
		t.Errorf("model not kept beside the database: %v", err)
	}
	// The default crawl judges pages with a page judge of its own, kept
	// beside its model; the paper's judges them with its one model.
	if judge, err := loadModel(learnt + ".model.page.json"); err != nil {
		t.Errorf("page judge of the default crawl: %v", err)
	} else if got := strings.Join(judge.Classes(), " "); got != "course other" {
		t.Errorf("page judge's classes %q, want the seed file's topic and its negatives", got)
	}
	if _, err := os.Stat(db + ".model.page.json"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the paper's crawl kept a page judge: %v", err)
	}
	// The default model discounts the words a segment lacks by the
	// examples' site concentration (all on the test server: 1); the
	// paper's does not.
	for path, want := range map[string]float64{learnt + ".model.json": 1, db + ".model.json": 0} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := classify.Load(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if d := m.Options().AbsentDiscount; d != want {
			t.Errorf("%s: absent discount %v, want %v", filepath.Base(path), d, want)
		}
	}
	lines := strings.Split(strings.TrimSpace(run("export", "--db", db, "--format", "jsonl")), "\n")
	var visited []string
	for i, l := range lines {
		var p struct {
			Order    int                `json:"order"`
			URL      string             `json:"url"`
			Status   int                `json:"status"`
			Score    map[string]float64 `json:"score"`
			Relevant map[string]bool    `json:"relevant"`
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("export line %d: %v", i+1, err)
		}
		if p.Order != i+1 {
			t.Errorf("line %d has order %d", i+1, p.Order)
		}
		if _, ok := p.Score["course"]; !ok && p.Status == 200 {
			t.Errorf("line %d has no course score: %s", i+1, l)
		}
		visited = append(visited, strings.TrimPrefix(p.URL, srv.URL))
	}
	sort.Strings(visited)
	joined := " " + strings.Join(visited, " ") + " "
	for i := 0; i < 20; i++ {
		if !strings.Contains(joined, fmt.Sprintf(" /c%d ", i)) {
			t.Errorf("course page /c%d not reached: %v", i, visited)
		}
	}
	if strings.Contains(joined, " /o1 ") {
		t.Errorf("followed an off-topic chain: %v", visited)
	}
	labels := filepath.Join(dir, "labels.tsv")
	lf, _ := os.Create(labels)
	bw := bufio.NewWriter(lf)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(bw, "%s/c%d\tcourse\n%s/o%d\tother\n", srv.URL, i, srv.URL, i)
	}
	bw.Flush()
	lf.Close()
	var rep struct {
		Pages  int `json:"pages"`
		Topics []struct {
			Topic     string  `json:"topic"`
			Relevant  int     `json:"relevant"`
			Targets   int     `json:"targets"`
			Found     int     `json:"found"`
			Recall    float64 `json:"recall"`
			RecallAll float64 `json:"recall_all_labels"`
			Precision float64 `json:"precision"`
		} `json:"topics"`
	}
	// The examples /c10 … /c19 are no targets: 10 held-out course pages.
	if err := json.Unmarshal([]byte(run("report", "--db", db, "--labels", labels, "--seeds", seedFile, "--format", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Topics) != 1 || rep.Topics[0].Relevant != 20 || rep.Topics[0].Targets != 10 || rep.Topics[0].Found != 10 || rep.Topics[0].Recall != 1 || rep.Topics[0].RecallAll != 1 {
		t.Errorf("report = %+v, want all 20 course pages found, the 10 held out among them", rep)
	}
	// Without --seeds, the report takes the pages each crawl kept as
	// learnt from (the 10 examples and the 10 negatives): the same 10
	// held-out targets, for the paper's crawl and the default one.
	for _, d := range []string{db, learnt} {
		if _, err := os.Stat(d + ".model.trained.txt"); err != nil {
			t.Errorf("the pages the model learnt from are not kept beside it: %v", err)
		}
		file := filepath.Join(dir, filepath.Base(d)+".json")
		if out := run("report", "--db", d, "--labels", labels, "--format", "json", "-o", file); !strings.Contains(out, "the 20 pages the model of crawl \"default\" learnt from, kept with it") {
			t.Errorf("report without --seeds does not say where the pages learnt from come from:\n%s", out)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var kept struct {
			LearntFrom int `json:"learnt_from"`
			Topics     []struct {
				Targets int `json:"targets"`
			} `json:"topics"`
		}
		if err := json.Unmarshal(data, &kept); err != nil {
			t.Fatal(err)
		}
		if kept.LearntFrom != 20 || len(kept.Topics) != 1 || kept.Topics[0].Targets != 10 {
			t.Errorf("report of %s without --seeds: %+v, want 20 pages learnt from and 10 held-out targets", filepath.Base(d), kept)
		}
	}
	md := run("report", "--db", db, "--format", "md")
	if !strings.Contains(md, "estimated by the page classifier") {
		t.Errorf("report without labels is not marked as estimated:\n%s", md)
	}
}

func TestConfig_precedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "scent.yaml")
	os.WriteFile(cfg, []byte("max-pages: 7\nreport:\n  every: 3\n"), 0o644)
	for _, tc := range []struct {
		env, flag string
		want      string
	}{
		{"", "", "7"},     // file
		{"9", "", "9"},    // env beats file
		{"9", "11", "11"}, // flag beats env
	} {
		cmd := newRootCmd()
		crawlCmd, _, _ := cmd.Find([]string{"crawl"})
		if tc.env != "" {
			t.Setenv("SCENT_MAX_PAGES", tc.env)
		} else {
			os.Unsetenv("SCENT_MAX_PAGES")
		}
		if tc.flag != "" {
			crawlCmd.Flags().Set("max-pages", tc.flag)
		}
		if err := applyConfig(crawlCmd, cfg); err != nil {
			t.Fatal(err)
		}
		if got := crawlCmd.Flags().Lookup("max-pages").Value.String(); got != tc.want {
			t.Errorf("env %q flag %q: max-pages = %s, want %s", tc.env, tc.flag, got, tc.want)
		}
	}
	cmd := newRootCmd()
	rc, _, _ := cmd.Find([]string{"report"})
	if err := applyConfig(rc, cfg); err != nil {
		t.Fatal(err)
	}
	if got := rc.Flags().Lookup("every").Value.String(); got != "3" {
		t.Errorf("report.every from the file's section = %s, want 3", got)
	}
	os.WriteFile(cfg, []byte("max-pages: [oops\n"), 0o644)
	if err := applyConfig(newRootCmd(), cfg); err == nil {
		t.Error("a malformed config file gave no error")
	}
	os.Unsetenv("SCENT_MAX_PAGES")
	os.WriteFile(cfg, []byte("max-pages: lots\n"), 0o644)
	cc, _, _ := newRootCmd().Find([]string{"crawl"})
	if err := applyConfig(cc, cfg); err == nil || !strings.Contains(err.Error(), "max-pages") {
		t.Errorf("a bad value in the config file: error %v, want one naming max-pages", err)
	}
	_ = context.Background
}

// leasedAtKill bounds the entries a bfs process with workers workers may
// hold leased and not committed when it is killed, all of which another
// process may then fetch again. The bfs queue is popped ahead in batches
// of b = 16 × workers (at most 512), a pop riding with each commit while
// fewer than b entries wait: up to 2b waiting, fetched or received since
// the last pop, as many in the batch being committed, and the fetches in
// flight and held for an earlier one (5 × workers).
func leasedAtKill(workers int) int {
	b := min(16*workers, 512)
	return 4*b + 5*workers
}
