package crawler

import (
	"strings"
	"testing"
	"unicode/utf8"
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
