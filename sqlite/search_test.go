package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/urlnorm"
)

// words returns n pseudo-random words, the same for the same seed.
func words(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 2))
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", r.IntN(4000))
	}
	return w
}

// dupState returns the duplicate_of of every page by path (0 for none)
// and the page ids by path.
func dupState(t *testing.T, s *Store, prefix string) (dupOf map[string]string, ids map[string]int64) {
	t.Helper()
	rows, err := s.db.Query(`SELECT p.id, u.url, COALESCE(ou.url, '') FROM pages p JOIN urls u ON u.id = p.url_id
		LEFT JOIN pages o ON o.id = p.duplicate_of LEFT JOIN urls ou ON ou.id = o.url_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dupOf, ids = map[string]string{}, map[string]int64{}
	for rows.Next() {
		var id int64
		var url, orig string
		if err := rows.Scan(&id, &url, &orig); err != nil {
			t.Fatal(err)
		}
		p := strings.TrimPrefix(url, prefix)
		dupOf[p], ids[p] = strings.TrimPrefix(orig, prefix), id
	}
	return dupOf, ids
}

func searchURLs(t *testing.T, s *Store, query, prefix string) []string {
	t.Helper()
	res, err := s.Search(context.Background(), query, 100)
	if err != nil {
		t.Fatalf("Search(%q): %v", query, err)
	}
	var out []string
	for _, r := range res {
		out = append(out, strings.TrimPrefix(r.URL, prefix))
	}
	return out
}

func TestStore_Commit_duplicates(t *testing.T) {
	ctx := context.Background()
	s, st := openBFS(t)
	base := words(1, 1200)
	near := append([]string(nil), base...)
	near[600] = "changed"
	signer, _ := minhash.NewSigner(minhash.DefaultParams())
	page := func(path, title, text string) *crawler.Page {
		return &crawler.Page{URL: u(path), Status: 200, Title: title, Text: text, Signature: signer.Sign(text)}
	}
	a := page("/a", "zebra original", "zebra "+strings.Join(base, " "))
	unsigned := page("/copy-unsigned", "zebra copy", a.Text)
	unsigned.Signature = minhash.Signature{} // the store signs it
	failed := page("/failed", "", "")
	failed.Status, failed.Failure = 404, "status: 404"
	huge := strings.Repeat("lorem ipsum dolor sit amet quokka ", 10<<20/34)
	batches := [][]*crawler.Page{
		{a, page("/copy", "zebra copy", a.Text)},
		{page("/near", "zebra near", "zebra "+strings.Join(near, " ")), unsigned, failed,
			page("/empty", "", ""), page("/blank", "", " \n\t "),
			page("/other", "zebra other", "zebra "+strings.Join(words(2, 1200), " "))},
		{page("/word1", "", strings.Repeat("buffalo ", 5000)), page("/word2", "", strings.Repeat("buffalo ", 7)),
			page("/word3", "", strings.Repeat("buffalo ", 5000)), page("/huge", "", huge)},
	}
	for _, b := range batches {
		if err := s.Commit(ctx, st.ID, b, nil); err != nil {
			t.Fatal(err)
		}
	}
	dupOf, _ := dupState(t, s, "http://a.test")
	want := map[string]string{
		"/a": "", "/copy": "/a", "/near": "/a", "/copy-unsigned": "/a", "/failed": "", "/empty": "", "/blank": "",
		"/other": "", "/word1": "", "/word2": "", "/word3": "/word1", "/huge": "",
	}
	for p, w := range want {
		if got, ok := dupOf[p]; !ok || got != w {
			t.Errorf("%s: duplicate_of %q (stored %t), want %q", p, got, ok, w)
		}
	}
	if got := searchURLs(t, s, "zebra", "http://a.test"); strings.Join(got, " ") != "/a /other" && strings.Join(got, " ") != "/other /a" {
		t.Errorf("search zebra = %v, want /a and /other", got)
	}
	if got := searchURLs(t, s, "buffalo", "http://a.test"); len(got) != 2 {
		t.Errorf("search buffalo = %v, want /word1 and /word2", got)
	}
	if got := searchURLs(t, s, "quokka", "http://a.test"); len(got) != 1 || got[0] != "/huge" {
		t.Errorf("search quokka = %v, want /huge", got)
	}
	// Every stored page's signature is the one the crawler made of its
	// text (the store's for the unsigned page); failed ones have none.
	_, ids := dupState(t, s, "http://a.test")
	for _, b := range batches {
		for _, p := range b {
			path := strings.TrimPrefix(p.URL.String(), "http://a.test")
			want := p.Signature
			if p == unsigned {
				want = a.Signature
			}
			got, err := s.Signature(ctx, ids[path])
			if err != nil || got != want {
				t.Errorf("signature of %s: kind %v, %v; want kind %v", path, got.Kind, err, want.Kind)
			}
		}
	}
	if _, err := s.Signature(ctx, 9999); err == nil {
		t.Error("signature of a page not stored")
	}
	// Export and report read the original's URL.
	got := map[string]string{}
	if err := s.EachPage(ctx, st.ID, func(p *crawler.Page) error {
		got[strings.TrimPrefix(p.URL.String(), "http://a.test")] = strings.TrimPrefix(p.DuplicateOf.String(), "http://a.test")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got["/copy"] != "/a" || got["/word3"] != "/word1" || got["/a"] != "" {
		t.Errorf("EachPage DuplicateOf = %v", got)
	}
}

func TestStore_Commit_sharedAcrossCrawls(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	text := strings.Join(words(3, 300), " ")
	var ids []int64
	for _, name := range []string{"first", "second"} {
		st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: name, Strategy: crawler.StrategyBFS, Stacks: []string{""}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
		if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: u("/" + name), Status: 200, Text: text}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	dupOf, _ := dupState(t, s, "http://a.test")
	if dupOf["/first"] != "" || dupOf["/second"] != "/first" {
		t.Fatalf("duplicate_of = %v, want /second → /first", dupOf)
	}
	var n int
	if err := s.EachText(ctx, ids[1], func(r *TextRow) error {
		n++
		if r.DuplicateOf == 0 || r.Crawl != "second" {
			t.Errorf("EachText(second) = %+v", r)
		}
		return nil
	}); err != nil || n != 1 {
		t.Fatalf("EachText(second): %d rows, %v", n, err)
	}
}

func TestStore_OpenCrawl_minhashParams(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	def := minhash.DefaultParams()
	if _, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "a", Strategy: crawler.StrategyBFS, Stacks: []string{""}, MinHash: &def}); err != nil {
		t.Fatal(err)
	}
	other := minhash.Params{ShingleWords: 4, Seed: 7}
	_, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "b", Strategy: crawler.StrategyBFS, Stacks: []string{""}, MinHash: &other})
	if !errors.Is(err, minhash.ErrParams) {
		t.Fatalf("OpenCrawl with other min-hash params = %v, want ErrParams", err)
	}
	if _, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}}); err != nil {
		t.Fatalf("OpenCrawl without params = %v", err)
	}
}

// TestCrawl_duplicates crawls a small site where /a and /b serve the same
// page, /c a near copy of it and /d another page: exactly one of the three
// copies is the original, whichever was stored first.
func TestCrawl_duplicates(t *testing.T) {
	text := strings.Join(words(5, 1200), " ")
	near := strings.Replace(text, " w", " x", 1) // one word changed near the start
	body := func(title, text string) string {
		return "<html><head><title>" + title + "</title></head><body><p>" + text + "</p></body></html>"
	}
	site := map[string]string{
		"/":  `<html><body><a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a> <a href="/d">d</a></body></html>`,
		"/a": body("Syllabus", "aardvark "+text),
		"/b": body("Syllabus", "aardvark "+text),
		"/c": body("Syllabus mirror", "aardvark "+near),
		"/d": body("Other", "aardvark "+strings.Join(words(6, 1200), " ")),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := site[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, b)
	}))
	defer srv.Close()
	f, err := fetch.New(fetch.Config{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _ := open(t)
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, s, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{urlnorm.MustParse(srv.URL + "/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	prefix := strings.TrimSuffix(urlnorm.MustParse(srv.URL+"/").String(), "/")
	dupOf, _ := dupState(t, s, prefix)
	var originals []string
	for _, p := range []string{"/a", "/b", "/c"} {
		if _, ok := dupOf[p]; !ok {
			t.Fatalf("page %s not stored: %v", p, dupOf)
		}
		if dupOf[p] == "" {
			originals = append(originals, p)
		}
	}
	if len(originals) != 1 {
		t.Fatalf("originals among /a /b /c: %v, want one (duplicate_of: %v)", originals, dupOf)
	}
	for _, p := range []string{"/a", "/b", "/c"} {
		if p != originals[0] && dupOf[p] != originals[0] {
			t.Errorf("%s: duplicate_of %q, want %q", p, dupOf[p], originals[0])
		}
	}
	if dupOf["/d"] != "" {
		t.Errorf("/d: duplicate_of %q, want none", dupOf["/d"])
	}
	got := searchURLs(t, s, "aardvark", prefix)
	if len(got) != 2 || !(got[0] == originals[0] || got[1] == originals[0]) || !(got[0] == "/d" || got[1] == "/d") {
		t.Errorf("search aardvark = %v, want %s and /d", got, originals[0])
	}
	if got := searchURLs(t, s, "syllabus", prefix); len(got) != 1 || got[0] != originals[0] {
		t.Errorf("search syllabus = %v, want only %s", got, originals[0])
	}
}

func TestStore_Search(t *testing.T) {
	ctx := context.Background()
	s, st := openBFS(t)
	filler := func(seed uint64) string { return strings.Join(words(seed, 200), " ") }
	pages := []*crawler.Page{
		{URL: u("/once"), Status: 200, Title: "Notes", Text: filler(10) + " robotics " + filler(11)},
		{URL: u("/title"), Status: 200, Title: "Robotics lab", Text: filler(12) + " robotics " + filler(13)},
		{URL: u("/many"), Status: 200, Title: "Notes", Text: filler(14) + " robotics robotics robotics " + filler(15)},
		{URL: u("/short"), Status: 200, Title: "Home", Text: "Robotics and vision group"},
		{URL: u("/none"), Status: 200, Title: "Other", Text: filler(16)},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	got := searchURLs(t, s, "robotics", "http://a.test")
	if len(got) != 4 {
		t.Fatalf("search robotics = %v, want 4 pages", got)
	}
	// A title hit beats the same text hit; more hits beat one; a short
	// text beats a long one with the same hit count.
	rank := map[string]int{}
	for i, p := range got {
		rank[p] = i
	}
	if rank["/title"] > rank["/once"] || rank["/many"] > rank["/once"] || rank["/short"] > rank["/once"] {
		t.Errorf("ranking %v: /once should come last", got)
	}
	res, err := s.Search(ctx, "vision", 10)
	if err != nil || len(res) != 1 {
		t.Fatalf("Search(vision) = %v, %v", res, err)
	}
	if r := res[0]; r.Title != "Home" || r.Crawl != "c" || r.Snippet != "Robotics and [vision] group" || r.Score <= 0 {
		t.Errorf("result = %+v", r)
	}
	if res, _ := s.Search(ctx, "robotics", 2); len(res) != 2 {
		t.Errorf("limit 2: %d results", len(res))
	}
	if _, err := s.Search(ctx, "  ", 10); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("empty query: %v", err)
	}
	if _, err := s.Search(ctx, `"unbalanced`, 10); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("unbalanced quote: %v, want a malformed query error", err)
	}
	if res, err := s.Search(ctx, "nosuchword", 10); err != nil || len(res) != 0 {
		t.Errorf("Search(nosuchword) = %v, %v", res, err)
	}
	// -word leaves out the pages holding it, also from an OR.
	for q, want := range map[string]string{
		"robotics -vision":             "/many /once /title",
		"robotics -lab -vision":        "/many /once",
		`robotics -"vision group"`:     "/many /once /title",
		"vision OR notes -robotics":    "",
		"robotics OR other -vision":    "/many /none /once /title",
		`"robotics and vision" -notes`: "/short",
	} {
		got := searchURLs(t, s, q, "http://a.test")
		sort.Strings(got)
		if g := strings.Join(got, " "); g != want {
			t.Errorf("search %s = %s, want %s", q, g, want)
		}
	}
	if _, err := s.Search(ctx, "-robotics", 10); err == nil || !strings.Contains(err.Error(), "needs a word to find") {
		t.Errorf("a query of exclusions alone: %v", err)
	}
	long := strings.Repeat("word ", 5000)
	if _, err := s.Search(ctx, long, 10); err == nil || len(err.Error()) > 400 {
		t.Errorf("a query too long: error of %d bytes, want a short one", len(fmt.Sprint(err)))
	}
}

