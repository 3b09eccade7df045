package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestStore_lease: a second store cannot run a crawl another one runs; it
// can once the first closes, and it takes over a lease whose process is
// gone.
func TestStore_lease(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "l.db")
	spec := crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{urlnorm.MustParse("http://x.test/")}}
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenCrawl(ctx, spec); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.OpenCrawl(ctx, spec); !errors.Is(err, ErrBusy) {
		t.Fatalf("second runner of a running crawl: error %v, want ErrBusy", err)
	}
	other := spec
	other.Name = "d"
	if _, err := b.OpenCrawl(ctx, other); err != nil {
		t.Errorf("another crawl of the same database: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.OpenCrawl(ctx, spec); err != nil {
		t.Errorf("after the first runner closed: %v", err)
	}
	// A lease of a process that no longer exists is taken over.
	if _, err := b.db.Exec(`UPDATE crawl_leases SET holder = 'gone', pid = ?`, deadPID(t)); err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.OpenCrawl(ctx, spec); err != nil {
		t.Errorf("lease of a dead process: %v", err)
	}
}

// deadPID returns the id of a process that has ended.
func deadPID(t *testing.T) int {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skip("cannot start /bin/true:", err)
	}
	p.Wait()
	return p.Pid
}

// TestOpenReadOnly: a read-only open changes nothing and refuses
// databases that are not scent's; a writable open refuses to add its
// tables to another program's database.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.db")
	d, err := sql.Open("sqlite3", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(`CREATE TABLE notes(x TEXT)`); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := OpenReadOnly(ctx, foreign); !errors.Is(err, ErrNotScent) {
		t.Errorf("read-only open of another program's database: %v", err)
	}
	if _, err := Open(ctx, foreign); !errors.Is(err, ErrNotScent) {
		t.Errorf("open of another program's database: %v", err)
	}
	d, _ = sql.Open("sqlite3", foreign)
	var n int
	d.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'crawls'`).Scan(&n)
	d.Close()
	if n != 0 {
		t.Error("scent's tables were created in another program's database")
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(dir, "missing.db")); err == nil {
		t.Error("read-only open of a missing file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("read-only open created a file")
	}
}

// TestStore_LeaseCrawl: a revisit's lease of a crawl keeps a second
// revisit and the crawl itself out until its store closes.
func TestStore_LeaseCrawl(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "l.db")
	spec := crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{urlnorm.MustParse("http://x.test/")}}
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.LeaseCrawl(ctx, st.ID, "c"); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.LeaseCrawl(ctx, st.ID, "c"); !errors.Is(err, ErrBusy) {
		t.Errorf("a second revisit of a leased crawl: error %v, want ErrBusy", err)
	}
	if _, err := b.OpenCrawl(ctx, spec); !errors.Is(err, ErrBusy) {
		t.Errorf("running a crawl being revisited: error %v, want ErrBusy", err)
	}
	a.Close()
	if err := b.LeaseCrawl(ctx, st.ID, "c"); err != nil {
		t.Errorf("lease once the revisit's store closed: %v", err)
	}
}
