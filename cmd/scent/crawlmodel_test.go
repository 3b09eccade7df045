package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/training"
)

// TestCrawl_tunedModel: crawl takes no model tuning flag; a model tuned
// by train is given to it with --model, and the crawl cuts link contexts
// with the window that model learnt from.
func TestCrawl_tunedModel(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seedFile := writeSeeds(t, dir, fmt.Sprintf("seed %s/\ncourse %s/c10\ncourse %s/c11\nother %s/o10\nother %s/o11\n", srv.URL, srv.URL, srv.URL, srv.URL, srv.URL))
	db := filepath.Join(dir, "c.db")
	if _, err := runScent(t, "crawl", "--seeds", seedFile, "--db", db, "--window", "3"); err == nil || !strings.Contains(err.Error(), "unknown flag: --window") {
		t.Fatalf("crawl --window: error %v, want an unknown flag", err)
	}
	model := filepath.Join(dir, "model.json")
	if out, err := runScent(t, "train", "--seeds", seedFile, "--model", model, "--window", "3", "--folds", "0", "--delay", "0"); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	if out, err := runScent(t, "crawl", "--seeds", seedFile, "--model", model, "--db", db, "--max-pages", "5", "--delay", "0", "--quiet"); err != nil {
		t.Fatalf("crawl --model: %v\n%s", err, out)
	}
	d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var config string
	if err := d.QueryRow(`SELECT config FROM crawls`).Scan(&config); err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Window int `json:"window"`
	}
	if err := json.Unmarshal([]byte(config), &settings); err != nil || settings.Window != 3 {
		t.Errorf("crawl recorded window %d (%v), want the model's 3: %s", settings.Window, err, config)
	}
}

// TestCrawl_modelBelongsToItsCrawl: scent crawl keeps the model it trains
// beside the database under the crawl's name, refuses a model (kept there
// or given) for other topics than the seed file's, and writes nothing
// when the crawl is refused (another process runs it).
func TestCrawl_modelBelongsToItsCrawl(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seeds := func(name, topic string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(fmt.Sprintf("seed %s/\n%s %s/c10\n%s %s/c11\nother %s/o10\nother %s/o11\n", srv.URL, topic, srv.URL, topic, srv.URL, srv.URL, srv.URL)), 0o644)
		return path
	}
	course, lecture := seeds("course.txt", "course"), seeds("lecture.txt", "lecture")
	db := filepath.Join(dir, "c.db")
	crawl := func(seedFile string, args ...string) (string, error) {
		return runScent(t, append([]string{"crawl", "--seeds", seedFile, "--db", db, "--max-pages", "5", "--delay", "0", "--quiet"}, args...)...)
	}
	topics := func(path string) string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := classify.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(m.Topics(), ",")
	}
	if out, err := crawl(course); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	if got := topics(db + ".model.json"); got != "course" {
		t.Fatalf("default crawl's model: topics %s, want course", got)
	}
	// The default crawl's model is of course, the seed file's examples of
	// lecture: refused, not crawled with the other model.
	if _, err := crawl(lecture); err == nil || !strings.Contains(err.Error(), "is a model of course") || !strings.Contains(err.Error(), "examples of lecture") || !strings.Contains(err.Error(), "--crawl") {
		t.Fatalf("crawl with other topics than the model beside the database: error %v", err)
	}
	// Another crawl of the database trains a model of its own.
	if out, err := crawl(lecture, "--crawl", "lectures/2"); err != nil {
		t.Fatalf("crawl --crawl lectures/2: %v\n%s", err, out)
	}
	if got := topics(db + ".lectures%2F2.model.json"); got != "lecture" {
		t.Errorf("crawl lectures/2's model: topics %s, want lecture", got)
	}
	if got := topics(db + ".model.json"); got != "course" {
		t.Errorf("default crawl's model after another crawl: topics %s, want course", got)
	}
	if _, err := os.Stat(db + ".lectures%2F2.model.trained.txt"); err != nil {
		t.Errorf("crawl lectures/2's list of pages learnt from: %v", err)
	}
	// A model given for other topics than the seed file's examples.
	if _, err := crawl(course, "--crawl", "mixed", "--model", db+".lectures%2F2.model.json"); err == nil || !strings.Contains(err.Error(), "is a model of lecture") {
		t.Errorf("crawl --model of other topics: error %v", err)
	}

	// A live process holds crawl "busy": a crawl of it is refused before
	// it writes a model.
	if out, err := crawl(course, "--crawl", "busy"); err != nil {
		t.Fatalf("crawl --crawl busy: %v\n%s", err, out)
	}
	for _, p := range []string{db + ".busy.model.json", db + ".busy.model.trained.txt"} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	d, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	now := time.Now().UTC()
	_, err = d.Exec(`INSERT OR REPLACE INTO crawl_leases(crawl_id, holder, host, pid, started_at, expires_at) SELECT id, 'another', ?, ?, ?, ? FROM crawls WHERE name = 'busy'`,
		host, os.Getpid(), now.Format(time.RFC3339Nano), now.Add(time.Hour).Format(time.RFC3339Nano))
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := crawl(course, "--crawl", "busy"); err == nil || !strings.Contains(err.Error(), "is being run by process") {
		t.Fatalf("crawl of a crawl another process runs: error %v", err)
	}
	for _, p := range []string{db + ".busy.model.json", db + ".busy.model.trained.txt"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("refused crawl wrote %s (%v)", p, err)
		}
	}
}

