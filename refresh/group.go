package refresh

import (
	"fmt"
	"math"
	"time"
)

// Group is a revisit group of the paper: Gi collects a page i times a week
// (G1 … G14), 2G1 once in two weeks and 4G1 once in four weeks.
type Group uint8

// The groups slower than weekly; G1 … G14 are Group(i + 1) (see G).
const (
	Group4G1 Group = 0 // once per four weeks
	Group2G1 Group = 1 // once per two weeks
)

// NumGroups is the number of groups: 4G1, 2G1 and G1 … G14.
const NumGroups = 16

// G returns the group Gi that collects i times a week, i in 1..14; i is
// clamped to that range.
func G(i int) Group {
	i = min(max(i, 1), 14)
	return Group(i + 1)
}

// PerWeek is how many times a week the group collects a page.
func (g Group) PerWeek() float64 {
	switch {
	case g == Group4G1:
		return 0.25
	case g == Group2G1:
		return 0.5
	case g < NumGroups:
		return float64(g - 1)
	}
	return 14
}

// Interval is the time between two collections of a page of the group.
func (g Group) Interval() time.Duration {
	return time.Duration(float64(Week) / g.PerWeek())
}

// String is the group's name in the paper: "G3", "2G1", "4G1".
func (g Group) String() string {
	switch {
	case g == Group4G1:
		return "4G1"
	case g == Group2G1:
		return "2G1"
	case g < NumGroups:
		return fmt.Sprintf("G%d", g-1)
	}
	return fmt.Sprintf("Group(%d)", uint8(g))
}

// ParseGroup reads a group's name as String writes it.
func ParseGroup(s string) (Group, error) {
	for g := range Group(NumGroups) {
		if g.String() == s {
			return g, nil
		}
	}
	return 0, fmt.Errorf("unknown revisit group %q", s)
}

// Groups is a way of cutting weekly rates into groups.
type Groups int

const (
	// Groups16 are the paper's groups: the weekly rate rounded to the
	// nearest integer i gives Gi (14 and more: G14); from 0.25 to 0.5
	// 2G1, below 0.25 4G1.
	Groups16 Groups = iota
	// Groups6 is the paper's simplified variant: 4G1, 2G1, G1, G3 (for
	// G2–G4), G7 (G5–G10) and G14 (G11 and more).
	Groups6
)

// String names the grouping: "groups" or "groups6".
func (m Groups) String() string {
	if m == Groups6 {
		return "groups6"
	}
	return "groups"
}

// GroupOf returns the group of a page whose weekly change rate is rate.
// A negative or NaN rate counts as 0.
func GroupOf(rate float64, m Groups) Group {
	if !(rate >= 0) {
		rate = 0
	}
	switch {
	case rate < 0.25:
		return Group4G1
	case rate < 0.5:
		return Group2G1
	}
	i := int(math.Floor(rate + 0.5))
	g := G(i)
	if m != Groups6 {
		return g
	}
	switch {
	case i <= 1:
		return G(1)
	case i <= 4:
		return G(3)
	case i <= 10:
		return G(7)
	}
	return G(14)
}

// Load is the paper's load figure: the fetches per day a set of pages in
// the given groups needs (counts[g] pages in group g), and that number
// over the pages (the share of a daily recollection of everything: the
// paper's 644 / 1,200 = 53.8 %).
func Load(counts [NumGroups]int) (perDay, share float64) {
	pages := 0
	for g, n := range counts {
		perDay += float64(n) * Group(g).PerWeek() / 7
		pages += n
	}
	if pages == 0 {
		return 0, 0
	}
	return perDay, perDay / float64(pages)
}

// Hours is a histogram of observed changes by weekday and hour of day
// (UTC), Sunday first as in time.Weekday. Its counts stop at 65,535; it
// takes 336 bytes, so a scheduler can keep one for each of a million
// pages.
type Hours [7][24]uint16

// Add counts a change observed at t.
func (h *Hours) Add(t time.Time) {
	t = t.UTC()
	if c := &h[t.Weekday()][t.Hour()]; *c < math.MaxUint16 {
		*c++
	}
}

// ByHour sums the histogram over the weekdays.
func (h *Hours) ByHour() [24]int {
	var out [24]int
	for d := range h {
		for hr, n := range h[d] {
			out[hr] += int(n)
		}
	}
	return out
}

// PaperHour is the paper's time-of-day rule: a page whose changes are
// mostly between 09:00 and 18:00 is collected at 00:00, any other at
// 12:00 (and one with no observed change at 00:00).
func PaperHour(h *Hours) int {
	day, night := 0, 0
	for hr, n := range h.ByHour() {
		if hr >= 9 && hr < 18 {
			day += n
		} else {
			night += n
		}
	}
	if night > day {
		return 12
	}
	return 0
}

// BestHour places the daily collection just after the changes: the hour
// h that minimizes the mean time from a change to the next collection at
// h o'clock. With no observed change it returns def.
func BestHour(h *Hours, def int) int {
	by := h.ByHour()
	total := 0
	for _, n := range by {
		total += n
	}
	if total == 0 {
		return def
	}
	best, bestWait := def, math.MaxInt
	for c := range 24 {
		wait := 0
		for hr, n := range by {
			// A change during hour hr is seen at the next c o'clock
			// after the end of that hour.
			wait += n * ((c - hr - 1 + 48) % 24)
		}
		if wait < bestWait {
			best, bestWait = c, wait
		}
	}
	return best
}

// AtHour returns the time at hour of day hour (UTC) nearest to t; a
// negative hour returns t.
func AtHour(t time.Time, hour int) time.Time {
	if hour < 0 {
		return t
	}
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), hour, 0, 0, 0, time.UTC)
	best := day
	for _, d := range []time.Time{day.AddDate(0, 0, -1), day.AddDate(0, 0, 1)} {
		if d.Sub(t).Abs() < best.Sub(t).Abs() {
			best = d
		}
	}
	return best
}
