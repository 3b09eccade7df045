package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/training"
)

// TestSpec_Validate_negatives: the negatives of the two models are checked
// before anything is trained.
func TestSpec_Validate_negatives(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "webkb.tgz")
	if err := os.WriteFile(archive, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(negatives, page, docs string) *Spec {
		return &Spec{Archive: archive, Out: filepath.Join(dir, "out"), Workers: 1, Model: training.DefaultSettings(),
			Negatives: negatives, PageNegatives: page, PageDocuments: docs}
	}
	for _, ok := range []*Spec{spec("other", "labels", "pages"), spec("rest", "", ""), spec("", "other", "windows")} {
		if err := ok.Validate(); err != nil {
			t.Errorf("negatives %q, page negatives %q, documents %q: %v", ok.Negatives, ok.PageNegatives, ok.PageDocuments, err)
		}
	}
	for _, tc := range []struct {
		s    *Spec
		want string
	}{
		{spec("labels", "labels", "pages"), "--negatives"},
		{spec("other", "some", "pages"), "--page-negatives"},
		{spec("other", "labels", "books"), "--page-documents"},
	} {
		if err := tc.s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("negatives %q, page negatives %q, documents %q: error %v, want one naming %s", tc.s.Negatives, tc.s.PageNegatives, tc.s.PageDocuments, err, tc.want)
		}
	}
}
