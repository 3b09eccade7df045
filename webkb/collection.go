package webkb

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// Labels are WebKB's page classes in order of precedence, the order that
// settles a URL stored under several of them (replay.RulePrecedence). A
// page about one thing beats a page about a group: course first, then the
// classes of people from the most to the least specific role (faculty,
// student, then staff, the class of people who are neither), then project
// and department, and "other" last.
var Labels = []string{"course", "faculty", "student", "staff", "project", "department", replay.Other}

// Groups are WebKB's groups (university folders) in order of precedence,
// the order that settles a URL stored with one label in several groups:
// the four whole department sites before misc.
var Groups = []string{"cornell", "texas", "washington", "wisconsin", "misc"}

// Options returns the replay options of the WebKB collection: Labels and
// Groups as the precedence of labels and groups.
func Options() replay.Options {
	return replay.Options{LabelPrecedence: Labels, GroupPrecedence: Groups}
}

// Open loads the WebKB collection at path (a .tgz, .tar.gz or .tar file or
// an unpacked folder) with Options.
func Open(path string) (*replay.Archive, error) {
	return replay.Open(path, Options())
}

// ErrNoSeed means that no group of a collection is a site (SiteSeeds).
var ErrNoSeed = errors.New("no group of the collection is a site with its home page: give the start URLs (--seed)")

// SiteSeeds returns the home pages of a collection's sites, the natural
// seeds of a crawl of it, by group name: a group is a site when the
// origin (scheme, host and port) that holds the most of its labelled
// pages, among the origins whose home page (its root URL, "/") is one
// of them, holds at least half of them; that home page is the group's
// seed. A group of pages spread over many hosts (WebKB's misc) is not a
// site. In WebKB the sites are its four department groups (cornell,
// texas, washington, wisconsin) and their seeds the department home
// pages. It fails with ErrNoSeed when no group is a site.
func SiteSeeds(a *replay.Archive) ([]urlnorm.URL, error) {
	var seeds []urlnorm.URL
	for _, g := range groups(a) {
		if !g.home.IsZero() {
			seeds = append(seeds, g.home)
		}
	}
	if len(seeds) == 0 {
		return nil, ErrNoSeed
	}
	return seeds, nil
}

// Group returns group, or when it is "" the group a model learns from
// by default: the collection's one group that is not a site (SiteSeeds),
// its pages spread over many hosts away from the sites a crawl starts
// from — in WebKB, misc. It fails, naming the collection's groups, when
// the collection has no group named group, or, for "", when not exactly
// one of its groups is not a site.
func Group(a *replay.Archive, group string) (string, error) {
	if group != "" {
		return group, CheckGroup(a, group)
	}
	var names, other []string
	for _, g := range groups(a) {
		names = append(names, g.name)
		if g.home.IsZero() {
			other = append(other, g.name)
		}
	}
	if len(other) == 1 {
		return other[0], nil
	}
	why := "every group is a site"
	if len(other) > 1 {
		why = "several groups are not sites (" + strings.Join(other, ", ") + ")"
	}
	return "", fmt.Errorf("give the group whose pages train the model (--group): the collection's groups are %s, and %s", strings.Join(names, ", "), why)
}

// group is one group of a collection: its name and, when it is a site,
// its home page.
type group struct {
	name string
	home urlnorm.URL
}

// groups returns the collection's groups by name, each with its home
// page when it is a site (SiteSeeds).
func groups(a *replay.Archive) []group {
	type site struct {
		pages map[string]int // labelled pages per origin
		homes map[string]urlnorm.URL
		total int
	}
	sites := make(map[string]*site)
	for _, l := range a.Labels() {
		g := sites[l.Group]
		if g == nil {
			g = &site{pages: make(map[string]int), homes: make(map[string]urlnorm.URL)}
			sites[l.Group] = g
		}
		o := l.URL.Origin()
		g.pages[o]++
		g.total++
		if l.URL.RequestURI() == "/" {
			g.homes[o] = l.URL
		}
	}
	var out []group
	for _, name := range slices.Sorted(maps.Keys(sites)) {
		g := sites[name]
		best := ""
		for _, o := range slices.Sorted(maps.Keys(g.homes)) {
			if best == "" || g.pages[o] > g.pages[best] {
				best = o
			}
		}
		out = append(out, group{name: name})
		if best != "" && 2*g.pages[best] >= g.total {
			out[len(out)-1].home = g.homes[best]
		}
	}
	return out
}