func Test_bm25(t *testing.T) {
	enc := func(v ...uint32) []byte {
		b := make([]byte, 0, 4*len(v))
		for _, x := range v {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		return b
	}
	// One phrase, one column, 10 rows of 100 tokens on average; this row
	// has 100 tokens and 2 hits; 3 rows hold the phrase.
	got, err := bm25(enc(1, 1, 10, 100, 100, 2, 5, 3), []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	// idf = ln(1 + 7.5/3.5); length norm 1, so tf part = 2·2.2/(2+1.2).
	want := 1.1451323043030026 * 2 * 2.2 / (2 + 1.2)
	if diff := got - want; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("bm25 = %v, want %v", got, want)
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}, enc(1, 1, 10, 100), enc(2, 1, 10, 100, 100, 2, 5, 3)} {
		if _, err := bm25(bad, nil); err == nil {
			t.Errorf("bm25(%v): no error", bad)
		}
	}
}

// FuzzBm25 feeds arbitrary matchinfo blobs to the scorer: it must return
// an error or a finite, non-negative score, never panic.
func FuzzBm25(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 100, 0, 0, 0, 100, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0})
	f.Add([]byte{})
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, info []byte) {
		score, err := bm25(info, []float64{2, 1})
		if err == nil && (score < 0 || math.IsNaN(score) || math.IsInf(score, 0)) {
			t.Fatalf("bm25 = %v", score)
		}
	})
}

