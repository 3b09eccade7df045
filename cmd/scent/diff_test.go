package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/scent-crawler/scent/change"
)

func TestRunDiff(t *testing.T) {
	dir := t.TempDir()
	oldPath := filepath.Join(dir, "old.txt")
	if err := os.WriteFile(oldPath, []byte("w1 w2 w2 w2 w3 w3 w4 w5 w2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/new" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("w3 w1 w4 w2 w3\n\tw5 w5 w6 w6 w7"))
	}))
	defer srv.Close()
	opts := diffOptions{costs: change.Costs{S: 0.4, T: 0.9}, json: true, timeout: 5e9, maxBytes: 1 << 20}

	var out bytes.Buffer
	if err := runDiff(context.Background(), &out, oldPath, srv.URL+"/new", opts); err != nil {
		t.Fatal(err)
	}
	var rep diffReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.Bytes())
	}
	want := change.Ops{Add: 2, Copy: 3, Shrink: 4, Move: 1}
	if rep.IED.Ops != want || rep.Old != 9 || rep.New != 10 || rep.Bytewise != 1 {
		t.Fatalf("report %+v", rep)
	}
	if d := rep.IED.Distance - 0.57; d > 1e-9 || d < -1e-9 {
		t.Fatalf("D_IED %v", rep.IED.Distance)
	}

	out.Reset()
	opts.json = false
	if err := runDiff(context.Background(), &out, oldPath, srv.URL+"/new", opts); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"shrink   4", "D_IED    0.5700", "10-SH"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}

	errCases := []struct {
		name     string
		old, new string
		o        diffOptions
	}{
		{"missing file", filepath.Join(dir, "absent"), oldPath, opts},
		{"404", oldPath, srv.URL + "/absent", opts},
		{"bad cost", oldPath, oldPath, diffOptions{costs: change.Costs{S: -1}, maxBytes: 10}},
		{"too large", oldPath, oldPath, diffOptions{costs: change.DefaultCosts(), maxBytes: 5}},
	}
	for _, tc := range errCases {
		if err := runDiff(context.Background(), &out, tc.old, tc.new, tc.o); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestNewDiffCmd(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("a b c d"), 0o644)
	os.WriteFile(b, []byte("b c d a"), 0o644)
	cmd := newDiffCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--json", "--t", "0.5", a, b})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var rep diffReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.IED.Ops != (change.Ops{Move: 1}) || rep.IED.Delta != 0.5 || rep.Costs.S != 0.75 {
		t.Fatalf("report %+v", rep)
	}
}

func TestNewChangeEvalCmd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ied")
	cmd := newChangeEvalCmd()
	var stdout, stderr bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"--out", out, "--words", "100"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "fig. 7: largest |IED − criterion| 0.0000") {
		t.Errorf("stdout: %s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "fig8.svg")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stderr.String(), "fig. 8") {
		t.Errorf("stderr: %s", stderr.String())
	}

	missing := newChangeEvalCmd()
	missing.SetOut(&stdout)
	missing.SetErr(&stderr)
	missing.SetArgs(nil)
	if err := missing.ExecuteContext(context.Background()); err == nil {
		t.Error("ran without --out")
	}
}

