package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/scent-crawler/scent/report"
)

// ResultBudgets are the budgets (pages fetched) at which the results
// table gives the held-out recall.
var ResultBudgets = []int{250, 500, 1000, 2000}

// ResultRow is one line of the results table: one topic of one committed
// experiment (for a grid, the cell with the best held-out recall).
type ResultRow struct {
	Dir    string // the experiment's folder, relative to the results root
	Topic  string
	Config string // the command's settings beside the collection and the output folder; for a grid, the best cell's name too
	Cells  int    // the grid's cells (0: one experiment)
	// Recall is the held-out recall at each of ResultBudgets (nil: the
	// crawl stopped before, or the report does not give it).
	Recall []*float64
	// PagesTo50 … are the pages to 50 % and 75 % of the held-out targets,
	// the crawl's and breadth-first's (nil: not reached).
	PagesTo50, PagesTo75, BFSTo50, BFSTo75 *int
	Targets                                int
	// HeldOut tells whether the targets are held out (the pages the model
	// learnt from are none); older reports count every labelled page.
	HeldOut bool
	// Pages are the pages the crawl fetched, FinalRecall its recall at
	// the end.
	Pages       int
	FinalRecall float64
	Command     string // the command line that produced the report
	Commit      string // the commit that last changed the report ("" unknown)
}

// ReadResults reads every report.json under root (a grid's cells
// excepted) that an experiment wrote and returns the table's rows, by
// folder and topic. commit, when not nil, names the commit of a report
// file.
func ReadResults(root string, commit func(path string) string) ([]ResultRow, error) {
	var rows []ResultRow
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "cells" {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "report.json" {
			return nil
		}
		rs, err := readResult(root, path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		c := ""
		if commit != nil {
			c = commit(path)
		}
		for i := range rs {
			rs[i].Commit = c
		}
		rows = append(rows, rs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rows, func(a, b ResultRow) int {
		if c := strings.Compare(a.Dir, b.Dir); c != 0 {
			return c
		}
		return strings.Compare(a.Topic, b.Topic)
	})
	return rows, nil
}

// readResult reads one report.json: a single experiment's report or a
// grid's.
func readResult(root, path string) ([]ResultRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	dir = filepath.ToSlash(dir)
	command := readCommand(filepath.Join(filepath.Dir(path), "command"))
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, err
	}
	if _, isGrid := probe["cells"]; isGrid {
		var g report.Grid
		if err := json.Unmarshal(data, &g); err != nil {
			return nil, err
		}
		if command == "" {
			command = g.Command
		}
		return gridRows(dir, command, &g), nil
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, err
	}
	var rows []ResultRow
	for _, t := range rep.Topics {
		if t.Targets == 0 {
			continue // not measured against labels
		}
		rows = append(rows, resultRow(dir, commandConfig(command), command, &rep, t))
	}
	return rows, nil
}

// gridRows are a grid's rows: per topic, its cell with the best held-out
// recall (the first on a tie).
func gridRows(dir, command string, g *report.Grid) []ResultRow {
	best := map[string]*report.GridCell{}
	var topics []string
	for _, c := range g.Cells {
		if c.Report == nil {
			continue
		}
		for _, t := range c.Report.Topics {
			if t.Targets == 0 {
				continue
			}
			b := best[t.Topic]
			if b == nil {
				topics = append(topics, t.Topic)
			}
			if b == nil || t.Recall > b.Report.Topic(t.Topic).Recall {
				best[t.Topic] = c
			}
		}
	}
	var rows []ResultRow
	for _, topic := range topics {
		c := best[topic]
		r := resultRow(dir, strings.TrimSpace(commandConfig(command)+" → best cell "+c.Name), command, c.Report, c.Report.Topic(topic))
		r.Cells = len(g.Cells)
		rows = append(rows, r)
	}
	return rows
}

func resultRow(dir, config, command string, rep *report.Report, t *report.TopicStats) ResultRow {
	r := ResultRow{Dir: dir, Topic: t.Topic, Config: config, Command: command, Targets: t.Targets, HeldOut: rep.HeldOut,
		Pages: rep.Pages, FinalRecall: t.Recall,
		PagesTo50: t.PagesToShare(0.5), PagesTo75: t.PagesToShare(0.75)}
	for _, b := range ResultBudgets {
		r.Recall = append(r.Recall, t.RecallAtBudget(b))
	}
	if t.BFS != nil {
		r.BFSTo50, r.BFSTo75 = pagesToShare(t.BFS.PagesTo, 0.5), pagesToShare(t.BFS.PagesTo, 0.75)
	}
	return r
}

func pagesToShare(marks []report.ShareMark, share float64) *int {
	for _, m := range marks {
		if m.Share == share {
			return m.Pages
		}
	}
	return nil
}

// readCommand returns the first line of a command file, or "".
func readCommand(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line)
}

