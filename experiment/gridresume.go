package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/scent-crawler/scent/report"
)

// gridSettings is what a grid's cells depend on besides their own
// parameters, written to DIR/cells/settings.json. A grid rerun into the
// same folder whose settings have the same Key keeps the cells an earlier
// run finished; with another Key it starts over.
type gridSettings struct {
	// Key is the SHA-256 digest, in hex, of the other fields as compact
	// JSON.
	Key string `json:"key"`
	// Spec is the grid's experiment serialised as JSON (fields tagged
	// json:"-" left out by encoding/json), without what does not change
	// a cell's result (the output folder and the command line) and
	// without the grid's own parameters, which name the cells.
	Spec json.RawMessage `json:"spec"`
	// ArchiveSize and ArchiveTime identify the collection's contents
	// (Spec holds its path as given).
	ArchiveSize int64  `json:"archive_size"`
	ArchiveTime string `json:"archive_mtime"`
	// Scoring names how cells are measured: cells measured otherwise are
	// run again.
	Scoring string `json:"scoring"`
}

// scoring is the Scoring of this version's cells: recall over held-out
// targets.
const scoring = "held-out"

// settings returns the grid's settings. Every field of Spec counts unless
// it is tagged json:"-", so a new field needs no change here.
func (o Grid) settings() (gridSettings, error) {
	fi, err := os.Stat(o.Archive)
	if err != nil {
		return gridSettings{}, err
	}
	spec := o.single(gridCell{}) // the cells' own parameters cleared
	spec.Archive = filepath.Clean(spec.Archive)
	spec.Out, spec.Command = "", ""
	data, err := json.Marshal(spec)
	if err != nil {
		return gridSettings{}, fmt.Errorf("settings: %w", err)
	}
	s := gridSettings{Spec: data, ArchiveSize: fi.Size(), ArchiveTime: fi.ModTime().UTC().Format("2006-01-02T15:04:05.000000000Z"), Scoring: scoring}
	keyed, err := json.Marshal(s) // Key is still ""
	if err != nil {
		return gridSettings{}, fmt.Errorf("settings: %w", err)
	}
	sum := sha256.Sum256(keyed)
	s.Key = hex.EncodeToString(sum[:])
	return s, nil
}

const (
	settingsFile = "settings.json" // in DIR/cells
	cellFile     = "cell.json"     // in DIR/cells/<cell>
)

// prepareCells readies DIR/cells for a grid with settings s and returns
// the cells an earlier run with the same settings (the same Key) finished,
// by name. Cells of a run with other settings (or of unknown settings) are
// removed; notice is told why.
func prepareCells(dir string, s gridSettings, notice func(string)) (map[string]*report.GridCell, error) {
	cellsDir := filepath.Join(dir, "cells")
	done := make(map[string]*report.GridCell)
	data, err := os.ReadFile(filepath.Join(cellsDir, settingsFile))
	var old gridSettings
	switch {
	case err == nil && json.Unmarshal(data, &old) == nil && old.Key != "" && old.Key == s.Key:
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
