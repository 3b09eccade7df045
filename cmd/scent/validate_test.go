package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
)

// countedSeeds writes into dir a seed file of one course and one other
// example on a server that counts its requests, and returns its path and
// the count.
func countedSeeds(t *testing.T, dir string) (string, *atomic.Int64) {
	hits := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "<html><body>course lecture <a href=/x>x</a></body></html>")
	}))
	t.Cleanup(srv.Close)
	seeds := writeSeeds(t, dir, fewTopicSeeds(srv.URL))
	return seeds, hits
}

// TestValidate_beforeWork: bad flags are refused before any example is
// fetched, any model trained or any output written.
func TestValidate_beforeWork(t *testing.T) {
	dir := t.TempDir()
	seeds, hits := countedSeeds(t, dir)
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	archive := collectiontest.Write(t)
	db := filepath.Join(dir, "ok.db")
	crawl := []string{"crawl", "--seeds", seeds, "--delay", "0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(crawl, "--db", filepath.Join(dir, "missing", "x.db")), "does not exist"},
		{append(crawl, "--db", filepath.Join(file, "x.db")), "not a directory"},
		{append(crawl, "--db", db, "--workers", "0"), "--workers"},
		{append(crawl, "--db", db, "--workers", "5000"), "--workers must be from 1 to 1024, not 5000"},
		{append(crawl, "--db", db, "--warc", filepath.Join(dir, "w"), "--warc-max-size", "0"), "--warc-max-size"},
		{[]string{"train", "--seeds", seeds, "--model", filepath.Join(dir, "m.json"), "--k", "0"}, "--k"},
		{[]string{"train", "--seeds", seeds, "--model", filepath.Join(dir, "m.json"), "--k", "-5"}, "--k must be at least 1, not -5"},
		{[]string{"train", "--seeds", seeds, "--model", filepath.Join(dir, "m.json"), "--m", "0"}, "--m"},
		{[]string{"train", "--seeds", seeds, "--model", filepath.Join(dir, "m.json"), "--window", "200001"}, "--window must be from 1 to 200000, not 200001"},
		{[]string{"report", "--db", db, "--every", "0"}, "--every"},
		{[]string{"seeds", archive, "--topic", "course,course"}, "given twice"},
		{[]string{"seeds", archive, "--topic", "seed"}, `--topic seed: "seed" is reserved by the seed file format (the role of a start URL), so pages labelled seed are the topic seed-2; no page of group misc is labelled seed (its labels: course, other)`},
		{[]string{"seeds", archive, "--topic", "nosuch"}, "no page of group misc is labelled nosuch (its labels: course, other)"},
		{[]string{"results", t.TempDir(), "-o", "-"}, "nothing to tabulate"},
		{[]string{"labels", t.TempDir()}, "no http pages found: 0 files read (want LABEL/GROUP/URL"},
		{[]string{"layout", archive, "--topic", "course", "--crawl", "c"}, "--db, which is not given"},
		{[]string{"export", "--db", db, "--format", "warc", "--out", filepath.Join(dir, "wx"), "--warc-max-size", "-1"}, "--warc-max-size"},
		{append(crawl, "--db", db, "--timeout", "0"), "--timeout"},
		{append(crawl, "--db", db, "--content-types", "foo"), `--content-types: content type "foo" is not a media type: want type/subtype, as text/html, or * for every type`},
		{append(crawl, "--db", db, "--content-types", "text/html,text/*"), `--content-types: content type "text/*": a wildcard is taken alone only`},
		{[]string{"revisit", "--db", db, "--content-types", "text/html;q=1"}, `--content-types: content type "text/html;q=1" is not a media type`},
		{[]string{"revisit", "--db", db, "--timeout", "0"}, "--timeout must be positive, not 0s"},
		{[]string{"dedup", "--db", "postgres://scent@127.0.0.1:1/x"}, "this command reads SQLite databases only"},
		{[]string{"normalize-eval", "--db", "postgres://scent@127.0.0.1:1/x", "--out", filepath.Join(dir, "ne")}, "this command reads SQLite databases only"},
		{[]string{"layout", archive, "--topic", "course", "--db", "postgres://scent@127.0.0.1:1/x"}, "this command reads SQLite databases only"},
		{[]string{"revisit", "--db", db, "--max-body", "-1"}, "--max-body must be positive, not -1"},
		{append(crawl, "--db", db, "--retries", "-1"), "--retries"},
		{append(crawl, "--db", db, "--domains", "https://example.org/"), `--domains: "https://example.org/" is no host or domain name (write example.org, not a URL)`},
		{append(crawl, "--db", db, "--exclude-urls", "/calendar/", "--exclude-urls", "(x"), `--exclude-urls: "(x" is no regular expression: error parsing regexp: missing closing )`},
		{append(crawl, "--db", db, "--max-pages", "-1"), "--max-pages"},
		{append(crawl, "--db", db, "--group-commit", "-1s"), "--group-commit must not be negative, not -1s"},
		{append(crawl, "--db", db, "--lease-expiry", "-1s"), "--lease-expiry must be positive, not -1s"},
		{append(crawl, "--db", db, "--learn-prior", "-1"), "--learn-prior"},
		{append(crawl, "--db", db, "--learn-prior", "1e308"), "--learn-prior"},
		{append(crawl, "--db", db, "--learn-prior", "+Inf"), "--learn-prior"},
		{append(crawl, "--db", db, "--learn-gamma", "-1"), "--learn-gamma"},
		{append(crawl, "--db", db, "--learn-gamma", "1"), "--learn-gamma"},
		{append(crawl, "--db", db, "--learn-reward", "1.5"), "--learn-reward"},
		{append(crawl, "--db", db, "--model", filepath.Join(dir, "none.json")), "--model"},
		{[]string{"train", "--seeds", seeds, "--model", filepath.Join(dir, "missing", "m.json")}, "does not exist"},
		{[]string{"train", "--seeds", seeds, "--model", filepath.Join(dir, "m.json"), "--timeout", "0"}, "--timeout"},
		{[]string{"experiment", archive, "--topic", "course", "--budget", "-1", "--out", filepath.Join(dir, "out1")}, "--budget"},
		{[]string{"experiment", archive, "--topic", "course", "--workers", "0", "--out", filepath.Join(dir, "out2")}, "--workers"},
		{[]string{"experiment", archive, "--topic", "course", "--learn-prior", "NaN", "--out", filepath.Join(dir, "out2")}, "--learn-prior"},
		{[]string{"experiment", archive, "--topic", "course", "--out", filepath.Join(file, "out")}, "--out"},
	} {
		out, err := runScent(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("scent %s: error %v, want one containing %q\n%s", strings.Join(tc.args, " "), err, tc.want, out)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made by commands whose flags were invalid", n)
	}
	for _, p := range []string{db, db + ".model.json", filepath.Join(dir, "m.json"), filepath.Join(dir, "out1"), filepath.Join(dir, "out2", "command")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written by a command whose flags were invalid", p)
		}
	}
}

