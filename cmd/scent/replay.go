package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/webkb"
)

func newReplayCmd() *cobra.Command {
	var listen, pidFile, requestLog string
	var delay time.Duration
	cmd := &cobra.Command{
		Use:   "replay ARCHIVE [--listen 127.0.0.1:8080]",
		Short: "Serve an offline collection (label/group/url-with-^ layout, .tgz or folder) as a live web",
		Long: `replay serves every stored page of ARCHIVE at its original URL, as an HTTP
forward proxy (use it with --proxy http://ADDR) that also routes by the Host
header. Unknown URLs answer 404; directories behave like a web server's.
It runs until interrupted (Ctrl-C or SIGTERM); --pid-file writes its process
id, so that a replay started in the background, even through "go run", can
be stopped with kill $(cat FILE).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := webkb.Open(args[0])
			if err != nil {
				return err
			}
			opts := replay.ServeOptions{Delay: delay}
			if requestLog != "" {
				f, err := os.OpenFile(requestLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					return fmt.Errorf("--request-log: %w", err)
				}
				defer f.Close()
				opts.Log = f
			}
			srv, err := replay.ServeWith(cmd.Context(), a, listen, opts)
			if err != nil {
				return err
			}
			if pidFile != "" {
				if err := writeFileAtomic(pidFile, func(f *os.File) error {
					_, err := fmt.Fprintln(f, os.Getpid())
					return err
				}); err != nil {
					return fmt.Errorf("--pid-file: %w", err)
				}
				defer os.Remove(pidFile)
			}
			st := a.Stats()
			fmt.Fprintf(cmd.ErrOrStderr(), "serving %d pages of %s as a proxy at http://%s (Ctrl-C stops)\n", st.Pages, args[0], srv.Addr())
			tellSkipped(cmd.ErrOrStderr(), a, args[0])
			return srv.Wait()
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().StringVar(&pidFile, "pid-file", "", "write the process id to this file while serving (removed at exit)")
	cmd.Flags().DurationVar(&delay, "delay", 0, "answer every request after this long, as a distant server would (e.g. 50ms), to measure crawls whose fetches are not free")
	cmd.Flags().StringVar(&requestLog, "request-log", "", `append one line per request answered to this file: METHOD URL STATUS "USER-AGENT"`)
	return cmd
}

func newLabelsCmd() *cobra.Command {
	var showRule bool
	cmd := &cobra.Command{
		Use:   "labels ARCHIVE",
		Short: "Print url<TAB>label, one label per normalized URL",
		Long: `labels prints one line per normalized URL of the collection. When several
files share a normalized URL with different labels, a label other than
"other" beats "other", and among the rest the first in the order
course, faculty, student, staff, project, department wins; --rule adds the
rule that picked each label as a third column.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := webkb.Open(args[0])
			if err != nil {
				return err
			}
			tellSkipped(cmd.ErrOrStderr(), a, args[0])
			w := bufio.NewWriter(cmd.OutOrStdout())
			for _, l := range a.Labels() {
				if showRule {
					fmt.Fprintf(w, "%s\t%s\t%s\n", l.URL, l.Label, l.Rule)
				} else {
					fmt.Fprintf(w, "%s\t%s\n", l.URL, l.Label)
				}
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&showRule, "rule", false, "add the rule that picked the label")
	return cmd
}

func newSeedsCmd() *cobra.Command {
	var topics, seedFlags []string
	var group, out, negatives string
	cmd := &cobra.Command{
		Use:   "seeds ARCHIVE --topic T[,T…] [--group G] [--seed URL]… [--out FILE]",
		Short: "Write a seed file from a labelled collection",
		Long: `seeds writes a seed file whose example pages are the pages labelled with each
topic in --group (by default the collection's one group that is not a site,
in WebKB misc), whose negative examples are the pages labelled "other" in
that group (with --negatives rest: every page of the group not labelled with
a topic), followed by the group's pages of every other label as negative
examples of their kind ("other:LABEL", which the crawl's page judge learns
each as a class of its own; all the negatives so when no page of the group
is labelled "other"; a label that is no class name, of lower-case letters,
digits, _ . -, is given one of its own, said on standard error), and whose
crawl seeds are the --seed URLs or else the home pages
of the collection's sites: each group whose labelled pages lie mostly on one
host whose home page ("/") is one of them (in WebKB the department home
pages of cornell, texas, washington and wisconsin; misc, spread over many
hosts, is not a site).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for i, t := range topics {
				if slices.Contains(topics[:i], t) {
					return fmt.Errorf("--topic %s given twice", t)
				}
			}
			a, err := webkb.Open(args[0])
			if err != nil {
				return err
			}
			seeds, err := experiment.ParseSeeds(seedFlags)
			if err != nil {
				return err
			}
			var renamed []webkb.Renamed
			write := func(w io.Writer) (err error) {
				renamed, err = webkb.WriteSeeds(w, a, seeds, topics, group, negatives)
				return err
			}
			if out == "" || out == "-" {
				err = write(cmd.OutOrStdout())
			} else {
				err = writeFileAtomic(out, func(f *os.File) error { return write(f) })
			}
			if err != nil {
				return err
			}
			for _, r := range renamed {
				fmt.Fprintf(cmd.ErrOrStderr(), "seeds: label %q becomes %s in the seed file (a class name of its own: lower-case letters, digits, _ . -)\n", r.Label, r.Kind)
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&topics, "topic", nil, "topics (labels) to learn")
	cmd.Flags().StringVar(&group, "group", "", "group whose pages are the examples (default: the collection's one group that is not a site; in WebKB, misc)")
	cmd.Flags().StringVar(&negatives, "negatives", "", `negative examples: the pages of --group labelled "other", or "rest": every page of --group not labelled with a topic (default: other, or rest when no page of --group is labelled other)`)
	cmd.Flags().StringArrayVar(&seedFlags, "seed", nil, seedUsage)
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default standard output)")
	return cmd
}

// tellSkipped says how many files of the collection at path are no page
// (not an http(s) URL at LABEL/GROUP/URL, or a name that does not parse),
// with the first, when any.
func tellSkipped(w io.Writer, a *replay.Archive, path string) {
	if sk := a.Skipped(); len(sk) > 0 {
		fmt.Fprintf(w, "%d files of %s are no page and are left out (the first, %s: %s)\n", len(sk), path, sk[0].Name, sk[0].Reason)
	}
}
