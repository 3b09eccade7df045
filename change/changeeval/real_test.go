package changeeval

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/sharedtest"

	"github.com/scent-crawler/scent/change"
)

// history builds a small change history: page a has four versions given
// out of time order, the third omitted; page b has a deletion between two
// versions.
func history(t *testing.T) []byte {
	t.Helper()
	lines := []map[string]any{
		{"url": "a", "time": "2023-01-01T00:00:00Z", "deleted": false, "text": "one two three"},
		{"url": "b", "time": "2023-01-01T00:00:00Z", "deleted": false, "text": "x y"},
		{"url": "a", "time": "2023-01-04T00:00:00Z", "deleted": false, "text": "one two five six"},
		{"url": "a", "time": "2023-01-02T00:00:00Z", "deleted": false, "text": "one two  three four"},
		{"url": "a", "time": "2023-01-03T00:00:00Z", "deleted": false, "text_omitted": 123456},
		{"url": "b", "time": "2023-01-02T00:00:00Z", "deleted": true, "text": ""},
		{"url": "b", "time": "2023-01-03T00:00:00Z", "deleted": false, "text": "y x"},
	}
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRealChanges(t *testing.T) {
	c := change.DefaultCosts()
	plain := history(t)
	for name, data := range map[string][]byte{"plain": plain, "gzip": gz(t, plain)} {
		t.Run(name, func(t *testing.T) {
			var progress bytes.Buffer
			res, err := RealChanges(context.Background(), bytes.NewReader(data), c, 0, &progress)
			if err != nil {
				t.Fatal(err)
			}
			if res.Versions != 7 || res.Pages != 2 {
				t.Fatalf("versions %d pages %d, want 7 and 2", res.Versions, res.Pages)
			}
			// a: (1→2) measured, (2→3) and (3→4) omitted; b: both pairs deleted.
			if res.Pairs != 1 || res.Measured != 1 || res.SkippedOmitted != 2 || res.SkippedDeleted != 2 {
				t.Fatalf("pairs %d measured %d omitted %d deleted %d, want 1 1 2 2",
					res.Pairs, res.Measured, res.SkippedOmitted, res.SkippedDeleted)
			}
			want := values(change.Compare([]byte("one two three"), []byte("one two  three four"), c))
			if res.Values[0] != want || res.Mean != want {
				t.Fatalf("values %v, mean %v, want %v", res.Values[0], res.Mean, want)
			}
			if res.Mean[bw] != 1 || math.Abs(res.Mean[wd]-(1-6.0/7)) > 1e-12 {
				t.Fatalf("BW %v WD %v", res.Mean[bw], res.Mean[wd])
			}
			if res.MeanOps.Add != 1 {
				t.Fatalf("mean ops %+v, want one add", res.MeanOps)
			}
			if !strings.Contains(progress.String(), "1/1 pairs") {
				t.Fatalf("progress %q", progress.String())
			}
		})
	}
}

func TestRealChanges_errors(t *testing.T) {
	c := change.DefaultCosts()
	if _, err := RealChanges(context.Background(), strings.NewReader("{\"url\": 3}\n"), c, 0, nil); err == nil {
		t.Error("bad record accepted")
	}
	if _, err := RealChanges(context.Background(), bytes.NewReader([]byte{0x1f, 0x8b, 0, 1}), c, 0, nil); err == nil {
		t.Error("broken gzip accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	two := `{"url":"a","time":"2023-01-01T00:00:00Z","text":"a"}` + "\n" + `{"url":"a","time":"2023-01-02T00:00:00Z","text":"b"}`
	if _, err := RealChanges(ctx, strings.NewReader(two), c, 0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestRealChanges_maxPairs(t *testing.T) {
	var buf bytes.Buffer
	for i := range 10 {
		line, _ := json.Marshal(map[string]any{
			"url": "p", "time": "2023-01-01T00:00:0" + string(rune('0'+i)) + "Z",
			"text": strings.Repeat("w ", i+1),
		})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	res, err := RealChanges(context.Background(), &buf, change.DefaultCosts(), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pairs != 9 || res.Measured != 3 || len(res.Values) != 3 {
		t.Fatalf("pairs %d measured %d, want 9 and 3", res.Pairs, res.Measured)
	}
	// Pairs 0, 3 and 6: from 1 to 2, 4 to 5 and 7 to 8 words (copies).
	for i, from := range []int{1, 4, 7} {
		want := 1 - 2*float64(from)/float64(2*from+1)
		if math.Abs(res.Values[i][wd]-want) > 1e-12 {
			t.Errorf("pair %d: WD %v, want %v", i, res.Values[i][wd], want)
		}
	}
}

// sharedDir returns ../shared beside the module root, or skips the test.
func sharedDir(t *testing.T) string {
	return filepath.Dir(sharedtest.Path(t, "changes"))
}

// TestRealChanges_history runs Fig. 5 on a spread subset of the real change
// history.
func TestRealChanges_history(t *testing.T) {
	path := filepath.Join(sharedDir(t), "changes", "stalker-2021-2024.jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("change history absent: %v", err)
	}
	defer f.Close()
	res, err := RealChanges(context.Background(), f, change.DefaultCosts(), 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Versions != 5341 || res.Measured != 300 || res.Pairs < 4000 {
		t.Fatalf("versions %d pairs %d measured %d", res.Versions, res.Pairs, res.Measured)
	}
	// Every version differs from the one before, so BW is 1 throughout,
	// while the word-level metrics see small changes on average, 10-SH the
	// largest of them (as in the paper).
	if res.Mean[bw] < 0.99 {
		t.Errorf("BW mean %v", res.Mean[bw])
	}
	for _, m := range []int{cos, wd, ed, ied} {
		if res.Mean[m] <= 0 || res.Mean[m] >= res.Mean[sh] {
			t.Errorf("%s mean %v not in (0, 10SH = %v)", Metrics[m], res.Mean[m], res.Mean[sh])
		}
	}
}

func FuzzRealChanges(f *testing.F) {
	f.Add([]byte(`{"url":"a","time":"2023-01-01T00:00:00Z","text":"a b"}` + "\n" + `{"url":"a","time":"2023-01-02T00:00:00Z","text":"b a c"}`))
	f.Add([]byte(`{"url":"a","text_omitted":5}`))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := RealChanges(context.Background(), bytes.NewReader(data), change.DefaultCosts(), 0, nil)
		if err != nil {
			return
		}
		for _, v := range res.Values {
			for i, x := range v {
				if i != IEDIndex && !(x >= 0 && x <= 1) {
					t.Fatalf("%s = %v", Metrics[i], x)
				}
			}
		}
	})
}
