package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/replay"
)

func runScent(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.Execute()
	return out.String(), err
}

func TestLayoutCmd(t *testing.T) {
	archive := writeGridArchive(t)
	// Four department sites, each linking six course and six other pages
	// that link on in a ring; 24 course pages in all.
	out, err := runScent(t, "layout", archive, "--topic", "course")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pages reachable from 4 seeds, 24 labelled course", "course pages by links from the nearest seed: 1: 24",
		"department", "of the course pages: linked from", "a crawler that knew every page's label and links (greedy plan, seeds included) needs: 50% in "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	js, err := runScent(t, "layout", archive, "--topic", "course", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var l replay.Layout
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	if l.Topic != "course" || l.TopicPages != 24 || l.Hubs < 4 || len(l.Cover) != 3 || l.Cover[2].Hubs < 1 || len(l.Plan) != 3 || l.Plan[2].Fetches < 4+22 {
		t.Errorf("layout %+v", l)
	}
	// One seed: one site's six course pages.
	js, err = runScent(t, "layout", archive, "--topic", "course", "--json", "--seed", "http://a.test/")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(js), &l); err != nil || l.TopicPages != 6 {
		t.Errorf("from one seed: %d course pages (%v), want 6", l.TopicPages, err)
	}
	if _, err := runScent(t, "layout", archive, "--topic", "cource"); err == nil || !strings.Contains(err.Error(), "its labels: course, department, other") {
		t.Errorf("a topic no page has: %v", err)
	}
	for _, args := range [][]string{{"layout", archive}, {"layout", archive, "--topic", "course", "--seed", "ftp://x/"}, {"layout", "/nonexistent.tgz", "--topic", "course"}} {
		if _, err := runScent(t, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