// TestRunDiff_unrelatedAndBinary: two unrelated 200,000-word documents
// are compared (approximately, and said so); binary input, a directory
// and a missing file are refused, each said plainly.
func TestRunDiff_unrelatedAndBinary(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte(randomWords(11, 200_000)), 0o644)
	os.WriteFile(b, []byte(randomWords(12, 200_000)), 0o644)
	var out bytes.Buffer
	opts := diffOptions{costs: change.DefaultCosts(), timeout: 5e9, maxBytes: 64 << 20}
	if err := runDiff(context.Background(), &out, a, b, opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "approximate") {
		t.Errorf("unrelated documents: output does not say the result is approximate:\n%s", out.String())
	}
	bin := filepath.Join(dir, "x.bin")
	os.WriteFile(bin, []byte("PK\x03\x04\x00\x00binary"), 0o644)
	err := runDiff(context.Background(), &out, a, bin, opts)
	if err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("binary input: error %v, want a refusal", err)
	}
	// A UTF-16 version (with its byte order mark) is read as text: the
	// same words as its UTF-8 form.
	utf16 := filepath.Join(dir, "a16.txt")
	words := "naïve café über"
	enc := []byte{0xff, 0xfe}
	for _, r := range words {
		enc = append(enc, byte(r), byte(r>>8))
	}
	os.WriteFile(utf16, enc, 0o644)
	utf8 := filepath.Join(dir, "a8.txt")
	os.WriteFile(utf8, []byte(words), 0o644)
	out.Reset()
	opts.json = true
	var rep struct {
		Old      int     `json:"old_words"`
		New      int     `json:"new_words"`
		Bytewise float64 `json:"bw"`
	}
	if err := runDiff(context.Background(), &out, utf8, utf16, opts); err != nil {
		t.Errorf("UTF-16 version: %v", err)
	} else if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Old != 3 || rep.New != 3 || rep.Bytewise != 0 {
		t.Errorf("UTF-16 and UTF-8 forms of one text differ (%v): %s", err, out.String())
	}
	opts.json = false
	if err := runDiff(context.Background(), &out, a, dir, opts); err == nil || err.Error() != dir+" is a directory, not a file of a version" {
		t.Errorf("a directory: error %v", err)
	}
	missing := filepath.Join(dir, "none.txt")
	if err := runDiff(context.Background(), &out, missing, a, opts); err == nil || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("a missing file: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := runDiff(ctx, &out, a, b, opts); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("canceled diff: error %v", err)
	}
}

// TestNewDiffCmd_flagsChecked: a --max-bytes or --timeout that is not
// positive is refused as a flag error before anything is read, not taken
// for a version "larger than 0 bytes" or a fetch that times out at once.
func TestNewDiffCmd_flagsChecked(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("a b c"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("a b c d"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-bytes", "0", a, a}, "--max-bytes must be positive, not 0"},
		{[]string{"--max-bytes", "-1", a, a}, "--max-bytes must be positive, not -1"},
		{[]string{"--timeout", "0", a, srv.URL}, "--timeout must be positive, not 0s"},
		{[]string{"--timeout", "-1s", a, srv.URL}, "--timeout must be positive, not -1s"},
	} {
		cmd := newDiffCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(tc.args)
		if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("scent diff %s: %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made by diffs whose flags were invalid", n)
	}
}

// TestPrintDiff_figures: the printed figures are the computed ones: δ_E
// in full, not in exponent form, and a distance too small for four
// decimals as "< 0.0001", not as the 0.0000 of equal versions.
func TestPrintDiff_figures(t *testing.T) {
	dir := t.TempDir()
	words := make([]string, 100_000)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	a, b, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
	os.WriteFile(a, []byte(strings.Join(words[:20_000], " ")), 0o644)
	os.WriteFile(b, []byte(strings.Join(words[20_000:40_000], " ")), 0o644)
	os.WriteFile(c, []byte(strings.Join(words, " ")), 0o644)
	words[50_000] = "changed"
	d := filepath.Join(dir, "d.txt")
	os.WriteFile(d, []byte(strings.Join(words, " ")), 0o644)
	opts := diffOptions{costs: change.DefaultCosts(), timeout: 5e9, maxBytes: 64 << 20}
	for _, tc := range []struct {
		old, new string
		want     []string
	}{
		{a, b, []string{"replace  20000\n", "δ_E      20000\n", "D_IED    1.0000\n"}},
		{c, d, []string{"replace  1\n", "δ_E      1\n", "D_IED    < 0.0001\n", "ED     < 0.0001"}},
		{c, c, []string{"δ_E      0\n", "D_IED    0.0000\n", "ED     0.0000"}},
	} {
		var out bytes.Buffer
		if err := runDiff(context.Background(), &out, tc.old, tc.new, opts); err != nil {
			t.Fatal(err)
		}
		for _, s := range tc.want {
			if !strings.Contains(out.String(), s) {
				t.Errorf("diff %s %s: output lacks %q:\n%s", filepath.Base(tc.old), filepath.Base(tc.new), s, out.String())
			}
		}
	}
}
