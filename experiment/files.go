package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/scent-crawler/scent/internal/atomicfile"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

// writeFileAtomic writes path through a temporary file and a rename.
func writeFileAtomic(path string, write func(*os.File) error) error {
	return atomicfile.Write(path, write)
}

// writeJSONFile writes v as indented JSON to path.
func writeJSONFile(path string, v any) error {
	return writeFileAtomic(path, func(f *os.File) error {
		return jsonIndent(f).Encode(v)
	})
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func jsonIndent(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}

// writeSeedFile writes to path the seed file of topics with examples
// from group and negatives (webkb.WriteSeeds); the labels it gives under
// other names are said in the file's header and to progress.
func writeSeedFile(path string, a *replay.Archive, starts []urlnorm.URL, topics []string, group, negatives string, progress io.Writer) error {
	var renamed []webkb.Renamed
	err := writeFileAtomic(path, func(f *os.File) (err error) {
		renamed, err = webkb.WriteSeeds(f, a, starts, topics, group, negatives)
		return err
	})
	if err != nil {
		return err
	}
	tellRenamed(progress, renamed, path)
	return nil
}

// tellRenamed says on progress which labels the seed file at path names
// otherwise (webkb.WriteSeeds).
func tellRenamed(progress io.Writer, renamed []webkb.Renamed, path string) {
	for _, r := range renamed {
		fmt.Fprintf(progress, "label %q becomes %s in %s (a class name of its own)\n", r.Label, r.Kind, path)
	}
}
