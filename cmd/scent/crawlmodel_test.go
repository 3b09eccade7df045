package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawl_tunedModel: crawl takes no model tuning flag; a model tuned
// by train is given to it with --model, and the crawl cuts link contexts
// with the window that model learnt from.
func TestCrawl_tunedModel(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seedFile := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seedFile, []byte(fmt.Sprintf("seed %s/\ncourse %s/c10\ncourse %s/c11\nother %s/o10\nother %s/o11\n", srv.URL, srv.URL, srv.URL, srv.URL, srv.URL)), 0o644)
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
