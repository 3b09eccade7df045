package main

import (
	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
)

// newJudgeCmd builds "scent judge": how well a model tells a topic's
// pages from the others on the labelled pages it never learnt from.
func newJudgeCmd() *cobra.Command {
	var model, group string
	var topics []string
	cmd := &cobra.Command{
		Use:   "judge ARCHIVE --model FILE --topic T",
		Short: "How well a model judges a topic's pages: every labelled page outside the training group scored as a crawl scores a fetched page",
		Long: `Judge scores every labelled HTML page of a collection (a WebKB tarball
or folder) outside --group — the pages a model trained on that group never
saw — with the model's page score for each topic, as a crawl judges a
fetched page, and writes per topic the AUC (the chance that a page of the
topic scores above another page), the R-precision (the precision among as
many best-scored pages as the topic has), the topic's pages by the class
the model finds most probable (a topic whose pages mostly look like
another kind of page is one its crawl cannot learn well: give it more or
other examples) and, at page scores 0.1 to 0.9, the true and false
positives, precision, recall and the false positives' labels. The link
learner of scent crawl and scent experiment learns from
these verdicts, so a better judge teaches it better; scent experiment
keeps its page model in OUT/page-model.json.`,
		Example: `  scent judge ../shared/corpus/webkb.tgz --model out/faculty/page-model.json --topic faculty`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := loadModel(model)
			if err != nil {
				return err
			}
			rs, err := experiment.JudgeEval(args[0], m, topics, group)
			if err != nil {
				return err
			}
			for _, r := range rs {
				if err := experiment.WriteJudge(cmd.OutOrStdout(), r); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "model file (scent train, or an experiment's model.json or page-model.json)")
	cmd.Flags().StringSliceVar(&topics, "topic", nil, "topics to judge (a comma-separated list)")
	cmd.Flags().StringVar(&group, "group", "", "the group the model was trained on, left out (default: the collection's one group that is not a site; in WebKB, misc)")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}
