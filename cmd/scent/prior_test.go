package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestCrawl_keptPrior: scent train keeps the links between the training
// pages beside its model, and a crawl with that model primes its learner
// from them without fetching a training page again, crawling as one that
// fetched them. A prior kept for other models, or damaged, is read from
// the training pages again.
func TestCrawl_keptPrior(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		p := r.URL.Path
		switch {
		case p == "/":
			fmt.Fprint(w, `<html><body>department <a href="/people">people</a> <a href="/teaching">teaching</a> <a href="/news">news</a></body></html>`)
		case p == "/teaching" || p == "/news" || p == "/people":
			body := "<html><body>" + p[1:]
			for i := range 6 {
				body += fmt.Sprintf(` <a href="%s/%d">%s page %d</a>`, p, i, p[1:], i)
			}
			fmt.Fprint(w, body+"</body></html>")
		case strings.HasPrefix(p, "/teaching/"):
			fmt.Fprintf(w, `<html><body>course lecture homework syllabus exam <a href="/teaching">teaching</a> <a href="/news/%s">news</a></body></html>`, p[len(p)-1:])
		case strings.HasPrefix(p, "/news/"), strings.HasPrefix(p, "/people/"):
			fmt.Fprint(w, `<html><body>garden flowers weather and tea <a href="/">home</a> <a href="/teaching">teaching</a></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	training := []string{"/teaching/0", "/teaching/1", "/teaching/2", "/news/0", "/news/1", "/people/0"}
	seedText := "seed " + srv.URL + "/\n"
	for _, p := range training {
		kind := "course"
		if !strings.HasPrefix(p, "/teaching/") {
			kind = "other"
		}
		seedText += kind + " " + srv.URL + p + "\n"
	}
	seeds := writeSeeds(t, dir, seedText)
	model := filepath.Join(dir, "m.json")
	out, err := runScent(t, "train", "--seeds", seeds, "--model", model, "--delay", "0", "--ignore-robots", "--folds", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	prior := filepath.Join(dir, "m.prior.json")
	if !strings.Contains(out, "learner prior written to "+prior+":") {
		t.Errorf("train says nothing of the learner's prior:\n%s", out)
	}
	for _, p := range training {
		if hits[p] != 1 {
			t.Errorf("training page %s fetched %d times by train, want once (the models and the prior read it once)", p, hits[p])
		}
	}
	// crawl runs a lockstep crawl with the model into db and returns
	// what it printed, the pages it fetched in order and how many
	// requests went to the training pages.
	crawl := func(db string, flags ...string) (string, []string, int) {
		t.Helper()
		mu.Lock()
		clear(hits)
		mu.Unlock()
		out, err := runScent(t, append([]string{"crawl", "--seeds", seeds, "--model", model, "--db", filepath.Join(dir, db), "--delay", "0", "--ignore-robots",
			"--quiet", "--lockstep", "--workers", "2", "--max-pages", "12"}, flags...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		n := 0
		for _, p := range training {
			n += hits[p]
		}
		exp, err := runScent(t, "export", "--db", filepath.Join(dir, db), "--format", "jsonl")
		if err != nil {
			t.Fatalf("%v\n%s", err, exp)
		}
		var urls []string
		for _, l := range strings.Split(strings.TrimSpace(exp), "\n") {
			var p struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			urls = append(urls, strings.TrimPrefix(p.URL, srv.URL))
		}
		return out, urls, n
	}
	keptOut, kept, n := crawl("kept.db")
	if !strings.Contains(keptOut, "kept in "+prior) {
		t.Errorf("the crawl did not say it read the kept prior:\n%s", keptOut)
	}
	if n != 0 {
		t.Errorf("the crawl with a kept prior made %d requests for training pages, want none", n)
	}
	if len(kept) < 6 {
		t.Fatalf("the crawl fetched %d pages: %v", len(kept), kept)
	}
	// The learner's saved state holds its evidence, the prior's included:
	// without a prior it differs.
	keptState := learnerState(t, filepath.Join(dir, "kept.db"))
	crawl("unprimed.db", "--learn-prior", "0")
	if bytes.Equal(learnerState(t, filepath.Join(dir, "unprimed.db")), keptState) {
		t.Fatal("the learner's state is the same without a prior: the comparisons below would say nothing")
	}

	// Damaged, or kept for another model: read from the pages.
	good, err := os.ReadFile(prior)
	if err != nil {
		t.Fatal(err)
	}
	stale := regexp.MustCompile(`"key":"[0-9a-f]+"`).ReplaceAll(good, []byte(`"key":"`+strings.Repeat("0", 64)+`"`))
	for name, c := range map[string]struct {
		file []byte
		want string
	}{
		"stale":   {stale, "made for other models or training pages: reading the training pages again"},
		"damaged": {good[:len(good)/2], "unexpected EOF: reading the training pages again"},
		"missing": {nil, "no learner prior kept in " + prior},
	} {
		if c.file == nil {
			os.Remove(prior)
		} else if err := os.WriteFile(prior, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		out, urls, n := crawl(name + ".db")
		if !strings.Contains(out, c.want) {
			t.Errorf("%s prior: the crawl did not say %q:\n%s", name, c.want, out)
		}
		if n != len(training) {
			t.Errorf("%s prior: %d requests for the %d training pages, want each read once", name, n, len(training))
		}
		if !slices.Equal(urls, kept) {
			t.Errorf("%s prior: crawled\n%v\nwith the kept prior:\n%v", name, urls, kept)
		}
		if !bytes.Equal(learnerState(t, filepath.Join(dir, name+".db")), keptState) {
			t.Errorf("%s prior: the learner's state differs from the crawl's with the kept prior", name)
		}
	}
}

// learnerState returns the link learner's state saved in the SQLite
// database at path (its one crawl's).
func learnerState(t *testing.T, path string) []byte {
	t.Helper()
	d, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Query(`SELECT data FROM learner_parts ORDER BY crawl_id, part`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var state []byte
	for rows.Next() {
		var part []byte
		if err := rows.Scan(&part); err != nil {
			t.Fatal(err)
		}
		state = append(state, part...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(state) == 0 {
		t.Fatalf("no learner state in %s", path)
	}
	return state
}
