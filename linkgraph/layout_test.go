package linkgraph_test

import (
	"slices"
	"testing"

	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

func TestTopicLayout(t *testing.T) {
	a := openSite(t)
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	l := linkgraph.TopicLayout(a, seeds, "course")
	// The nine pages BFS reaches; /courses/ is linked from the department
	// page, /courses/cs1/ from /courses/ and from Bob's student page.
	if l.Topic != "course" || l.Pages != 9 || l.TopicPages != 2 {
		t.Fatalf("layout: topic %q, %d pages, %d topic pages; want course, 9, 2", l.Topic, l.Pages, l.TopicPages)
	}
	if !slices.Equal(l.Depth, []int{0, 1, 1}) {
		t.Errorf("depth = %v, want [0 1 1]", l.Depth)
	}
	if l.Hubs != 2 || !slices.Equal(l.HubsTop, []int{1, 2}) {
		t.Errorf("hubs %d, top %v; want 2, [1 2]", l.Hubs, l.HubsTop)
	}
	// One hub links half the course pages, both link all.
	if want := []linkgraph.CoverPoint{{0.5, 1}, {0.75, 2}, {0.9, 2}}; !slices.Equal(l.Cover, want) {
		t.Errorf("cover = %v, want %v", l.Cover, want)
	}
	// Knowing everything: the seeds, then /courses/ (half) and cs1.
	if want := []linkgraph.PlanPoint{{0.5, 5}, {0.75, 6}, {0.9, 6}}; !slices.Equal(l.Plan, want) {
		t.Errorf("plan = %v, want %v", l.Plan, want)
	}
	want := []linkgraph.LabelLayout{
		{Label: "department", Pages: 4, Hubs: 1, TopicLinked: 1, Only: 1},
		{Label: "course", Pages: 2, Hubs: 1, TopicLinked: 1},
		{Label: "faculty", Pages: 1},
		{Label: "other", Pages: 1},
		{Label: "student", Pages: 1, Hubs: 1, TopicLinked: 1},
	}
	if !slices.Equal(l.Labels, want) {
		t.Errorf("labels:\n got %+v\nwant %+v", l.Labels, want)
	}
	if e := linkgraph.TopicLayout(a, seeds, "nothing"); e.Pages != 9 || e.TopicPages != 0 || e.Hubs != 0 || len(e.Depth) != 0 {
		t.Errorf("layout of an absent topic: %+v", e)
	}
}

// TestTopicLayout_corpus checks the layout of course pages on the
// real collection against BFS and the labels.
func TestTopicLayout_corpus(t *testing.T) {
	a := openCorpus(t)
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	l := linkgraph.TopicLayout(a, seeds, "course")
	if n := len(linkgraph.BFS(a, seeds, nil)); l.Pages != n {
		t.Errorf("layout counts %d reachable pages, BFS %d", l.Pages, n)
	}
	sum, pages, linked := 0, 0, 0
	for _, d := range l.Depth {
		sum += d
	}
	for _, ll := range l.Labels {
		pages += ll.Pages
		if ll.Hubs > ll.Pages || ll.Only > ll.TopicLinked || ll.TopicLinked > l.TopicPages {
			t.Errorf("label %+v is inconsistent", ll)
		}
		linked += ll.Hubs
	}
	if sum != l.TopicPages || pages != l.Pages || l.TopicPages < 200 {
		t.Errorf("depths sum to %d and labels to %d pages; want %d topic pages (≥ 200) of %d", sum, pages, l.TopicPages, l.Pages)
	}
	if len(l.HubsTop) != 10 || !slices.IsSorted(l.HubsTop) || l.HubsTop[9] > l.TopicPages {
		t.Errorf("topic pages of the biggest hubs: %v", l.HubsTop)
	}
	for i, c := range l.Cover {
		if c.Hubs < 1 || c.Hubs > l.Hubs || i > 0 && c.Hubs < l.Cover[i-1].Hubs {
			t.Errorf("cover %v is inconsistent", l.Cover)
		}
	}
	for i, p := range l.Plan {
		// At least the seeds and the topic pages themselves; at most
		// every reachable page.
		if p.Fetches < len(seeds)+int(p.Share*float64(l.TopicPages)) || p.Fetches > l.Pages || i > 0 && p.Fetches < l.Plan[i-1].Fetches {
			t.Errorf("plan %v is inconsistent", l.Plan)
		}
	}
	t.Logf("%d pages, %d course pages by depth %v; %d hubs, the 10 biggest link %v; cover %v; plan %v", l.Pages, l.TopicPages, l.Depth, l.Hubs, l.HubsTop, l.Cover, l.Plan)
	for _, ll := range l.Labels {
		t.Logf("%+v", ll)
	}
}

// TestTargetPlan plans for a set of pages instead of a label: the
// same plan as the label's when given its pages, a later one when the
// nearer course page is not a target, and no share of targets that are
// not stored.
func TestTargetPlan(t *testing.T) {
	a := openSite(t)
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	var course []urlnorm.URL
	for _, l := range a.Labels() {
		if l.Label == "course" {
			course = append(course, l.URL)
		}
	}
	if len(course) != 2 {
		t.Fatalf("%d course pages, want 2", len(course))
	}
	shares := []float64{0.5, 0.75, 0.9}
	if got, want := linkgraph.TargetPlan(a, seeds, course, shares), linkgraph.TopicLayout(a, seeds, "course").Plan; !slices.Equal(got, want) {
		t.Errorf("plan of the course pages = %v, the label's %v", got, want)
	}
	for _, u := range course {
		got := linkgraph.TargetPlan(a, seeds, []urlnorm.URL{u}, []float64{0.5})
		if got[0].Fetches < len(seeds)+1 {
			t.Errorf("plan of %s = %v: fewer fetches than the seeds and the page", u, got)
		}
	}
	half := linkgraph.TargetPlan(a, seeds, []urlnorm.URL{course[0], urlnorm.MustParse("http://nowhere.test/")}, []float64{0.5, 1})
	if half[0].Fetches == 0 || half[1].Fetches != 0 {
		t.Errorf("plan with a target not stored = %v, want half reached and all not", half)
	}
}
