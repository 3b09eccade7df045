package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/urlnorm"
)

// Labels maps normalized URLs to their class: the name a seed file gives
// their label (classify.NameOf), so that a label "Course" counts the
// pages of the topic course.
type Labels map[urlnorm.URL]string

// ReadLabels reads "url<TAB>label" lines (blank lines and '#' comments
// skipped), as written by "scent labels".
func ReadLabels(r io.Reader) (Labels, error) {
	l := make(Labels)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff") // a byte-order mark some editors write
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		raw, label, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("labels line %d: want \"URL<TAB>LABEL\"", n)
		}
		label, _, _ = strings.Cut(label, "\t")
		u, err := urlnorm.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("labels line %d: %w", n, err)
		}
		if label = strings.TrimSpace(label); label != "" {
			label = classify.NameOf(label)
		}
		l[u] = label
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	return l, nil
}

// LoadLabels reads a labels file.
func LoadLabels(path string) (Labels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := ReadLabels(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}
