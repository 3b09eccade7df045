package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/internal/collectiontest"
)

// TestJudgeEval judges the small collection's department pages (course
// and other pages of four sites) with models trained on words: one that
// knows the course words ranks every course page first, one that learnt
// them backwards ranks them last.
func TestJudgeEval(t *testing.T) {
	dir := collectiontest.Write(t)
	train := func(course, other string) *classify.Model {
		t.Helper()
		var ex []classify.Example
		for range 4 {
			ex = append(ex, classify.Example{Class: "course", Tokens: strings.Fields(course)},
				classify.Example{Class: "other", Tokens: strings.Fields(other)})
		}
		m, err := classify.Train(ex, classify.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	good := train("course syllabus homework lecture exam midterm notes assignments", "news weather sports photos cat dog recipes travel")
	rs, err := JudgeEval(dir, good, []string{"course"}, "misc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := JudgeEval(dir, good, []string{"course"}, "pool"); err == nil || !strings.Contains(err.Error(), `no group "pool"`) {
		t.Errorf("a training group the collection lacks: %v; want an error, not every page judged", err)
	}
	r := rs[0]
	// 4 sites × (6 course + 6 other + the department page).
	if r.Pages != 52 || r.Positives != 24 {
		t.Fatalf("judged %d pages, %d course, want 52 and 24", r.Pages, r.Positives)
	}
	if r.AUC != 1 || r.RPrecision != 1 {
		t.Errorf("a model that knows the words: AUC %v, R-precision %v, want 1 and 1", r.AUC, r.RPrecision)
	}
	if len(r.JudgedAs) != 1 || r.JudgedAs["course"] != 24 {
		t.Errorf("a model that knows the words judges the course pages as %v, want course 24", r.JudgedAs)
	}
	at := r.At[2] // 0.5
	if at.Threshold != 0.5 || at.TruePositives != 24 || at.Recall != 1 {
		t.Errorf("at 0.5: %+v, want all 24 course pages", at)
	}
	if at.FalsePos != at.FalseByLabel["other"]+at.FalseByLabel["department"] {
		t.Errorf("false positives %d not all by label: %v", at.FalsePos, at.FalseByLabel)
	}
	bad := train("news weather sports photos cat dog recipes travel", "course syllabus homework lecture exam midterm notes assignments")
	rs, err = JudgeEval(dir, bad, []string{"course"}, "misc")
	if err != nil {
		t.Fatal(err)
	}
	r = rs[0]
	if r.AUC > 0.1 || r.RPrecision > 0.1 || math.IsNaN(r.AUC) {
		t.Errorf("a model that learnt the words backwards: AUC %v, R-precision %v, want near 0", r.AUC, r.RPrecision)
	}
	var md strings.Builder
	if err := WriteJudge(&md, r); err != nil {
		t.Fatal(err)
	}
	if want := "The 24 course pages by the class the model finds most probable: other 24."; r.JudgedAs["other"] != 24 || !strings.Contains(md.String(), want) {
		t.Errorf("a model that learnt the words backwards judges the course pages as %v; want %q in:\n%s", r.JudgedAs, want, md.String())
	}
	if _, err := JudgeEval(dir, good, []string{"course", "faculty"}, "misc"); err == nil || !strings.Contains(err.Error(), "no topic faculty") {
		t.Errorf("a topic the model lacks: error %v", err)
	}
}