// TestCrawl_examplesFetchedOnce: a crawl that trains its model and
// primes its learner with the same example pages fetches each once; the
// same crawl resumed trains nothing and primes nothing.
func TestCrawl_examplesFetchedOnce(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/", "/list":
			fmt.Fprint(w, `<html><body>department <a href="/c1">course one lecture</a> <a href="/c2">course two</a> <a href="/o1">news</a> <a href="/list">people</a></body></html>`)
		case "/c1", "/c2":
			fmt.Fprint(w, `<html><body>course lecture homework syllabus <a href="/c2">course two</a> <a href="/">home</a></body></html>`)
		case "/o1":
			fmt.Fprint(w, `<html><body>news of the garden <a href="/c1">course one</a></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, fmt.Sprintf("seed %s/\ncourse %s/c1\ncourse %s/c2\nother %s/o1\n", srv.URL, srv.URL, srv.URL, srv.URL))
	args := []string{"crawl", "--seeds", seeds, "--db", filepath.Join(dir, "c.db"), "--delay", "0", "--ignore-robots", "--quiet"}
	out, err := runScent(t, append(args, "--max-pages", "2")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "learner primed with") {
		t.Errorf("no line of the learner's prior:\n%s", out)
	}
	for _, p := range []string{"/c1", "/c2", "/o1"} {
		if hits[p] != 1 {
			t.Errorf("example %s fetched %d times by the crawl that trained on it, want once", p, hits[p])
		}
	}
	out, err = runScent(t, append(args, "--max-pages", "4")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "learner primed with") {
		t.Errorf("the resumed crawl primed its learner again:\n%s", out)
	}
	for _, p := range []string{"/c1", "/c2", "/o1"} {
		if hits[p] != 1 {
			t.Errorf("example %s fetched %d times after the resume, want once (examples are never crawled)", p, hits[p])
		}
	}
	// The first crawl kept its learner's prior beside its models: a new
	// crawl with them primes from it, fetching no example.
	model := filepath.Join(dir, "c.db.model.json")
	out, err = runScent(t, "crawl", "--seeds", seeds, "--model", model, "--db", filepath.Join(dir, "d.db"), "--delay", "0", "--ignore-robots", "--quiet", "--max-pages", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "training pages, kept in " + filepath.Join(dir, "c.db.model.prior.json"); !strings.Contains(out, want) {
		t.Errorf("a new crawl with the first crawl's models did not say %q:\n%s", want, out)
	}
	for _, p := range []string{"/c1", "/c2", "/o1"} {
		if hits[p] != 1 {
			t.Errorf("example %s fetched %d times after a new crawl with the kept prior, want once", p, hits[p])
		}
	}
}

// TestOutput_neverOverADatabase: -o naming the database itself (or any
// SQLite file) is refused, and the database is left as it was.
func TestOutput_neverOverADatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	s, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenCrawl(context.Background(), crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyLink, Topics: []string{"course"}, Stacks: []string{"course"}, SeedStacks: []string{"course"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, _ := os.ReadFile(db)
	for _, args := range [][]string{
		{"export", "--db", db, "-o", db},
		{"report", "--db", db, "-o", db},
		{"dedup", "--db", db, "-o", db},
	} {
		if _, err := runScent(t, args...); err == nil || !strings.Contains(err.Error(), "is an SQLite database") {
			t.Errorf("scent %s: error %v, want a refusal", strings.Join(args, " "), err)
		}
	}
	if after, _ := os.ReadFile(db); string(after) != string(before) {
		t.Error("the database was written over")
	}
}

// TestTrain_outputsCheckedFirst: scent train refuses, before it fetches
// an example, a --model or --report-json that is a directory or an SQLite
// database (a crawl's --db given by mistake), which it would otherwise
// fail to write, or silently replace, only after all the training.
func TestTrain_outputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	seeds, hits := countedSeeds(t, dir)
	db := filepath.Join(dir, "c.db")
	s, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, _ := os.ReadFile(db)
	model := filepath.Join(dir, "m.json")
	train := []string{"train", "--seeds", seeds, "--delay", "0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(train, "--model", db), "is an SQLite database"},
		{append(train, "--model", dir), "is a directory"},
		{append(train, "--model", model, "--report-json", db), "is an SQLite database"},
		{append(train, "--model", model, "--report-json", dir), "is a directory"},
	} {
		out, err := runScent(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("scent %s: error %v, want one containing %q\n%s", strings.Join(tc.args, " "), err, tc.want, out)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made by trainings whose outputs cannot be written", n)
	}
	if after, _ := os.ReadFile(db); string(after) != string(before) {
		t.Error("the database was written over")
	}
}

// TestExperiment_topicTheSeedsDoNotReach: an experiment on a topic the
// group trains on but the seeds reach no page of reports 0 targets; it is
// no error (report's refusal of labels that never name the topic is for
// labels a user gives).
func TestExperiment_topicTheSeedsDoNotReach(t *testing.T) {
	dir := collectiontest.Write(t)
	for i := range 3 {
		collectiontest.AddPage(t, dir, "student", "misc", fmt.Sprintf("http://m.test/s%d.html", i), "graduate student home page thesis advisor")
	}
	out := filepath.Join(t.TempDir(), "exp")
	if o, err := runScent(t, "experiment", dir, "--topic", "student", "--budget", "5", "--folds", "0", "--out", out); err != nil {
		t.Fatalf("experiment: %v\n%s", err, o)
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); err != nil {
		t.Errorf("no report: %v", err)
	}
}

// TestExperiment_badListMakesNoFolder: a grid list that does not parse
// is refused before the --out folder is made.
func TestExperiment_badListMakesNoFolder(t *testing.T) {
	dir := collectiontest.Write(t)
	for i, args := range [][]string{
		{"--window", "abc"},
		{"--window", "5,abc"},
		{"--k", "0"},
		{"--threshold", "2"},
		{"--strategy", "link,nope"},
	} {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("exp%d", i))
		o, err := runScent(t, append([]string{"experiment", dir, "--topic", "course", "--budget", "5", "--out", out}, args...)...)
		if err == nil {
			t.Errorf("experiment %s: no error\n%s", strings.Join(args, " "), o)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("experiment %s: --out folder made (%v)", strings.Join(args, " "), err)
		}
	}
}

// TestExperiment_failureMakesNoFolder: an experiment refused for its
// collection (an archive missing or not one, a topic it has no page of)
// or its settings is refused before the --out folder is made, as a grid
// too; one that fails once the folder is made (here interrupted at
// once) removes the folders it made, and a folder that was there before
// is left.
func TestExperiment_failureMakesNoFolder(t *testing.T) {
	archive := collectiontest.Write(t)
	notArchive := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notArchive, []byte("not an archive\n"), 0o644)
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		args []string
		ctx  context.Context
	}{
		{"unknown topic", []string{archive, "--topic", "nosuch"}, context.Background()},
		{"unknown topic, grid", []string{archive, "--topic", "nosuch", "--strategy", "link,bfs"}, context.Background()},
		{"missing archive", []string{filepath.Join(t.TempDir(), "none.tgz"), "--topic", "course"}, context.Background()},
		{"not an archive", []string{notArchive, "--topic", "course"}, context.Background()},
		{"too many workers", []string{archive, "--topic", "course", "--workers", "5000"}, context.Background()},
		{"interrupted", []string{archive, "--topic", "course", "--folds", "0"}, interrupted},
	} {
		parent := t.TempDir()
		out := filepath.Join(parent, "new", "exp")
		existing := filepath.Join(parent, "existing")
		os.Mkdir(existing, 0o755)
		os.WriteFile(filepath.Join(existing, "notes"), []byte("mine"), 0o644)
		for _, dir := range []string{out, existing} {
			root := newRootCmd()
			var buf bytes.Buffer
			root.SetOut(&buf)
			root.SetErr(&buf)
			root.SetArgs(append([]string{"experiment", "--budget", "5", "--out", dir}, tc.args...))
			if err := root.ExecuteContext(tc.ctx); err == nil {
				t.Errorf("%s: no error\n%s", tc.name, buf.String())
			}
		}
		if _, err := os.Stat(filepath.Join(parent, "new")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a folder for --out was left (%v)", tc.name, err)
		}
		if b, err := os.ReadFile(filepath.Join(existing, "notes")); err != nil || string(b) != "mine" {
			t.Errorf("%s: the folder there before lost its file: %q, %v", tc.name, b, err)
		}
	}
}

// TestLabels_tellsSkippedFiles: a collection's files that are no page
// (an ftp: URL) are left out of the labels, and labels says so.
func TestLabels_tellsSkippedFiles(t *testing.T) {
	dir := collectiontest.Write(t)
	collectiontest.AddPage(t, dir, "course", "misc", "ftp://m.test/c.html", "course notes")
	out, err := runScent(t, "labels", dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "\nftp://m.test") || !strings.Contains(out, "1 files of "+dir+" are no page and are left out") {
		t.Errorf("labels of a collection with an ftp: file:\n%s", out)
	}
}

// TestSeeds_renamedLabels: a label of the training group that makes no
// class name, or whose name another label has, is written under a name
// of its own, and seeds says which on standard error; the file trains
// a page judge with a class for each label.
func TestSeeds_renamedLabels(t *testing.T) {
	dir := collectiontest.Write(t)
	collectiontest.AddPage(t, dir, "student", "misc", "http://m.test/s1.html", "graduate student home page")
	collectiontest.AddPage(t, dir, "Student", "misc", "http://m.test/s2.html", "student home page")
	collectiontest.AddPage(t, dir, "Research Group", "misc", "http://m.test/r.html", "research group projects")
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	out, err := runScent(t, "seeds", dir, "--topic", "course", "-o", seeds)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`seeds: label "Research Group" becomes research-group in the seed file`,
		`seeds: label "Student" becomes student-2 in the seed file`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("seeds says not %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `label "student"`) {
		t.Errorf("a label that names itself is said to be renamed:\n%s", out)
	}
	s, err := training.LoadSeeds(seeds)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.PageSeeds().Topics, []string{"course", "research-group", "student", "student-2"}; !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("the page judge's classes: %v, want %v", got, want)
	}
	// scent experiment, whose page judge learns the same classes, says so
	// too.
	out, err = runScent(t, "experiment", dir, "--topic", "course", "--budget", "5", "--baseline=false", "--out", filepath.Join(t.TempDir(), "exp"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := `label "Research Group" becomes research-group in `; !strings.Contains(out, want) {
		t.Errorf("experiment says not %q:\n%s", want, out)
	}
}

// TestExperiment_topicLabelNoName: a collection whose topic's label is
// no class name ("Course Pages") is crawled and measured under the name
// a seed file gives it (course-pages), given by its label or its name:
// the crawl's topic, its report's, and the labels of scent labels that
// scent report reads; scent layout lays it out by either.
func TestExperiment_topicLabelNoName(t *testing.T) {
	dir := collectiontest.Write(t)
	if err := os.Rename(filepath.Join(dir, "course"), filepath.Join(dir, "Course Pages")); err != nil {
		t.Fatal(err)
	}
	var layouts []string
	for _, topic := range []string{"Course Pages", "course-pages"} {
		out, err := runScent(t, "layout", dir, "--topic", topic)
		if err != nil {
			t.Fatalf("layout --topic %q: %v\n%s", topic, err, out)
		}
		layouts = append(layouts, out)
	}
	if layouts[0] != layouts[1] || !strings.Contains(layouts[0], "24 course-pages pages") {
		t.Errorf("layout by the label:\n%s\nby the name:\n%s", layouts[0], layouts[1])
	}
	type topicReport struct {
		Topic   string `json:"topic"`
		Targets int    `json:"targets"`
		Found   int    `json:"found"`
	}
	var first []topicReport
	for _, topic := range []string{"Course Pages", "course-pages"} {
		out := filepath.Join(t.TempDir(), "exp")
		log, err := runScent(t, "experiment", dir, "--topic", topic, "--budget", "20", "--baseline=false", "--out", out)
		if err != nil {
			t.Fatalf("--topic %q: %v\n%s", topic, err, log)
		}
		if want := `label "Course Pages" becomes course-pages in `; !strings.Contains(log, want) {
			t.Errorf("--topic %q: experiment says not %q:\n%s", topic, want, log)
		}
		raw, err := os.ReadFile(filepath.Join(out, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct{ Topics []topicReport }
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Topics) != 1 || rep.Topics[0].Topic != "course-pages" || rep.Topics[0].Targets == 0 || rep.Topics[0].Found == 0 {
			t.Errorf("--topic %q: report %+v, want course-pages with its targets found", topic, rep.Topics)
		}
		if first == nil {
			first = rep.Topics
		} else if !slices.Equal(first, rep.Topics) {
			t.Errorf("--topic %q: report %+v, against %+v by the label", topic, rep.Topics, first)
		}
		// The labels as scent labels writes them ("Course Pages") count the
		// crawl's course-pages targets.
		lines, err := runScent(t, "labels", dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(lines, "\tCourse Pages\n") {
			t.Fatalf("scent labels wrote no label Course Pages:\n%s", lines)
		}
		labels := filepath.Join(t.TempDir(), "labels.tsv")
		if err := os.WriteFile(labels, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		js := filepath.Join(t.TempDir(), "report.json")
		if got, err := runScent(t, "report", "--db", filepath.Join(out, "scent.db"), "--crawl", "experiment", "--labels", labels,
			"--trained", filepath.Join(out, "trained.txt"), "--targets", "all-labels", "--format", "json", "-o", js); err != nil {
			t.Fatalf("report: %v\n%s", err, got)
		}
		raw, err = os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var again struct{ Topics []topicReport }
		if err := json.Unmarshal(raw, &again); err != nil {
			t.Fatal(err)
		}
		if len(again.Topics) != 1 || again.Topics[0].Targets == 0 || again.Topics[0].Found == 0 {
			t.Errorf("--topic %q: scent report with scent labels' labels: %+v, want course-pages' targets found", topic, again.Topics)
		}
	}
}

// TestModel_damagedMeta: a model file whose record of its window, its
// documents, its URL tokens or its reward thresholds is damaged is
// refused, by every command that reads one, naming the file, the field
// and the value; a model without those records (their defaults apply)
// is not.
func TestModel_damagedMeta(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seedFile := topicSeeds(t, srv.URL, dir)
	trained := filepath.Join(dir, "model.json")
	if out, err := runScent(t, "train", "--seeds", seedFile, "--model", trained, "--folds", "0", "--delay", "0"); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(trained)
	if err != nil {
		t.Fatal(err)
	}
	// withMeta writes a copy of the trained model whose meta has key set
	// to value, or removed when value is nil.
	withMeta := func(name, key string, value any) string {
		var f map[string]any
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		meta, _ := f["meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		if value == nil {
			delete(meta, key)
		} else {
			meta[key] = value
		}
		f["meta"] = meta
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	archive := collectiontest.Write(t)
	for i, tc := range []struct {
		key, value string
	}{
		{"window", "abc"},
		{"window", "-3"},
		{"window", "0"},
		{"window", "100000000000"},
		{"reward_thresholds", "course=7"},
		{"reward_thresholds", "nope=0.5"},
		{"reward_thresholds", "course=x"},
		{"reward_thresholds", "course"},
		{"documents", "paragraphs"},
		{"url_tokens", "yes"},
	} {
		model := withMeta(fmt.Sprintf("bad%d", i), tc.key, tc.value)
		for _, args := range [][]string{
			{"judge", archive, "--model", model, "--topic", "course"},
			{"crawl", "--seeds", seedFile, "--db", filepath.Join(dir, fmt.Sprintf("bad%d.db", i)), "--model", model, "--max-pages", "1", "--delay", "0"},
		} {
			out, err := runScent(t, args...)
			if err == nil {
				t.Errorf("scent %s with meta %s=%q: no error\n%s", args[0], tc.key, tc.value, out)
				continue
			}
			for _, want := range []string{model, tc.key, fmt.Sprintf("%q", tc.value)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("scent %s with meta %s=%q: error %q does not name %s", args[0], tc.key, tc.value, err, want)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("scent %s with meta %s=%q: error of more than one line: %q", args[0], tc.key, tc.value, err)
			}
		}
	}
	for i, model := range []string{
		trained,
		withMeta("nowindow", "window", nil),
		withMeta("rewards", "reward_thresholds", "course=0.5"),
		withMeta("norewards", "reward_thresholds", nil),
	} {
		for _, args := range [][]string{
			{"judge", archive, "--model", model, "--topic", "course"},
			{"crawl", "--seeds", seedFile, "--db", filepath.Join(dir, fmt.Sprintf("good%d.db", i)), "--model", model, "--max-pages", "1", "--delay", "0"},
		} {
			if out, err := runScent(t, args...); err != nil {
				t.Errorf("scent %s --model %s: %v\n%s", args[0], model, err, out)
			}
		}
	}
}

// TestCrawl_newerDatabaseRefusedFirst: scent crawl on a database of a
// newer scent (its schema version above this one's), or of another
// program, refuses it before it fetches an example to train its model,
// and leaves the database as it was.
func TestCrawl_newerDatabaseRefusedFirst(t *testing.T) {
	dir := t.TempDir()
	seeds, hits := countedSeeds(t, dir)
	ctx := context.Background()
	newer := filepath.Join(dir, "newer.db")
	s, err := sqlite.Open(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", sqlite.SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	foreign := filepath.Join(dir, "foreign.db")
	s, err = sqlite.Open(ctx, foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "PRAGMA user_version = 0"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for db, want := range map[string]string{
		newer:   fmt.Sprintf("database schema version %d is newer than this scent understands (%d)", sqlite.SchemaVersion()+1, sqlite.SchemaVersion()),
		foreign: "not a scent database",
	} {
		before, _ := os.ReadFile(db)
		out, err := runScent(t, "crawl", "--seeds", seeds, "--db", db, "--delay", "0", "--quiet")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), db) {
			t.Errorf("crawl --db %s: error %v, want one naming the file and containing %q\n%s", db, err, want, out)
		}
		if after, _ := os.ReadFile(db); string(after) != string(before) {
			t.Errorf("%s was written", db)
		}
		if _, err := os.Stat(db + ".model.json"); err == nil {
			t.Errorf("a model was written for %s", db)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made by crawls whose database is refused", n)
	}
}

// TestRemoveFailedOut: a failed experiment's new folder goes, unless it
// holds the experiment's crawl or a grid's cells.
func TestRemoveFailedOut(t *testing.T) {
	for _, tc := range []struct {
		file string // made in the output folder; "" for none
		kept bool
	}{
		{"", false},
		{"command", false},
		{"scent.db", true},
		{filepath.Join("cells", "k5", "cell.json"), true},
	} {
		parent := t.TempDir()
		created := filepath.Join(parent, "new")
		out := filepath.Join(created, "exp")
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if tc.file != "" {
			os.MkdirAll(filepath.Dir(filepath.Join(out, tc.file)), 0o755)
			os.WriteFile(filepath.Join(out, tc.file), []byte("x"), 0o644)
		}
		removeFailedOut(created, out)
		if _, err := os.Stat(created); (err == nil) != tc.kept {
			t.Errorf("output folder holding %q: kept %v, want %v", tc.file, err == nil, tc.kept)
		}
	}
}

// TestCrawl_seedOutOfScopeWarned: a seed out of the crawl's scope is
// fetched, as every seed, and said to be out of it.
func TestCrawl_seedOutOfScopeWarned(t *testing.T) {
	t.Setenv("SCENT_DELAY", "0")
	dir := t.TempDir()
	seeds, hits := countedSeeds(t, dir)
	out, err := runScent(t, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, "c.db"), "--max-pages", "5", "--quiet", "--domains", "example.org")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "is out of the crawl's scope (host 127.0.0.1 is under none of the domains kept to (example.org)): a seed is fetched whatever the scope, but only its links into the scope are followed") {
		t.Errorf("no warning of the seed out of scope:\n%s", out)
	}
	if !strings.Contains(out, "1 pages fetched in all") {
		t.Errorf("want the seed alone fetched (its link /x is out of scope):\n%s", out)
	}
	if hits.Load() == 0 {
		t.Error("nothing requested")
	}
	// The scope is kept with the crawl's settings, its lists as given.
	s, err := sqlite.OpenReadOnly(context.Background(), filepath.Join(dir, "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var config string
	if err := s.DB().QueryRow(`SELECT config FROM crawls`).Scan(&config); err != nil || !strings.Contains(config, `"scope":{"domains":["example.org"]}`) {
		t.Errorf("recorded settings %s (%v), want the scope", config, err)
	}
}
