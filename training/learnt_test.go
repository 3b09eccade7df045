package training

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

type recordedSource []Backlink

func (s recordedSource) Backlinks(context.Context, []urlnorm.URL, int) ([]Backlink, error) {
	return s, nil
}

func TestLearntFrom(t *testing.T) {
	seeds, err := ParseSeeds(strings.NewReader(`seed http://d.test/
course http://a.test/c1
course pages/c2.html
other http://a.test/o
faculty http://a.test/c1
`), "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	rec := NewBacklinkRecorder(recordedSource{
		{Parent: urlnorm.MustParse("http://b.test/list"), Target: urlnorm.MustParse("http://a.test/c1")},
		{Parent: urlnorm.MustParse("http://a.test/o"), Target: urlnorm.MustParse("http://a.test/o")},
	})
	if _, err := rec.Backlinks(context.Background(), nil, 10); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(LearntFrom(seeds, rec.Links()))
	// The crawl seed and the local file are no pages of the web learnt
	// from; a page's link to itself adds nothing.
	if want := "[http://a.test/c1 http://a.test/o http://b.test/list]"; got != want {
		t.Errorf("learnt from %s, want %s", got, want)
	}
}
