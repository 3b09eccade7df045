package archive

import (
	"crypto/sha1"
	"fmt"
	"testing"

	"github.com/scent-crawler/scent/warc"
)

// TestMemory_remember remembers origins whose digests and URLs share
// their keys, and origins of odd fields, and finds each by its digest
// and by its URL.
func TestMemory_remember(t *testing.T) {
	m := newMemory(maxDigests)
	// Two URLs of the same key.
	var u1, u2 string
	byKey := map[uint32]string{}
	for i := 0; u2 == ""; i++ {
		u := fmt.Sprintf("http://a.test/%d", i)
		if v, ok := byKey[m.urlKey(u)]; ok {
			u1, u2 = v, u
		}
		byKey[m.urlKey(u)] = u
	}
	// Three digests of the same key.
	var sums [3][sha1.Size]byte
	for i := range sums {
		copy(sums[i][:], "same key")
		sums[i][sha1.Size-1] = byte(i)
	}
	origins := []origin{
		{warc.NewID(), u1, "2026-11-23T10:00:00Z", warc.FormatSHA1Digest(sums[0])},
		{warc.NewID(), u2, "2026-11-23T10:00:00.000001Z", warc.FormatSHA1Digest(sums[1])},
		{"<urn:uuid:0123ABCD-0000-4000-8000-000000000000>", "http://a.test/odd-id", "2026-11-23T10:00:00.5Z", warc.FormatSHA1Digest(sums[2])},
		{warc.NewID(), "http://a.test/odd-digest", "2026-11-23T10:00:00.123456Z", "sha256:abc"},
		{warc.NewID(), "http://a.test/odd-date", "300000-01-01T00:00:00Z", warc.Digest([]byte("odd date"))},
		{warc.NewID(), "http://a.test/no-fraction", "2026-11-23T10:00:00.000000Z", warc.Digest([]byte("no fraction"))},
	}
	for _, o := range origins {
		m.remember(o)
	}
	if len(m.digests.more) != 2 || len(m.urls.more) != 1 || len(m.odd) != 4 {
		t.Errorf("%d digests and %d URLs of a key taken, %d odd origins; want 2, 1, 4", len(m.digests.more), len(m.urls.more), len(m.odd))
	}
	for _, o := range origins {
		if got, ok := m.byDigest(o.digest); !ok || got != o {
			t.Errorf("byDigest(%s) = %+v %v, want %+v", o.digest, got, ok, o)
		}
		if got, ok := m.byURL(o.uri); !ok || got != o {
			t.Errorf("byURL(%s) = %+v %v, want %+v", o.uri, got, ok, o)
		}
	}
	other := sums[0]
	other[sha1.Size-1] = 9
	for _, d := range []string{warc.FormatSHA1Digest(other), "sha256:abd", warc.Digest(nil)} {
		if o, ok := m.byDigest(d); ok {
			t.Errorf("byDigest(%s) = %+v, never remembered", d, o)
		}
	}
	for _, u := range []string{"http://a.test/never", u1 + "/"} {
		if o, ok := m.byURL(u); ok {
			t.Errorf("byURL(%s) = %+v, never remembered", u, o)
		}
	}
}
