package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// topicSeeds writes into dir the seed file of a topic site at url
// (topicSite's shape): its root as the seed, course pages 10 to 19 as
// examples and news pages 10 to 19 as negatives. It returns its path.
func topicSeeds(t *testing.T, url, dir string) string {
	var seeds strings.Builder
	fmt.Fprintf(&seeds, "seed %s/\n", url)
	for i := 10; i < 20; i++ {
		fmt.Fprintf(&seeds, "course %s/c%d\nother %s/o%d\n", url, i, url, i)
	}
	return writeSeeds(t, dir, seeds.String())
}

// fewTopicSeeds is the seed file of a topic site at url (topicSite's
// shape) with one example of each class: its root as the seed, course
// page 1 and news page 1.
func fewTopicSeeds(url string) string {
	return fmt.Sprintf("seed %s/\ncourse %s/c1\nother %s/o1\n", url, url, url)
}

// writeSeeds writes text, a seed file, to dir/seeds.txt and returns its
// path.
func writeSeeds(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// topicSite serves a department page linking to a chain of course pages
// and a chain of news pages; each course page also links to a news page.
func topicSite(t *testing.T) *httptest.Server {
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		switch {
		case r.URL.Path == "/":
			fmt.Fprint(w, `<html><body>Department. <a href="/c0">course CS0 lecture syllabus homework</a>`+fill+`<a href="/o0">campus parking news</a></body></html>`)
		case sscan(r.URL.Path, "/c%d", &i) && i < 20:
			fmt.Fprintf(w, `<html><body><h1>Course CS%d</h1> lecture syllabus homework exam grading
				<a href="/c%d">course CS%d lecture notes</a>`+fill+`<a href="/o%d">sports football scores</a></body></html>`, i, i+1, i+1, i)
		case sscan(r.URL.Path, "/o%d", &i) && i < 20:
			fmt.Fprintf(w, `<html><body><h1>News %d</h1> parking weather dining`+fill+`<a href="/o%d">more sports football scores</a></body></html>`, i, i+1)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// trainedTopicModel serves topicSite and trains a model on its seed file
// (topicSeeds) in a new folder: it returns the folder, the seed file and
// the model.
func trainedTopicModel(t *testing.T) (dir, seedFile, model string) {
	t.Helper()
	srv := topicSite(t)
	dir = t.TempDir()
	seedFile = topicSeeds(t, srv.URL, dir)
	model = filepath.Join(dir, "model.json")
	if out, err := runScent(t, "train", "--seeds", seedFile, "--model", model, "--folds", "0", "--delay", "0"); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	return dir, seedFile, model
}

func sscan(s, format string, i *int) bool {
	_, err := fmt.Sscanf(s, format, i)
	return err == nil
}

// TestCrawl_thresholdWithModel: --threshold acts on a crawl whose model
// already exists (given with --model, or kept by a resumed crawl).
func TestCrawl_thresholdWithModel(t *testing.T) {
	dir, seedFile, model := trainedTopicModel(t)
	pages := map[string]int{}
	for _, th := range []string{"", "0.000000001"} {
		db := filepath.Join(dir, "t"+th+".db")
		// The paper's crawler: the threshold decides which links it
		// follows (the learner follows every link, best first).
		args := []string{"crawl", "--preset", "paper", "--seeds", seedFile, "--model", model, "--db", db, "--delay", "0", "--host-parallelism", "0", "--quiet"}
		if th != "" {
			args = append(args, "--threshold", th)
		}
		if out, err := runScent(t, args...); err != nil {
			t.Fatalf("crawl --threshold %s: %v\n%s", th, err, out)
		}
		pages[th] = countPages(db)
	}
	t.Logf("pages by threshold: %v", pages)
	// Off-topic links score about 1e-7 here: a tiny threshold follows them.
	if !(pages["0.000000001"] > pages[""]) {
		t.Errorf("pages by --threshold = %v: want more pages at 1e-9 than at the model's threshold", pages)
	}
	if _, err := runScent(t, "crawl", "--seeds", seedFile, "--model", model, "--db", filepath.Join(dir, "neg.db"), "--threshold", "-1"); err == nil ||
		!strings.Contains(err.Error(), "--threshold") {
		t.Errorf("--threshold -1: error %v, want one naming --threshold", err)
	}
}

// TestCrawl_thresholdSource: a --threshold that acts on a loaded model
// is said to come from where it was set: the flag, the environment
// variable SCENT_THRESHOLD or the config file.
func TestCrawl_thresholdSource(t *testing.T) {
	dir, seedFile, model := trainedTopicModel(t)
	config := filepath.Join(dir, "scent.yaml")
	os.WriteFile(config, []byte("threshold: 0.25\n"), 0o644)
	for i, tc := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"flag", []string{"--threshold", "0.25"}, "", "(--threshold)"},
		{"environment", nil, "0.25", "(environment variable SCENT_THRESHOLD)"},
		{"config file", []string{"--config", config}, "", "(config file " + config + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("SCENT_THRESHOLD", tc.env)
			}
			args := append([]string{"crawl", "--seeds", seedFile, "--model", model, "--db", filepath.Join(dir, fmt.Sprintf("c%d.db", i)),
				"--max-pages", "1", "--delay", "0", "--quiet"}, tc.args...)
			out, err := runScent(t, args...)
			if err != nil {
				t.Fatalf("crawl: %v\n%s", err, out)
			}
			if want := "on-topic threshold 0.25 " + tc.want + " instead of the model's"; !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		})
	}
}
