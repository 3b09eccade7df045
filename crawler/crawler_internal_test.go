package crawler

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/scent-crawler/scent/urlnorm"
)

// TestCapFailure: a failure's text is cut to maxFailure bytes on a
// character's boundary, saying how much was cut; a short one is kept.
func TestCapFailure(t *testing.T) {
	p := &Page{Failure: "redirect: to http://x/" + strings.Repeat("é", 3000)}
	capFailure(p)
	if len(p.Failure) > maxFailure+40 || !utf8.ValidString(p.Failure) || !strings.Contains(p.Failure, "bytes more)") {
		t.Errorf("cut failure: %d bytes, valid %v, ends %q", len(p.Failure), utf8.ValidString(p.Failure), p.Failure[len(p.Failure)-30:])
	}
	p = &Page{Failure: "status: HTTP 404"}
	capFailure(p)
	if p.Failure != "status: HTTP 404" {
		t.Errorf("short failure changed: %q", p.Failure)
	}
}

// TestInOrder_pass: results come back in send order; a pass gives the
// ones held past a result still out, which comes back at once when it
// arrives; and the next wait is for the result next in order, not for
// the one passed.
func TestInOrder_pass(t *testing.T) {
	e := func(p string) Entry { return Entry{URL: urlnorm.MustParse("http://a.test/" + p)} }
	res := func(p string) result { return result{entry: e(p)} }
	paths := func(rs []result) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.entry.URL.Path())
		}
		return strings.Join(out, " ")
	}
	o := newInOrder()
	o.send(e("stuck"))
	time.Sleep(2 * time.Millisecond)
	for _, p := range []string{"b", "c", "d"} {
		o.send(e(p))
	}
	var out []result
	out = o.receive(res("c"), out)
	out = o.receive(res("b"), out)
	if len(out) != 0 {
		t.Fatalf("gave %q while /stuck is out", paths(out))
	}
	out = o.pass(out)
	if got := paths(out); got != "/b /c" {
		t.Errorf("pass gave %q, want /b /c", got)
	}
	if since, sentStuck := o.awaitedSince(), o.sentAt[0]; !since.After(sentStuck) {
		t.Errorf("after the pass the wait is from %v, /stuck's send; want /d's, later", since)
	}
	out = o.receive(res("stuck"), out[:0])
	out = o.receive(res("d"), out)
	if got := paths(out); got != "/stuck /d" {
		t.Errorf("then gave %q, want /stuck at once and /d", got)
	}
}
