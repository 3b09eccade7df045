package webkb

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// WriteSeeds writes the seed file of an experiment: the crawl's start
// URLs (seeds; nil: SiteSeeds), the pages of group ("": Group's default)
// labelled with the topics as examples and, as negatives, the pages of
// group labelled "other" (negatives "other") or every page of group not
// labelled with a topic (negatives "rest"), or every such page under its
// own label, so that a model learns each kind of negative as a class of
// its own (negatives "labels"); "" means Negatives' default. With
// negatives "other", the group's pages of the other labels follow as
// negative examples of their kind ("other:LABEL"), which a crawl's page
// judge learns each as a class and a model of links leaves out; so do
// all the group's negatives with "rest" when no page of it is labelled
// "other" (a model of links then takes them all as negatives). A label
// that is no valid name in a seed file is left out there. It fails,
// saying why, when the collection has no group named group, or the group
// no page of a topic or no negative example.
func WriteSeeds(w io.Writer, a *replay.Archive, seeds []urlnorm.URL, topics []string, group, negatives string) error {
	if negatives != "" && negatives != "other" && negatives != "rest" && negatives != "labels" {
		return fmt.Errorf("--negatives %q: want other, rest or labels", negatives)
	}
	if len(topics) == 0 {
		return fmt.Errorf("--topic is required")
	}
	want := make(map[string]bool)
	for _, t := range topics {
		t = strings.TrimSpace(t)
		if t == "" || t == replay.Other {
			return fmt.Errorf("invalid topic %q", t)
		}
		want[t] = true
	}
	group, err := Group(a, group)
	if err != nil {
		return err
	}
	negatives = Negatives(a, group, negatives)
	// Pages of the other labels as negatives of their kind: beside the
	// pages labelled other, or as the negatives when there are none and
	// every other label makes a name of a kind.
	kindOf := func(label string) (string, bool) {
		k := strings.ToLower(label)
		return k, classify.ValidName(k) && !slices.ContainsFunc(topics, func(t string) bool { return strings.EqualFold(t, k) })
	}
	kinds := negatives == "other"
	if negatives == "rest" && !hasOther(a, group) {
		kinds = true
		for _, l := range a.Labels() {
			if _, ok := kindOf(l.Label); l.Group == group && !want[l.Label] && !ok {
				kinds = false
			}
		}
	}
	if seeds == nil {
		if seeds, err = SiteSeeds(a); err != nil {
			return err
		}
	}
	// Written to w only once every check passed: a refused seed file
	// leaves nothing half-written (on standard output too).
	var bw bytes.Buffer
	what := `pages of ` + group + ` labelled "other"`
	switch negatives {
	case "rest":
		what = "every other page of " + group
	case "labels":
		what = "every other page of " + group + ", under its own label"
	}
	if kinds {
		what += "; the other pages of " + group + " as negatives of their kind"
		if negatives == "rest" {
			what = "every other page of " + group + ", as a negative of its kind"
		}
	}
	fmt.Fprintf(&bw, "# topics %s: examples from group %s, negatives: %s\n", strings.Join(topics, ","), group, what)
	for _, s := range seeds {
		fmt.Fprintf(&bw, "seed\t%s\n", s)
	}
	counts := make(map[string]int)
	labels := make(map[string]bool) // the group's labels
	for _, l := range a.Labels() {
		if l.Group != group || !isHTMLPage(a, l.URL) {
			continue
		}
		labels[l.Label] = true
		role := l.Label
		switch {
		case want[role], negatives == "labels":
		case kinds && role != replay.Other:
			k, ok := kindOf(role)
			if !ok {
				continue
			}
			role = classify.Other + ":" + k
		case negatives == "other" && role != replay.Other:
			continue
		default:
			role = classify.Other // the seed file's role of a negative
		}
		fmt.Fprintf(&bw, "%s\t%s\n", role, l.URL)
		counts[role]++
	}
	for _, t := range topics {
		if counts[t] == 0 {
			return fmt.Errorf("no page of group %s is labelled %s (its labels: %s)", group, t, strings.Join(slices.Sorted(maps.Keys(labels)), ", "))
		}
	}
	neg := 0
	for role, n := range counts {
		if !want[role] {
			neg += n
		}
	}
	if negatives == "other" && counts[classify.Other] == 0 {
		neg = 0 // the negatives of a model of links
	}
	if neg == 0 {
		if negatives == "other" {
			return fmt.Errorf("no page of group %s is labelled %s, the negative examples (--negatives rest: every page of the group not labelled with a topic)", group, replay.Other)
		}
		return fmt.Errorf("every page of group %s is labelled with a topic: no negative example", group)
	}
	_, err = bw.WriteTo(w)
	return err
}

// hasOther reports whether a page of group is labelled "other".
func hasOther(a *replay.Archive, group string) bool {
	for _, l := range a.Labels() {
		if l.Group == group && l.Label == replay.Other {
			return true
		}
	}
	return false
}

// Negatives returns negatives, or when it is "" the negative examples
// of group by default: "other", its pages labelled "other", when it has
// any, or else "rest", every page of it not labelled with a topic.
func Negatives(a *replay.Archive, group, negatives string) string {
	if negatives != "" {
		return negatives
	}
	if hasOther(a, group) {
		return "other"
	}
	return "rest"
}

// CheckGroup fails, naming the collection's groups, when it has no page
// in group.
func CheckGroup(a *replay.Archive, group string) error {
	var groups []string
	for _, l := range a.Labels() {
		if l.Group == group {
			return nil
		}
		if !slices.Contains(groups, l.Group) {
			groups = append(groups, l.Group)
		}
	}
	slices.Sort(groups)
	return fmt.Errorf("the collection has no group %q (its groups: %s)", group, strings.Join(groups, ", "))
}

func isHTMLPage(a *replay.Archive, u urlnorm.URL) bool {
	p, ok := a.Lookup(u)
	return ok && p.IsHTML()
}

// WriteReachableLabels writes URL<TAB>label for the labelled pages
// reachable from seeds (nil: SiteSeeds), the targets of a crawl from
// them, to w. It fails when there is none.
func WriteReachableLabels(w io.Writer, a *replay.Archive, seeds []urlnorm.URL) error {
	if seeds == nil {
		var err error
		if seeds, err = SiteSeeds(a); err != nil {
			return err
		}
	}
	reach := linkgraph.Reachable(a, seeds)
	bw := bufio.NewWriter(w)
	n := 0
	for _, l := range a.Labels() {
		if reach[l.URL] {
			fmt.Fprintf(bw, "%s\t%s\n", l.URL, l.Label)
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no labelled page of the collection is reachable from the seeds %v: nothing to find", seeds)
	}
	return bw.Flush()
}
