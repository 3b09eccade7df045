package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

func newLayoutCmd() *cobra.Command {
	var topic string
	var seedFlags []string
	var asJSON bool
	var db, crawl string
	cmd := &cobra.Command{
		Use:   "layout ARCHIVE --topic T [--seed URL …] [--db FILE [--crawl NAME]] [--json]",
		Short: "Show where a topic's pages sit in a labelled collection and which pages lead to them",
		Long: `layout follows the links of ARCHIVE from the seeds (default: the home pages
of the collection's sites; in WebKB the four department home pages) and
describes the topic's reachable pages: how many links from the nearest seed
they are, which pages link to them (hubs) by label, how many topic pages the
biggest hubs link to, and how many hubs link to half, three quarters and
nine tenths of them. A crawler fetches the hubs
it needs besides the topic pages, so this bounds what a focused crawl with a
given budget can find, whatever its classifier.

With --db, it also describes the topic's pages one stored crawl of ARCHIVE
from those seeds missed: how deep they are, how many a fetched page links
to (the crawl had their URL and left it), and, for the others, the pages
it did not fetch that link to the most of them.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(topic) == "" {
				return fmt.Errorf("--topic is required")
			}
			if crawl != "" && db == "" {
				return fmt.Errorf("--crawl %s names a crawl of --db, which is not given", crawl)
			}
			a, err := webkb.Open(args[0])
			if err != nil {
				return err
			}
			if err := checkLabel(a, topic); err != nil {
				return err
			}
			seeds, err := experiment.ParseSeeds(seedFlags)
			if err != nil {
				return err
			}
			if seeds == nil {
				if seeds, err = webkb.SiteSeeds(a); err != nil {
					return err
				}
			}
			l := linkgraph.TopicLayout(a, seeds, topic)
			var m *linkgraph.Missed
			if db != "" {
				fetched, err := fetchedURLs(cmd.Context(), db, crawl)
				if err != nil {
					return err
				}
				m = linkgraph.MissedBy(a, seeds, topic, fetched)
			}
			if asJSON {
				return jsonIndent(cmd.OutOrStdout()).Encode(struct {
					*linkgraph.Layout
					Missed *linkgraph.Missed `json:"missed,omitempty"`
				}{l, m})
			}
			if err := writeLayout(cmd.OutOrStdout(), l, len(seeds)); err != nil {
				return err
			}
			if m == nil {
				return nil
			}
			return writeMissed(cmd.OutOrStdout(), m)
		},
	}
	cmd.Flags().StringVar(&topic, "topic", "", "label of the topic's pages")
	cmd.Flags().StringArrayVar(&seedFlags, "seed", nil, seedUsage)
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON")
	cmd.Flags().StringVar(&db, "db", "", "SQLite database of a crawl of ARCHIVE: describe the topic pages it missed")
	cmd.Flags().StringVar(&crawl, "crawl", "", "crawl name in --db (default: the latest crawl)")
	return cmd
}

// fetchedURLs returns the final URLs of the pages a stored crawl fetched
// and kept: status 200 and no failure (a body of a type the crawl does
// not accept is a failed fetch, as in its report).
func fetchedURLs(ctx context.Context, db, name string) ([]urlnorm.URL, error) {
	store, c, err := experiment.OpenCrawl(ctx, db, name)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var out []urlnorm.URL
	err = store.EachPage(ctx, c.ID, func(p *crawler.Page) error {
		if p.Status == 200 && p.Failure == "" {
			out = append(out, p.FinalURL)
		}
		return nil
	})
	return out, err
}

func writeMissed(w io.Writer, m *linkgraph.Missed) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\nthe crawl fetched %d distinct pages of these, %d of the %d %s pages; it missed %d\n",
		m.Fetched, m.Found, m.Found+m.Missed, m.Topic, m.Missed)
	var groups []string
	for _, g := range m.Groups {
		name := g.Group
		if name == "" {
			name = "(no group)"
		}
		groups = append(groups, fmt.Sprintf("%s %d of %d", name, g.Found, g.Pages))
	}
	fmt.Fprintf(bw, "found by group: %s\n", strings.Join(groups, ", "))
	if m.Missed == 0 {
		return bw.Flush()
	}
	fmt.Fprintf(bw, "missed by links from the nearest seed: %s\n", joinDepths(m.Depth))
	hidden := m.Missed - m.Linked
	fmt.Fprintf(bw, "%d linked from pages the crawl fetched (their links waited in its frontier or on its reserve), %d only from pages it did not fetch\n", m.Linked, hidden)
	if len(m.Behind) == 0 {
		return bw.Flush()
	}
	fmt.Fprintf(bw, "unfetched pages linking to the most of those %d:\n", hidden)
	fmt.Fprintf(bw, "%-14s %6s %8s %7s %9s  %s\n", "label", "depth", "parents", "hidden", "together", "url")
	for i, b := range m.Behind {
		fmt.Fprintf(bw, "%-14s %6d %8d %7d %9d  %s\n", b.Label, b.Depth, b.Parents, b.Hidden, m.BehindTop[i], b.URL)
	}
	fmt.Fprintf(bw, "(depth: links from the nearest seed; parents: fetched pages linking to it; hidden: %s pages it links to that no fetched page links to; together: those of the pages down to this one)\n", m.Topic)
	return bw.Flush()
}

// checkLabel fails when no page of a is labelled topic, naming the
// labels there are.
func checkLabel(a *replay.Archive, topic string) error {
	seen := make(map[string]bool)
	var labels []string
	for _, l := range a.Labels() {
		if classify.NameOf(l.Label) == classify.NameOf(topic) {
			return nil
		}
		if !seen[l.Label] {
			seen[l.Label] = true
			labels = append(labels, l.Label)
		}
	}
	slices.Sort(labels)
	return fmt.Errorf("--topic %q: no page of the collection has that label (its labels: %s)", topic, strings.Join(labels, ", "))
}

// writeLayout writes a layout as text.
func writeLayout(w io.Writer, l *linkgraph.Layout, seeds int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d pages reachable from %d seeds, %d labelled %s\n", l.Pages, seeds, l.TopicPages, l.Topic)
	if l.TopicPages == 0 {
		return bw.Flush()
	}
	fmt.Fprintf(bw, "%s pages by links from the nearest seed: %s\n\n", l.Topic, joinDepths(l.Depth))
	fmt.Fprintf(bw, "%-14s %6s %6s %7s %9s %9s\n", "linking pages", "pages", "hubs", "share", "linked", "only")
	for _, ll := range l.Labels {
		fmt.Fprintf(bw, "%-14s %6d %6d %6.1f%% %9d %9d\n", ll.Label, ll.Pages, ll.Hubs, 100*float64(ll.Hubs)/float64(ll.Pages), ll.TopicLinked, ll.Only)
	}
	fmt.Fprintf(bw, "(hubs: pages linking to a %[1]s page; linked: %[1]s pages they link to; only: of those, linked from no page of another label)\n\n", l.Topic)
	others := l.Pages - l.TopicPages
	fmt.Fprintf(bw, "%d hubs are not %s pages (%.1f%% of the %d others)", l.Hubs, l.Topic, 100*float64(l.Hubs)/float64(max(others, 1)), others)
	if n := len(l.HubsTop); n > 0 {
		fmt.Fprintf(bw, "; the %d biggest link to %d %s pages (%s)", n, l.HubsTop[n-1], l.Topic, joinInts(l.HubsTop))
	}
	fmt.Fprintln(bw)
	for _, c := range l.Cover {
		if c.Hubs == 0 {
			fmt.Fprintf(bw, "%.0f%% of the %s pages: not linked from hubs alone\n", 100*c.Share, l.Topic)
		} else {
			fmt.Fprintf(bw, "%.0f%% of the %s pages: linked from %d hubs together (chosen greedily)\n", 100*c.Share, l.Topic, c.Hubs)
		}
	}
	fmt.Fprintf(bw, "\na crawler that knew every page's label and links (greedy plan, seeds included) needs:")
	for i, p := range l.Plan {
		sep := ","
		if i == 0 {
			sep = ""
		}
		if p.Fetches == 0 {
			fmt.Fprintf(bw, "%s %.0f%%: not reachable", sep, 100*p.Share)
		} else {
			fmt.Fprintf(bw, "%s %.0f%% in %d fetches", sep, 100*p.Share, p.Fetches)
		}
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// joinDepths writes counts by depth as "d: n, …", leaving out the zeros.
func joinDepths(byDepth []int) string {
	var parts []string
	for d, n := range byDepth {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d: %d", d, n))
		}
	}
	return strings.Join(parts, ", ")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, " ")
}
