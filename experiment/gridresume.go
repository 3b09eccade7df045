package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/scent-crawler/scent/report"
)

// gridSettings are the settings a grid's cells depend on besides their
// own parameters. A grid rerun into the same folder with the same settings
// keeps the cells an earlier run finished; with other settings it starts
// over.
type gridSettings struct {
	Archive     string  `json:"archive"` // as given; with its size and time
	ArchiveSize int64   `json:"archive_size"`
	ArchiveTime string  `json:"archive_mtime"`
	Group       string  `json:"group"`
	Budget      int     `json:"budget"`
	Workers     int     `json:"workers"`
	Tunnel      bool    `json:"tunnel"`
	Promote     bool    `json:"promote"`
	Sections    bool    `json:"sections"`
	Lockstep    bool    `json:"lockstep"`
	Oracle      bool    `json:"oracle"`
	HubOracle   bool    `json:"hub_oracle,omitempty"`
	Learn       bool    `json:"learn,omitempty"`
	LearnReward float64 `json:"learn_reward,omitempty"`
	LearnGamma  float64 `json:"learn_gamma,omitempty"`
	SkipEx      bool    `json:"skip_examples,omitempty"`
	Negatives   string  `json:"negatives,omitempty"`
	PageNeg     string  `json:"page_negatives,omitempty"`
	Discovery   int     `json:"discovery"`
	M           float64 `json:"m"`
	Event       string  `json:"event"`
	URLTokens   bool    `json:"url_tokens"`
	Folds       int     `json:"folds"`
	Documents   string  `json:"documents"`
	Backlinks   string  `json:"backlinks,omitempty"`
	BacklinkDB  string  `json:"backlinks_db,omitempty"`
	// Scoring names how cells are measured: cells measured otherwise
	// are run again.
	Scoring  string `json:"scoring"`
	Baseline bool   `json:"baseline"`
}

// scoring is the Scoring of this version's cells: recall over held-out
// targets.
const scoring = "held-out"

func (o Grid) settings() (gridSettings, error) {
	fi, err := os.Stat(o.Archive)
	if err != nil {
		return gridSettings{}, err
	}
	return gridSettings{Archive: filepath.Clean(o.Archive), ArchiveSize: fi.Size(), ArchiveTime: fi.ModTime().UTC().Format("2006-01-02T15:04:05.000000000Z"),
		Group: o.Group, Budget: o.Budget, Workers: o.Workers, Tunnel: o.Tunnel, Promote: o.Promote, Sections: o.Sections, Lockstep: o.Lockstep, Oracle: o.Oracle, HubOracle: o.HubOracle,
		Learn: o.Learn, LearnReward: learnKey(o.Learn, o.LearnOptions.RewardAt), LearnGamma: learnKey(o.Learn, o.LearnOptions.Gamma), SkipEx: o.SkipExamples, Negatives: negativesKey(o.Negatives), PageNeg: pageNegativesKey(o.Negatives, o.PageNegatives),
		Discovery: o.Discovery, M: o.Model.M, Event: o.Model.Event, URLTokens: o.Model.URLTokens, Folds: o.Model.Folds,
		Documents: o.Model.Documents, Backlinks: o.Model.Backlinks, BacklinkDB: o.Model.BacklinkDB, Scoring: scoring, Baseline: o.Baseline}, nil
}

// pageNegativesKey is the page model's negatives for the settings: ""
// when links and pages share one model.
func pageNegativesKey(negatives, page string) string {
	if page == negatives || page == "" || page == "other" && negatives == "" {
		return ""
	}
	return page
}

// learnKey is a learner setting for the settings: 0 without a learner.
func learnKey(learn bool, v float64) float64 {
	if !learn {
		return 0
	}
	return v
}

// negativesKey leaves the default negatives out of the settings, so that
// grids run before the choice existed resume.
func negativesKey(n string) string {
	if n == "other" {
		return ""
	}
	return n
}

const (
	settingsFile = "settings.json" // in DIR/cells
	cellFile     = "cell.json"     // in DIR/cells/<cell>
)

// prepareCells readies DIR/cells for a grid with settings s and returns
// the cells an earlier run with the same settings finished, by name.
// Cells of a run with other settings (or of unknown settings) are removed;
// notice is told why.
func prepareCells(dir string, s gridSettings, notice func(string)) (map[string]*report.GridCell, error) {
	cellsDir := filepath.Join(dir, "cells")
	done := make(map[string]*report.GridCell)
	data, err := os.ReadFile(filepath.Join(cellsDir, settingsFile))
	var old gridSettings
	switch {
	case err == nil && json.Unmarshal(data, &old) == nil && old == s:
		entries, err := os.ReadDir(cellsDir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			c, err := readCell(filepath.Join(cellsDir, e.Name(), cellFile))
			if err == nil && c.Name == e.Name() {
				done[c.Name] = c
			}
		}
		return done, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("grid: %w", err)
	}
	if entries, err := os.ReadDir(cellsDir); err == nil && len(entries) > 0 {
		notice(fmt.Sprintf("%s holds cells run with other settings: starting over", cellsDir))
		if err := os.RemoveAll(cellsDir); err != nil {
			return nil, fmt.Errorf("grid: %w", err)
		}
	}
	if err := os.MkdirAll(cellsDir, 0o755); err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	if err := writeJSONFile(filepath.Join(cellsDir, settingsFile), s); err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	return done, nil
}

// readCell reads a finished cell written by writeCell.
func readCell(path string) (*report.GridCell, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c report.GridCell
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Name == "" || c.Report == nil {
		return nil, fmt.Errorf("%s: not a grid cell", path)
	}
	return &c, nil
}

// writeCell writes a finished cell, its report included, as cell.json,
// which a rerun of the grid reuses; the grid's report.json holds every
// cell's report once the grid is done.
func writeCell(dir string, c *report.GridCell) error {
	d := filepath.Join(dir, "cells", c.Name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(d, cellFile), c)
}
