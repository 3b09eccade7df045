package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

// TestReadLabels_byteOrderMark: a byte-order mark before the first line
// is no part of its URL.
func TestReadLabels_byteOrderMark(t *testing.T) {
	l, err := ReadLabels(strings.NewReader("\ufeffhttp://a.edu/c1\tcourse\nhttp://a.edu/s\tstudent\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l[urlnorm.MustParse("http://a.edu/c1")] != "course" || len(l) != 2 {
		t.Errorf("labels %v", l)
	}
}

// TestReport_emptyCrawlJSON: a crawl without pages has an empty harvest
// curve in JSON ([]), not null.
func TestReport_emptyCrawlJSON(t *testing.T) {
	r := New("c", "link", []string{"course"}, nil, 100)
	r.Finish()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"harvest_curve":[]`) {
		t.Errorf("JSON of an empty crawl: %s", b)
	}
}
