package webkb

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// Renamed is a label whose pages a seed file gives under another name,
// a class name (classify.ValidName, and not the role "seed"): the label
// lower-cased when that is one; else the label lower-cased with each run
// of the characters a class name does not allow made one '-'
// (classify.NameOf). A topic's label (--topic Course, or course, for the
// label Course) is named so; another label takes a suffix "-2", "-3" …
// when its name is a topic's or another label's.
type Renamed struct {
	Label string // the collection's label
	Kind  string // the seed file's name of it: a topic, other:KIND, or a class of its own
}

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
// that makes no class name of its own is written under one (Renamed),
// the topics' first, the same in every seed file of the group and
// topics: WriteSeeds returns those labels with their names, which the
// file's header says too. It fails, saying why, when the collection has no group named
// group, or the group no page of a topic or no negative example.
func WriteSeeds(w io.Writer, a *replay.Archive, seeds []urlnorm.URL, topics []string, group, negatives string) ([]Renamed, error) {
	if negatives != "" && negatives != "other" && negatives != "rest" && negatives != "labels" {
		return nil, fmt.Errorf("--negatives %q: want other, rest or labels", negatives)
	}
	if len(topics) == 0 {
		return nil, fmt.Errorf("--topic is required")
	}
	// A topic is named as its label's pages are in the seed file
	// (classify.NameOf): --topic Course finds the pages labelled Course,
	// or course, and names the topic course.
	want := make(map[string]bool)
	names := make([]string, len(topics))
	for i, t := range topics {
		t = strings.TrimSpace(t)
		if t == "" || classify.NameOf(t) == classify.Other {
			return nil, fmt.Errorf("invalid topic %q", t)
		}
		names[i] = classify.NameOf(t)
		if want[names[i]] {
			return nil, fmt.Errorf("topic %q given twice (a seed file names it %s)", t, names[i])
		}
		want[names[i]] = true
	}
	given, topics := topics, names
	group, err := Group(a, group)
	if err != nil {
		return nil, err
	}
	negatives = Negatives(a, group, negatives)
	// Pages of the other labels as negatives of their kind: beside the
	// pages labelled other, or as the negatives when there are none.
	kinds := negatives == "other" || negatives == "rest" && !hasOther(a, group)
	if seeds == nil {
		if seeds, err = SiteSeeds(a); err != nil {
			return nil, err
		}
	}
	labels := make(map[string]bool) // the labels of the group's pages
	for _, l := range a.Labels() {
		if l.Group == group && isHTMLPage(a, l.URL) {
			labels[l.Label] = true
		}
	}
	var others []string // the labels that are neither a topic nor other
	for l := range labels {
		if !want[classify.NameOf(l)] && l != replay.Other {
			others = append(others, l)
		}
	}
	var kindOf map[string]string
	var renamed []Renamed
	for _, l := range slices.Sorted(maps.Keys(labels)) {
		if name := classify.NameOf(l); want[name] && name != l {
			renamed = append(renamed, Renamed{Label: l, Kind: name})
		}
	}
	if kinds || negatives == "labels" {
		var kindRenamed []Renamed
		kindOf, kindRenamed = kindNames(others, topics)
		renamed = append(renamed, kindRenamed...)
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
	for _, r := range renamed {
		fmt.Fprintf(&bw, "# label %s named %s in this file\n", strconv.Quote(r.Label), r.Kind)
	}
	for _, s := range seeds {
		fmt.Fprintf(&bw, "seed\t%s\n", s)
	}
	counts := make(map[string]int)
	for _, l := range a.Labels() {
		if l.Group != group || !isHTMLPage(a, l.URL) {
			continue
		}
		role := l.Label
		switch {
		case want[classify.NameOf(role)]:
			role = classify.NameOf(role)
		case negatives == "labels" && role != replay.Other:
			role = kindOf[role]
		case negatives == "labels":
		case kinds && role != replay.Other:
			role = classify.Other + ":" + kindOf[role]
		case negatives == "other" && role != replay.Other:
			continue
		default:
			role = classify.Other // the seed file's role of a negative
		}
		fmt.Fprintf(&bw, "%s\t%s\n", role, l.URL)
		counts[role]++
	}
	for i, t := range topics {
		if counts[t] == 0 {
			return nil, noTopicPages(group, given[i], t, labels)
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
			return nil, fmt.Errorf("no page of group %s is labelled %s, the negative examples (--negatives rest: every page of the group not labelled with a topic)", group, replay.Other)
		}
		return nil, fmt.Errorf("every page of group %s is labelled with a topic: no negative example", group)
	}
	if _, err := bw.WriteTo(w); err != nil {
		return nil, err
	}
	return renamed, nil
}

// reservedRole is the seed file's role of a start URL, which no topic
// or kind of page is named (classify.NameOf names a label so seed-2).
const reservedRole = "seed"

// noTopicPages is the error of a topic, given as given and named name,
// of which no page of group is labelled, naming the group's labels and,
// for a topic given as the seed file's reserved role, saying that it is
// reserved.
func noTopicPages(group, given, name string, labels map[string]bool) error {
	its := strings.Join(slices.Sorted(maps.Keys(labels)), ", ")
	if strings.EqualFold(strings.TrimSpace(given), reservedRole) {
		return fmt.Errorf("--topic %s: %q is reserved by the seed file format (the role of a start URL), so pages labelled %s are the topic %s; no page of group %s is labelled %s (its labels: %s)",
			given, reservedRole, given, name, group, given, its)
	}
	return fmt.Errorf("no page of group %s is labelled %s (its labels: %s)", group, name, its)
}

// kindNames returns the name of each of labels (neither a topic nor
// "other") as a class of a seed file, a kind of negative example
// (other:KIND) or a class of its own, with the labels whose name is not
// the label itself. A label's name is the label lower-cased when that is
// a class name (classify.ValidName, and not the seed file's role "seed");
// else the label lower-cased with each run of characters that a class
// name does not allow made one '-', trimmed of '-', '_' and '.' at either
// end and cut to 64 bytes, or "kind" when nothing is left. A name that is
// still no class name, or is a topic's (in any case) or an earlier
// label's, takes the first free suffix "-2", "-3" …. The labels that
// name themselves come first, then the others in sorted order: the names
// depend on the set of labels and topics alone, and no two labels share
// one.
func kindNames(labels, topics []string) (map[string]string, []Renamed) {
	taken := make(map[string]bool)
	free := func(name string) bool {
		return classify.ValidName(name) && name != "seed" && !taken[name] &&
			!slices.ContainsFunc(topics, func(t string) bool { return strings.EqualFold(t, name) })
	}
	order := slices.Clone(labels)
	slices.SortFunc(order, func(a, b string) int {
		if fa, fb := free(a), free(b); fa != fb {
			if fa {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	names := make(map[string]string, len(labels))
	var renamed []Renamed
	for _, l := range order {
		base := classify.NameOf(l)
		name := base
		for n := 2; !free(name); n++ {
			suffix := "-" + strconv.Itoa(n)
			b := base
			if len(b)+len(suffix) > 64 {
				b = strings.TrimRight(b[:64-len(suffix)], "-_.")
			}
			name = b + suffix
		}
		taken[name] = true
		names[l] = name
		if name != l {
			renamed = append(renamed, Renamed{Label: l, Kind: name})
		}
	}
	return names, renamed
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
