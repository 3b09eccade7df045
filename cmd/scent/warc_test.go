package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/warc"
)

// readWARC reads every record of a WARC file and checks that writing them
// again gives the file's bytes; it returns the records and the error that
// ended the reading (nil at a clean end).
func readWARC(t *testing.T, path string) ([]*warc.Record, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd := warc.NewReader(bytes.NewReader(data))
	var recs []*warc.Record
	var again bytes.Buffer
	w := warc.NewWriter(&again)
	for {
		r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(again.Bytes(), data) {
		t.Errorf("%s: the records read, written again, differ from the file", path)
	}
	return recs, nil
}

// warcTargets reads the closed WARC files of dir and returns the target
// URIs of their response and revisit records.
func warcTargets(t *testing.T, dir string) (map[string]bool, []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	targets := make(map[string]bool)
	for _, f := range files {
		recs, err := readWARC(t, f)
		if err != nil {
			t.Errorf("closed file %s: %v", f, err)
		}
		for i, r := range recs {
			if i == 0 && r.Type() != warc.TypeWarcinfo {
				t.Errorf("%s starts with a %s record", f, r.Type())
			}
			if r.Type() == warc.TypeResponse || r.Type() == warc.TypeRevisit {
				targets[r.TargetURI()] = true
				if r.Header.Get("WARC-Payload-Digest") == "" || r.Header.Get("WARC-Block-Digest") != warc.Digest(r.Block) {
					t.Errorf("%s: %s record of %s without payload digest or with a wrong block digest", f, r.Type(), r.TargetURI())
				}
			}
		}
	}
	return targets, files
}

func TestCrawl_warcKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs crawls in child processes")
	}
	bin := scentBinary(t)
	const n = 300
	dir := t.TempDir()
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: n, Delay: 3 * time.Millisecond})
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/p0\n")
	db, warcDir := filepath.Join(dir, "c.db"), filepath.Join(dir, "warc")
	crawl := func() *exec.Cmd {
		return exec.Command(bin, "crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--max-pages", "0",
			"--delay", "0", "--host-parallelism", "0", "--workers", "4", "--quiet", "--warc", warcDir, "--warc-max-size", "20000",
			"--group-commit", "20ms") // many groups: the kill lands within the crawl
	}
	cmd := crawl()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for countPages(db) < n/3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if before := countPages(db); before == 0 || before >= n {
		t.Fatalf("killed after %d pages: the kill did not land mid-crawl", before)
	}
	// Every closed file is whole; the open one holds whole records up to
	// at most one incomplete group at its end.
	_, closed := warcTargets(t, warcDir)
	if len(closed) < 2 {
		t.Errorf("%d closed WARC files before the kill; want rotation", len(closed))
	}
	open, _ := filepath.Glob(filepath.Join(warcDir, "*.open"))
	if len(open) != 1 {
		t.Fatalf("open files after the kill: %v", open)
	}
	if _, err := readWARC(t, open[0]); err != nil {
		t.Logf("the open file ends in an incomplete record: %v", err)
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, warc.ErrFormat) {
			t.Errorf("open file: %v", err)
		}
	}

	out, err := crawl().CombinedOutput()
	if err != nil || !strings.Contains(string(out), "frontier empty") {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "was left open: closed after its") {
		t.Errorf("resume did not report the repaired file:\n%s", out)
	}
	if open, _ := filepath.Glob(filepath.Join(warcDir, "*.open")); len(open) != 0 {
		t.Errorf("open files after a finished crawl: %v", open)
	}
	targets, _ := warcTargets(t, warcDir)
	for _, u := range fetchedSet(t, db) {
		if !targets[u] {
			t.Errorf("fetched page %s has no response record", u)
		}
	}

	// A revisit finds every page unchanged: the export adds a revisit
	// record for each check.
	if out, err := exec.Command(bin, "revisit", "--db", db, "--delay", "0", "--host-parallelism", "0", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("revisit: %v\n%s", err, out)
	}
	// The export of the same crawl, checked by our reader and by warcio.
	exp := filepath.Join(dir, "export")
	if out, err := exec.Command(bin, "export", "--db", db, "--format", "warc", "--out", exp).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	targets, files := warcTargets(t, exp)
	fetched := fetchedSet(t, db)
	revisits := 0
	for _, f := range files {
		recs, _ := readWARC(t, f)
		for _, r := range recs {
			if r.Type() == warc.TypeRevisit && r.Header.Get("WARC-Refers-To") != "" {
				revisits++
			}
		}
	}
	if revisits != len(fetched) {
		t.Errorf("export: %d revisit records for %d pages revisited unchanged", revisits, len(fetched))
	}
	if len(targets) != len(fetched) {
		t.Errorf("export: %d response targets for %d fetched pages", len(targets), len(fetched))
	}
	// A second export into the same folder would write every record
	// again beside the first's: it is refused, and the folder kept.
	if out, err := exec.Command(bin, "export", "--db", db, "--format", "warc", "--out", exp).CombinedOutput(); err == nil ||
		!strings.Contains(string(out), fmt.Sprintf("%s holds %d WARC files already", exp, len(files))) {
		t.Errorf("a second export into %s: %v\n%s", exp, err, out)
	}
	if _, again := warcTargets(t, exp); len(again) != len(files) {
		t.Errorf("after a refused export the folder holds %d WARC files, want %d", len(again), len(files))
	}
	t.Run("warcio", func(t *testing.T) { checkWarcio(t, files, fetched) })
}

