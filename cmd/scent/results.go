package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
)

// newResultsCmd builds "scent results": the table of every committed
// experiment, generated from their report.json files.
func newResultsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "results [DIR]",
		Short: "Write DIR/README.md (default results/README.md): one table of every experiment's held-out figures, from its report.json",
		Long: `results reads every report.json that scent experiment wrote under DIR
(default results; a grid's cells are skipped: the grid's row is its best
cell) and writes one Markdown table: per experiment and topic, the
configuration, the pages fetched and the held-out recall when the crawl
stopped, held-out recall at 250, 500, 1,000 and 2,000 pages, the
pages to 50 % and 75 % of the held-out targets beside breadth-first's, the
command (from the folder's command file) and the commit that last changed
the report (git log; blank outside a git checkout).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "results"
			if len(args) == 1 {
				dir = args[0]
			}
			rows, err := experiment.ReadResults(dir, gitCommit)
			if err != nil {
				return err
			}
			if len(rows) == 0 {
				return fmt.Errorf("no report.json of scent experiment under %s: nothing to tabulate", dir)
			}
			if out == "" {
				out = filepath.Join(dir, "README.md")
			}
			write := func(f *os.File) error { return experiment.WriteResultsTable(f, rows, "scent results", dir) }
			if out == "-" {
				return write(os.Stdout)
			}
			return writeFileAtomic(out, write)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", `output file (default DIR/README.md; "-" for standard output)`)
	setFlagGroup(cmd.Flags(), "output", "out")
	return cmd
}

// gitCommit returns the short hash of the last commit that changed path,
// or "" when git does not know it.
func gitCommit(path string) string {
	out, err := exec.Command("git", "log", "-1", "--format=%h", "--", path).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