// commandConfig returns the settings of an experiment's command line:
// its flags without the collection, the output folder and the topic,
// which the table shows apart.
func commandConfig(command string) string {
	fields := strings.Fields(command)
	var out []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case i < 2 && (f == "scent" || f == "experiment"):
			continue
		case f == "--out" || f == "--topic":
			i++
			continue
		case strings.HasPrefix(f, "--out=") || strings.HasPrefix(f, "--topic="):
			continue
		case !strings.HasPrefix(f, "-") && (i == 0 || !strings.HasPrefix(fields[i-1], "--") || strings.Contains(fields[i-1], "=") || isBoolFlag(fields[i-1])):
			continue // the collection
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return "defaults"
	}
	return strings.Join(out, " ")
}

// isBoolFlag reports whether a flag of scent experiment takes no value
// after a space.
func isBoolFlag(flag string) bool {
	switch strings.TrimPrefix(flag, "--") {
	case "tunnel", "promote", "sections", "lockstep", "learn", "skip-examples", "oracle", "hub-oracle", "baseline", "keep", "site-norm", "url-tokens":
		return true
	}
	return false
}

// WriteResultsTable writes rows, read from the folder root, as the
// Markdown page root/README.md: one table, with how it was made.
func WriteResultsTable(w io.Writer, rows []ResultRow, generator, root string) error {
	var b strings.Builder
	b.WriteString("# Results\n\n")
	fmt.Fprintf(&b, "Generated by `%s` from the `report.json` of every experiment under\n", generator)
	fmt.Fprintf(&b, "`%s/`; do not edit by hand. Every row is one topic of one experiment,\n", filepath.ToSlash(filepath.Clean(root)))
	b.WriteString("measured on held-out targets (the labelled pages reachable from the\n")
	b.WriteString("seeds that the model did not learn from). For a grid, the row is its cell\n")
	b.WriteString("with the best held-out recall. \"pages\" and \"recall\" are the pages the\n")
	b.WriteString("crawl fetched and its recall when it stopped, then its recall at each\n")
	b.WriteString("budget of pages fetched; \"pages to 50 %\" is when the crawl had found\n")
	b.WriteString("half of the targets, \"bfs\" breadth-first's figure on the same targets;\n")
	b.WriteString("– means the crawl stopped before. The command is the one in the folder's\n")
	b.WriteString("`command` file; the commit is the last that changed the report.\n\n")
	b.WriteString("| results | topic | configuration | targets | pages | recall |")
	for _, budget := range ResultBudgets {
		fmt.Fprintf(&b, " recall @%d |", budget)
	}
	b.WriteString(" pages to 50 % | bfs | pages to 75 % | bfs | commit |\n|---|---|---|---:|---:|---:|")
	for range ResultBudgets {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		if !r.HeldOut {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %.3f |", dirLink(r), r.Topic, configCell(r), r.Targets, r.Pages, r.FinalRecall)
		for _, v := range r.Recall {
			if v == nil {
				b.WriteString(" – |")
			} else {
				fmt.Fprintf(&b, " %.3f |", *v)
			}
		}
		for _, p := range []*int{r.PagesTo50, r.BFSTo50, r.PagesTo75, r.BFSTo75} {
			if p == nil {
				b.WriteString(" – |")
			} else {
				fmt.Fprintf(&b, " %d |", *p)
			}
		}
		fmt.Fprintf(&b, " %s |\n", r.Commit)
	}
	if !slices.ContainsFunc(rows, func(r ResultRow) bool { return !r.HeldOut }) {
		return writeCommands(w, &b, rows)
	}
	b.WriteString("\n## Earlier reports, over every labelled page\n\n")
	b.WriteString("These ran before held-out scoring: their targets are all the labelled\n")
	b.WriteString("pages reachable from the seeds, the model's own examples included, so\n")
	b.WriteString("their recall is not comparable with the table above.\n\n")
	b.WriteString("| results | topic | configuration | pages | targets | recall | commit |\n|---|---|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		if r.HeldOut {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %.3f | %s |\n", dirLink(r), r.Topic, configCell(r), r.Pages, r.Targets, r.FinalRecall, r.Commit)
	}
	return writeCommands(w, &b, rows)
}

// writeCommands ends the page b with the command of each folder and
// writes it to w.
func writeCommands(w io.Writer, b *strings.Builder, rows []ResultRow) error {
	b.WriteString("\nThe commands, one per folder:\n\n")
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.Dir] || r.Command == "" {
			continue
		}
		seen[r.Dir] = true
		fmt.Fprintf(b, "- `%s`: `%s`\n", r.Dir, r.Command)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dirLink(r ResultRow) string { return fmt.Sprintf("[%s](%s/)", r.Dir, r.Dir) }

func configCell(r ResultRow) string {
	cfg := r.Config
	if r.Cells > 0 {
		cfg = fmt.Sprintf("%s (grid of %d)", cfg, r.Cells)
	}
	return "`" + strings.ReplaceAll(cfg, "|", `\|`) + "`"
}