// checkWarcio parses files with Webrecorder's warcio (npm), an independent
// implementation: "warcio index" must list every record and "warcio
// cdx-index" every fetched URL. It runs as a subtest, which skips with a
// message without node or warcio.
func checkWarcio(t *testing.T, files, fetched []string) {
	t.Helper()
	bin := os.Getenv("SCENT_WARCIO")
	if bin == "" {
		bin, _ = exec.LookPath("warcio")
	}
	if bin == "" {
		t.Skip("warcio (npm install warcio; set SCENT_WARCIO to its bin/warcio) is absent: skipping the independent check")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is absent: skipping the warcio check")
	}
	records := 0
	for _, f := range files {
		recs, _ := readWARC(t, f)
		records += len(recs)
	}
	out, err := exec.Command(bin, append([]string{"index"}, files...)...).Output()
	if err != nil {
		t.Fatalf("warcio index: %v", err)
	}
	if lines := strings.Count(string(out), "\n"); lines != records {
		t.Errorf("warcio index lists %d records, our reader %d", lines, records)
	}
	out, err = exec.Command(bin, append([]string{"cdx-index"}, files...)...).Output()
	if err != nil {
		t.Fatalf("warcio cdx-index: %v", err)
	}
	cdx := string(out)
	for _, u := range fetched {
		if !strings.Contains(cdx, fmt.Sprintf("%q", u)) {
			t.Errorf("warcio cdx-index does not list %s", u)
		}
	}
	t.Logf("warcio read %d records of %d files; cdx-index lists %d lines", records, len(files), strings.Count(cdx, "\n"))
}

// writtenContext is a context that reports itself canceled once dir
// holds a WARC file being written: an export interrupted after its
// first records.
type writtenContext struct {
	context.Context
	dir string
}

func (c writtenContext) Err() error {
	if open, _ := filepath.Glob(filepath.Join(c.dir, "*.warc.gz.open")); len(open) > 0 {
		return context.Canceled
	}
	return c.Context.Err()
}

// TestExportWARC_interrupted: an export interrupted midway removes the
// files it wrote (a part of the crawl is not left looking whole), so the
// same command then writes the whole crawl; a folder holding a file that
// a killed run left open is refused, not closed and written beside.
func TestExportWARC_interrupted(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seedFile := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seedFile, []byte("seed "+srv.URL+"/\n"), 0o644)
	db := filepath.Join(dir, "c.db")
	if out, err := runScent(t, "crawl", "--seeds", seedFile, "--db", db, "--strategy", "bfs", "--max-pages", "20", "--delay", "0", "--quiet"); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	exp := filepath.Join(dir, "export")
	err := exportWARC(writtenContext{context.Background(), exp}, db, "", exp, 1000, io.Discard)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted export: %v, want context.Canceled", err)
	}
	if left, _ := filepath.Glob(filepath.Join(exp, "*.warc.gz*")); len(left) > 0 {
		t.Errorf("an interrupted export left %v", left)
	}
	if err := exportWARC(context.Background(), db, "", exp, 1000, io.Discard); err != nil {
		t.Fatalf("the export again: %v", err)
	}
	targets, files := warcTargets(t, exp)
	if fetched := fetchedSet(t, db); len(targets) != len(fetched) || len(files) < 2 {
		t.Errorf("the export again: %d response targets in %d files for %d fetched pages", len(targets), len(files), len(fetched))
	}

	killed := filepath.Join(dir, "killed")
	os.Mkdir(killed, 0o755)
	os.WriteFile(filepath.Join(killed, "scent-20260101000000-00000.warc.gz.open"), nil, 0o644)
	err = exportWARC(context.Background(), db, "", killed, 1000, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "left open by a run that was killed") {
		t.Errorf("export into a folder with a file left open: %v, want a refusal", err)
	}
	if files, _ := filepath.Glob(filepath.Join(killed, "*.warc.gz")); len(files) > 0 {
		t.Errorf("a refused export wrote %v", files)
	}
}