// BenchmarkStore_Commit_dedup commits batches of 16 successful pages of
// 500 words, one in four a copy of an earlier page, with their
// near-duplicate checks and search indexing.
func BenchmarkStore_Commit_dedup(b *testing.B) {
	ctx := context.Background()
	s, st := openBFS(b)
	signer, _ := minhash.NewSigner(minhash.DefaultParams())
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := make([]*crawler.Page, 16)
		for k := range batch {
			n++
			seed := uint64(n)
			if n%4 == 0 {
				seed = uint64(n / 2)
			}
			text := strings.Join(words(seed, 500), " ")
			batch[k] = &crawler.Page{URL: u(fmt.Sprintf("/p%d", n)), Status: 200, Title: "t", Text: text, Signature: signer.Sign(text)}
		}
		if err := s.Commit(ctx, st.ID, batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*16), "µs/page")
}

// BenchmarkStore_Search searches 2,000 pages for one common word.
func BenchmarkStore_Search(b *testing.B) {
	ctx := context.Background()
	s, st := openBFS(b)
	for i := range 100 {
		batch := make([]*crawler.Page, 20)
		for k := range batch {
			id := i*20 + k
			batch[k] = &crawler.Page{URL: u(fmt.Sprintf("/p%d", id)), Status: 200, Title: "t", Text: strings.Join(words(uint64(id)+1, 300), " ")}
		}
		if err := s.Commit(ctx, st.ID, batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res, err := s.Search(ctx, "w17", 10); err != nil || len(res) != 10 {
			b.Fatal(len(res), err)
		}
	}
}

// FuzzStore_Search searches a small store with arbitrary queries: a
// query is found, or refused as empty or as one the index does not
// read, with the query quoted; never a panic, another error of the
// database, more results than the limit or a score that is not a finite
// non-negative number.
func FuzzStore_Search(f *testing.F) {
	for _, q := range []string{"robotics", `"robotics and vision" -notes`, "vision OR notes -robotics", "robo*", `"unbalanced`, "-", "NEAR/3", "a:b", "Ünïcödé ✓", "AND OR NOT", `-"`} {
		f.Add(q)
	}
	ctx := context.Background()
	s, st := openBFS(f)
	pages := []*crawler.Page{
		{URL: u("/a"), Status: 200, Title: "Robotics lab", Text: "Robotics and vision group, notes of the lab"},
		{URL: u("/b"), Status: 200, Title: "Notes", Text: "Über die Vorlesung: Notizen und Übungen ✓"},
		{URL: u("/c"), Status: 200, Title: "", Text: "NEAR AND OR NOT a:b c-d"},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query string) {
		res, err := s.Search(ctx, query, 2)
		if err != nil {
			if errors.Is(err, ErrEmptyQuery) {
				return
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "search ") || !(strings.Contains(msg, "not a query this index reads") || strings.Contains(msg, "a query needs a word")) {
				t.Fatalf("Search(%q): %v", query, err)
			}
			return
		}
		if len(res) > 2 {
			t.Fatalf("Search(%q): %d results, limit 2", query, len(res))
		}
		for _, r := range res {
			if r.Score < 0 || math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				t.Fatalf("Search(%q): score %v", query, r.Score)
			}
		}
	})
}
