package experiment

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/training"
)

// TrainModel builds a model from the seeds, fetching the examples with a
// fetcher of fc. src, when not nil, adds the backlinks it knows (e.g. the
// crawl's own store) to those of the settings; the settings' BacklinkDB
// is opened here (a SQLite file or a PostgreSQL URL).
func TrainModel(ctx context.Context, s *training.Seeds, fc fetch.Config, mf *training.Settings, progress io.Writer, src training.BacklinkSource) (*classify.Model, *training.Report, error) {
	f, err := fetch.New(fc)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return TrainModelWith(ctx, s, f, mf, progress, src)
}

// TrainModelWith is TrainModel with the fetcher of the examples given.
func TrainModelWith(ctx context.Context, s *training.Seeds, f training.Fetcher, mf *training.Settings, progress io.Writer, src training.BacklinkSource) (*classify.Model, *training.Report, error) {
	opts, err := mf.Options(src)
	if err != nil {
		return nil, nil, err
	}
	if mf.BacklinkDB != "" && src == nil {
		store, err := OpenExisting(ctx, mf.BacklinkDB)
		if err != nil {
			return nil, nil, err
		}
		defer store.Close()
		opts.BacklinkSource = store
	}
	if isTerminal(os.Stderr) {
		opts.Progress = progress
	}
	return training.Build(ctx, s, f, opts)
}

// SaveModel writes m to path through a temporary file and a rename.
func SaveModel(path string, m *classify.Model) error {
	if err := writeFileAtomic(path, func(f *os.File) error { return m.Save(f) }); err != nil {
		return fmt.Errorf("write model %s: %w", path, err)
	}
	return nil
}
