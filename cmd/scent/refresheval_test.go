package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/refresh"
)

func TestRefreshEvalCmd(t *testing.T) {
	dir := t.TempDir()
	var hist bytes.Buffer
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for p := range 20 {
		every := time.Duration(p+1) * 13 * time.Hour
		for ts := t0; ts.Before(t0.Add(60 * 24 * time.Hour)); ts = ts.Add(every) {
			fmt.Fprintf(&hist, `{"url": "/p%d", "time": %q, "deleted": false, "text": "v"}`+"\n", p, ts.Format(time.RFC3339))
		}
		if p == 1 {
			hist.WriteString("{broken\n")
		}
	}
	// A page that vanishes.
	fmt.Fprintf(&hist, `{"url": "/gone", "time": %q}`+"\n", t0.Format(time.RFC3339))
	fmt.Fprintf(&hist, `{"url": "/gone", "time": %q, "deleted": true}`+"\n", t0.Add(40*24*time.Hour).Format(time.RFC3339))
	path := filepath.Join(dir, "h.jsonl")
	os.WriteFile(path, hist.Bytes(), 0o644)
	out := filepath.Join(dir, "out")
	root := newRootCmd()
	var buf bytes.Buffer
	root.SetOut(&buf)
	root.SetErr(&buf)
	root.SetArgs([]string{"refresh-eval", "--changes", path, "--capacity", "2,10", "--out", out})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("refresh-eval: %v\n%s", err, buf.String())
	}
	s := buf.String()
	for _, want := range []string{"21 pages", "1 bad lines", "bad line ", "default", "oracle", "groups6", "daily, at its own load", "multiplicative, at its own load", "; the default at that load: freshness "} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	for _, f := range []string{"results.csv", "results.json", "freshness.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(out, "results.csv"))
	if lines := strings.Count(string(csv), "\n"); lines != 1+2*7 {
		t.Errorf("results.csv has %d lines, want a header and 14 rows", lines)
	}
}

// TestRefreshEvalCmd_badFlags: settings that cannot be used are refused.
func TestRefreshEvalCmd_badFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(path, []byte(`{"url": "/p", "time": "2024-01-01T00:00:00Z", "text": "v"}`+"\n"), 0o644)
	for _, tc := range []struct{ flag, value, want string }{
		{"--reallocate", "0s", "--reallocate must be positive"},
		{"--forget", "-1", "--forget must be"},
	} {
		root := newRootCmd()
		var buf bytes.Buffer
		root.SetOut(&buf)
		root.SetErr(&buf)
		root.SetArgs([]string{"refresh-eval", "--changes", path, tc.flag, tc.value})
		if err := root.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want refused", tc.flag, tc.value, err)
		}
	}
}

// TestRefreshEvalCmd_noPage: a history with no page says why: empty,
// blank, or lines that are not events, the first ones shown with their
// number and reason and the rest counted.
func TestRefreshEvalCmd_noPage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, history, want string
	}{
		{"empty", "", "has no page: it is empty"},
		{"blank", "\n\n", "has no page: its 2 line(s) are blank"},
		{"notJSON", "garbage\n", "has no page: 1 of its 1 line(s) are not events (line 1: not a JSON object: invalid character 'g'"},
		{"many", "garbage\n\n{}\n" + `{"url": "/p"}` + "\nx\ny\n", "has no page: 5 of its 6 line(s) are not events (line 1: not a JSON object: invalid character 'g' looking for beginning of value; line 3: no url; line 4: no time; and 2 more)"},
	} {
		path := filepath.Join(dir, tc.name+".jsonl")
		os.WriteFile(path, []byte(tc.history), 0o644)
		_, err := runScent(t, "refresh-eval", "--changes", path)
		if err == nil || !strings.Contains(err.Error(), path+" "+tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestPrintRefreshReport_manyBadLines: a history with more bad lines than
// it keeps counts them all and says how many are not listed.
func TestPrintRefreshReport_manyBadLines(t *testing.T) {
	h := &refresh.History{Lines: 1500, BadCount: 1200}
	for i := range 1000 {
		h.Bad = append(h.Bad, refresh.BadLine{Line: i + 1, Err: "not a JSON object"})
	}
	h.Bad = append(h.Bad, refresh.BadLine{Err: "200 more bad lines"})
	var b strings.Builder
	printRefreshReport(&b, h, &refresh.SimReport{})
	if !strings.Contains(b.String(), "0 changes, 1200 bad lines;") || !strings.Contains(b.String(), "\n  … and 200 more bad lines\n") || strings.Contains(b.String(), "bad line 0") {
		t.Errorf("report of 1,200 bad lines:\n%.400s …", b.String())
	}
}
