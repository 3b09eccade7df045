package webkb

import (
	"errors"
	"fmt"

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

// DepartmentGroups are the groups whose whole department sites are in the
// collection, in the order DepartmentSeeds returns their home pages.
var DepartmentGroups = []string{"cornell", "texas", "washington", "wisconsin"}

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

// ErrNoSeed means a department home page is missing from the archive.
var ErrNoSeed = errors.New("department home page not found")

// DepartmentSeeds returns the department home pages of DepartmentGroups,
// in that order: for each group, the page labelled department with the
// shortest URL (the lexically smaller on a tie). It fails with ErrNoSeed
// when a group has none.
func DepartmentSeeds(a *replay.Archive) ([]urlnorm.URL, error) {
	seeds := make([]urlnorm.URL, 0, len(DepartmentGroups))
	for _, g := range DepartmentGroups {
		var best urlnorm.URL
		for _, l := range a.Labels() {
			if l.Label != "department" || l.Group != g {
				continue
			}
			s, b := l.URL.String(), best.String()
			if best.IsZero() || len(s) < len(b) || len(s) == len(b) && s < b {
				best = l.URL
			}
		}
		if best.IsZero() {
			return nil, fmt.Errorf("department seeds: %s: %w", g, ErrNoSeed)
		}
		seeds = append(seeds, best)
	}
	return seeds, nil
}
