package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/segment"
)

// diffOptions are the settings of scent diff.
type diffOptions struct {
	costs    change.Costs
	json     bool
	timeout  time.Duration
	maxBytes int64
}

// newDiffCmd builds "scent diff OLD NEW": the change from one version of a
// page to another, by IED and every baseline metric.
func newDiffCmd() *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Measure how much a page changed between two versions (IED and baselines)",
		Long: `Diff compares two versions of a page, each a file or an http(s) URL, as
sequences of words separated by white space. It prints the Improved Edit
Distance (the six operation counts, the edit cost δ_E and the distance
D_IED = δ_E / max(m, n)) and the baseline metrics BW, COS, WD, ED and 10-SH.
Binary input (NUL bytes) is refused. Versions that differ in more than a
few hundred places get an LCS found with a cost limit, which may overstate
IED and ED; the output says so ("approximate"). Ctrl-C stops it at once.`,
		Example: `  scent diff old.txt new.txt
  scent diff --s 0.5 --t 1 --json https://example.org/a old-a.html`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.Context(), cmd.OutOrStdout(), args[0], args[1], o)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.costs.S, "s", 0.75, "cost of a copy or a shrink, in [0, 1]")
	f.Float64Var(&o.costs.T, "t", 0.75, "cost of a move, in [0, 1]")
	f.BoolVar(&o.json, "json", false, "print the result as JSON")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "timeout of fetching a URL")
	f.Int64Var(&o.maxBytes, "max-bytes", 64<<20, "largest accepted version in bytes")
	return cmd
}

// diffReport is the JSON output of scent diff.
type diffReport struct {
	OldSource string       `json:"old_source"`
	NewSource string       `json:"new_source"`
	Costs     change.Costs `json:"costs"`
	change.Comparison
}

// runDiff reads both versions, compares them and prints the result to w.
func runDiff(ctx context.Context, w io.Writer, oldSrc, newSrc string, o diffOptions) error {
	if err := o.costs.Validate(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	if o.maxBytes <= 0 {
		return fmt.Errorf("--max-bytes must be positive, not %d", o.maxBytes)
	}
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, not %s", o.timeout)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	client := &http.Client{Timeout: o.timeout}
	oldText, err := readVersion(ctx, client, oldSrc, o.maxBytes)
	if err != nil {
		return err
	}
	newText, err := readVersion(ctx, client, newSrc, o.maxBytes)
	if err != nil {
		return err
	}
	cmp, err := change.CompareContext(ctx, oldText, newText, o.costs)
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	rep := diffReport{OldSource: oldSrc, NewSource: newSrc, Costs: o.costs, Comparison: cmp}
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("diff: write JSON: %w", err)
		}
		return nil
	}
	return printDiff(w, rep)
}

// printDiff writes the human-readable form of rep.
func printDiff(w io.Writer, rep diffReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	r := rep.IED
	fmt.Fprintf(tw, "old\t%s\t%d words\n", rep.OldSource, rep.Old)
	fmt.Fprintf(tw, "new\t%s\t%d words\n", rep.NewSource, rep.New)
	fmt.Fprintf(tw, "\nIED (s = %g, t = %g)\n", rep.Costs.S, rep.Costs.T)
	for _, op := range []struct {
		name string
		n    int
	}{{"add", r.Ops.Add}, {"copy", r.Ops.Copy}, {"drop", r.Ops.Drop}, {"shrink", r.Ops.Shrink}, {"replace", r.Ops.Replace}, {"move", r.Ops.Move}} {
		fmt.Fprintf(tw, "  %s\t%d\n", op.name, op.n)
	}
	// In full (to 4 decimals): %g would write 215986.5 as 2.16e+05.
	fmt.Fprintf(tw, "  δ_E\t%s\n", strconv.FormatFloat(math.Round(r.Delta*1e4)/1e4, 'f', -1, 64))
	fmt.Fprintf(tw, "  D_IED\t%s\n", fraction(r.Distance))
	if rep.Approximate {
		fmt.Fprintf(tw, "  (approximate: the versions differ so much that the LCS search was cut short; IED and ED may overstate the change)\n")
	}
	fmt.Fprintf(tw, "\nbaselines\n")
	fmt.Fprintf(tw, "  BW\t%s\tbytes differ\n", fraction(rep.Bytewise))
	fmt.Fprintf(tw, "  COS\t%s\t1 − cosine of TF·IDF vectors\n", fraction(rep.Cosine))
	fmt.Fprintf(tw, "  WD\t%s\tword distance\n", fraction(rep.WordDistance))
	fmt.Fprintf(tw, "  ED\t%s\tinsert/delete edit distance\n", fraction(rep.EditDistance))
	fmt.Fprintf(tw, "  10-SH\t%s\t10-shingling\n", fraction(rep.Shingling))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("diff: write: %w", err)
	}
	return nil
}

// fraction formats a distance in [0, 1] to 4 decimals, and one that
// would round to 0.0000 but is not 0 (a word changed among 100,000) as
// "< 0.0001", so that versions that differ never read as equal.
func fraction(v float64) string {
	if v > 0 && v < 0.00005 {
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", v)
}

// readVersion returns the bytes of a file, or of the body of an http(s)
// URL, refusing more than maxBytes.
func readVersion(ctx context.Context, client *http.Client, src string, maxBytes int64) ([]byte, error) {
	var r io.Reader
	contentType := "" // a file's: sniffed
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: %w", src, err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: %w", src, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, fmt.Errorf("fetch %s: %s", src, resp.Status)
		}
		r = resp.Body
		contentType = resp.Header.Get("Content-Type")
	} else {
		f, err := os.Open(src)
		if err != nil {
			return nil, err // "open SRC: no such file or directory"
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a file of a version", src)
		}
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", src, err)
	}
	if int64(len(b)) > maxBytes {
		return nil, fmt.Errorf("read %s: larger than %d bytes (see --max-bytes)", src, maxBytes)
	}
	// Decoded as a revisit decodes a page: by its byte order mark, its
	// declared charset or its bytes, so that a UTF-16 or Latin-1 version
	// compares with a UTF-8 one word for word.
	text, _, err := segment.Decode(b, contentType)
	if errors.Is(err, segment.ErrBinary) {
		return nil, fmt.Errorf("read %s: not text (%v): diff compares the words of two text or HTML versions", src, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", src, err)
	}
	return text, nil
}
