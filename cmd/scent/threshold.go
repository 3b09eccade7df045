package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
)

// applyThreshold makes a --threshold given by flag, environment or config
// file act on a model that was loaded (--model, or the model of a resumed
// crawl): every topic's on-topic threshold becomes th. Without it the
// model's own thresholds stay.
func applyThreshold(cmd *cobra.Command, m *classify.Model, th float64, w io.Writer) error {
	if !cmd.Flags().Changed("threshold") {
		return nil
	}
	for _, t := range m.Topics() {
		if m.Threshold(t) == th {
			continue
		}
		old := m.Threshold(t)
		if err := m.SetThreshold(t, th); err != nil {
			return fmt.Errorf("--threshold: %w", err)
		}
		fmt.Fprintf(w, "topic %s: on-topic threshold %g (%s) instead of the model's %g\n", t, th, settingSource(cmd.Flags(), "threshold"), old)
	}
	return nil
}
