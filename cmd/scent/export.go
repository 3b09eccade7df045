package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/warc"
)

func newExportCmd() *cobra.Command {
	var db, name, format, out string
	var warcMax int64
	var rf readFlags
	var eo experiment.ExportOptions
	cmd := &cobra.Command{
		Use:   "export --db FILE|postgres://… [--crawl NAME] [--out FILE] [--format jsonl|warc]",
		Short: "Write the pages of a crawl, one JSON object per line in fetch order, or as WARC files",
		Long: `Export writes the pages of a crawl (the latest, or --crawl NAME), one JSON
object per line in fetch order, to standard output or --out FILE; or, with
--format warc, the raw responses a SQLite crawl kept as WARC files into
the folder --out, which must hold none: an export interrupted there
removes the files it wrote.

A topic's collection, as a dataset: the pages found on-topic with their
text, near-duplicates left out:
  scent export --db scent.db --topic course --text --originals -o course.jsonl

From a PostgreSQL database (--db postgres://…) a server lost during the
export (restarted, failed over) is waited for, reconnecting, for up to
--max-outage (30 minutes), as scent crawl does, and said on standard
error; the export then goes on after the last page it wrote, so that
every page is written once. A server away longer ends the command with
exit status 3: --out FILE is then not written at all; standard output
keeps the lines written before, each whole, and the error says how many
pages they are (the output is incomplete).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "warc" {
				for _, f := range []string{"text", "relevant", "topic", "originals"} {
					if cmd.Flags().Changed(f) {
						return fmt.Errorf("--%s chooses what --format jsonl writes; --format warc writes every raw response kept", f)
					}
				}
				if err := checkWARCMax(warcMax); err != nil {
					return err
				}
				if postgres.IsURL(db) {
					return errors.New("--format warc: the PostgreSQL store keeps no raw responses (a crawl keeps them with --warc DIR)")
				}
				return exportWARC(cmd.Context(), db, name, out, warcMax, cmd.ErrOrStderr())
			}
			if format != "jsonl" {
				return fmt.Errorf("unknown --format %q (want jsonl or warc)", format)
			}
			o, err := rf.options(cmd)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				return experiment.ExportJSONL(cmd.Context(), db, name, o, eo, cmd.OutOrStdout())
			}
			return writeFileAtomic(out, func(f *os.File) error { return experiment.ExportJSONL(cmd.Context(), db, name, o, eo, f) })
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "database: a SQLite file, or postgres://USER@HOST:PORT/DB (jsonl only)")
	cmd.Flags().StringVar(&name, "crawl", "", "crawl name (default: the latest crawl)")
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl, or warc (WARC 1.1 files of the raw responses into the directory --out)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default standard output); a directory for warc")
	cmd.Flags().Int64Var(&warcMax, "warc-max-size", warc.DefaultMaxFileSize, "with --format warc: start a new file past this many bytes")
	cmd.Flags().BoolVar(&eo.Text, "text", false, "with --format jsonl: add each page's extracted text (\"text\")")
	cmd.Flags().BoolVar(&eo.Relevant, "relevant", false, "with --format jsonl: only the pages the crawl's page classifier found on-topic, for any topic")
	cmd.Flags().StringVar(&eo.Topic, "topic", "", "with --format jsonl: only the pages found on this topic (implies --relevant)")
	cmd.Flags().BoolVar(&eo.Originals, "originals", false, "with --format jsonl: leave out the near-duplicates of pages stored before them")
	rf.register(cmd.Flags())
	return cmd
}