// TestResumeLine: a resumed crawl says what it goes on from.
func TestResumeLine(t *testing.T) {
	for _, tc := range []struct {
		st     crawler.CrawlState
		learns bool
		want   string
	}{
		{crawler.CrawlState{Resumed: true, Fetched: 130, Succeeded: 120}, false, `resuming crawl "c": 120 pages fetched before (130 fetches)`},
		{crawler.CrawlState{Resumed: true, Fetched: 130, Succeeded: 120, Requeue: 8, Learner: make([]byte, 3000)}, true, `resuming crawl "c": 120 pages fetched before (130 fetches); 8 fetches in flight when it stopped are made again; the learner goes on from its saved state (3 KB)`},
		{crawler.CrawlState{Resumed: true, Fetched: 10, Succeeded: 10}, true, `resuming crawl "c": 10 pages fetched before (10 fetches); the learner starts anew (the crawl stopped before its first save)`},
		{crawler.CrawlState{Resumed: true, Fetched: 36, Succeeded: 24, Others: 2}, true, `joining crawl "c", run by 2 other process(es): 24 pages fetched so far (36 fetches)`},
	} {
		if got := resumeLine("c", tc.st, tc.learns); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestPrintTrainReport_failures: the examples that could not be used
// list local files first (the seed file's own mistakes), and past ten
// count the rest by reason.
func TestPrintTrainReport_failures(t *testing.T) {
	rep := &training.Report{}
	for i := range 11 {
		rep.Failed = append(rep.Failed, training.Failure{Source: fmt.Sprintf("http://a.test/%d", i), Reason: "status: HTTP 404"})
	}
	rep.Failed = append(rep.Failed, training.Failure{Source: "pages/nosuch.html", Reason: "read: no such file"})
	var b strings.Builder
	printTrainReport(&b, rep, trainReportFlag)
	out := b.String()
	if i, j := strings.Index(out, "pages/nosuch.html"), strings.Index(out, "http://a.test/0"); i < 0 || j < 0 || i > j {
		t.Errorf("the local file is not listed first:\n%s", out)
	}
	if !strings.Contains(out, "… and 2 more (2 status; all in --report-json)") {
		t.Errorf("the rest not counted by reason:\n%s", out)
	}
}

// TestFeatures: the features line says when the least χ² kept fewer
// than --k, and only then.
func TestFeatures(t *testing.T) {
	for _, tt := range []struct {
		rep  training.Report
		want string
	}{
		{training.Report{Terms: 1000, K: 1000, MinChi2: 3.841}, "1000 features"},
		{training.Report{Terms: 24, K: 1000, MinChi2: 3.841}, "24 features (those whose χ² reaches 3.841, fewer than --k 1000: more examples and negatives tell more words apart)"},
		{training.Report{Terms: 24, K: 1000}, "24 features"},
	} {
		if got := features(&tt.rep); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.rep, got, tt.want)
		}
	}
}

// TestTrainReport_fullListOfCommand: past ten unusable examples, the
// summary points to where all are listed by a flag of the command that
// prints it: train's --report-json, and for crawl, which has no such
// flag, scent train --report-json.
func TestTrainReport_fullListOfCommand(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seeds := topicSeeds(t, srv.URL, dir)
	var missing strings.Builder
	for i := range 11 {
		fmt.Fprintf(&missing, "course %s/missing%d\n", srv.URL, i)
	}
	f, err := os.OpenFile(seeds, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(missing.String())
	f.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--model", filepath.Join(dir, "m.model")}, "; all in --report-json)"},
		{[]string{"crawl", "--db", filepath.Join(dir, "c.db"), "--max-pages", "1", "--delay", "0", "--quiet"},
			"; all in scent train --report-json)"},
	} {
		out, err := runScent(t, append(tc.args, "--seeds", seeds)...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.args[0], err, out)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.args[0], tc.want, out)
		}
	}
}

// TestSaveModels_modelLast: the model is written after its page judge
// and whatever goes with it, and a model from before is gone once the
// first of them is written, so that a train or crawl killed while it
// saves never leaves a model beside another's judge and lists (a crawl
// would resume with them), nor a model without them.
func TestSaveModels_modelLast(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seedFile := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seedFile, []byte(fmt.Sprintf("seed %s/\ncourse %s/c10\ncourse %s/c11\nother %s/o10\nother %s/o11\n", srv.URL, srv.URL, srv.URL, srv.URL, srv.URL)), 0o644)
	model := filepath.Join(dir, "m.json")
	if out, err := runScent(t, "train", "--seeds", seedFile, "--model", model, "--folds", "0", "--delay", "0"); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	m, err := loadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	judge, err := loadModel(experiment.PagePathFor(model))
	if err != nil {
		t.Fatal(err)
	}
	tr := trained{model: m, judge: judge}
	stopped := errors.New("stopped")
	err = saveModels(model, tr, func() error {
		if _, err := os.Stat(model); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("while the companions are written, the model from before is there (%v), beside the new judge", err)
		}
		if _, err := loadModel(experiment.PagePathFor(model)); err != nil {
			t.Errorf("page judge not written before the companions: %v", err)
		}
		return stopped
	})
	if !errors.Is(err, stopped) {
		t.Fatalf("saveModels: %v, want the companion's error", err)
	}
	if _, err := os.Stat(model); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("model written although a companion failed: %v", err)
	}
	if err := saveModels(model, tr); err != nil {
		t.Fatal(err)
	}
	if _, err := loadModel(model); err != nil {
		t.Errorf("model not written: %v", err)
	}
}
