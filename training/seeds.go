package training

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/urlnorm"
)

// Seeds is the content of a seed file.
type Seeds struct {
	Topics []string            // in order of first appearance
	Train  map[string][]Source // topic → example pages
	Other  []Source            // negative examples
	Crawl  []urlnorm.URL       // where a crawl starts
}

// Source is one example page: a URL, or a local file.
type Source struct {
	URL  urlnorm.URL // set for web pages
	Path string      // set for local files
	Line int         // line of the seed file
}

func (s Source) String() string {
	if s.Path != "" {
		return s.Path
	}
	return s.URL.String()
}

var topicName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// ParseSeeds reads a seed file. Each non-blank line that does not start
// with '#' holds two fields separated by white space:
//
//	seed    http://www.cs.cornell.edu/           a crawl starts here
//	course  http://www.cs.cmu.edu/~cs101/        an example page of topic "course"
//	course  pages/cs101.html                     a local example (relative to the seed file)
//	other   http://www.example.com/news.html     a negative example
//
// Topic names are lower-case letters, digits, '_', '.' and '-'; "seed" and
// "other" are reserved. dir resolves relative file paths.
func ParseSeeds(r io.Reader, dir string) (*Seeds, error) {
	s := &Seeds{Train: make(map[string][]Source)}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	seenSeed := make(map[urlnorm.URL]bool)
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("line %d: want \"ROLE SOURCE\", got %d fields", n, len(fields))
		}
		role, src := strings.ToLower(fields[0]), fields[1]
		if role == "seed" {
			u, err := urlnorm.Parse(src)
			if err != nil {
				return nil, fmt.Errorf("line %d: seed: %w", n, err)
			}
			if !seenSeed[u] {
				seenSeed[u] = true
				s.Crawl = append(s.Crawl, u)
			}
			continue
		}
		if role != classify.Other && !topicName.MatchString(role) {
			return nil, fmt.Errorf("line %d: %q is not a valid topic name (lower-case letters, digits, _ . -)", n, role)
		}
		source := Source{Line: n}
		if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
			u, err := urlnorm.Parse(src)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			source.URL = u
		} else {
			p := strings.TrimPrefix(src, "file:")
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			source.Path = p
		}
		if role == classify.Other {
			s.Other = append(s.Other, source)
			continue
		}
		if _, ok := s.Train[role]; !ok {
			s.Topics = append(s.Topics, role)
		}
		s.Train[role] = append(s.Train[role], source)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	return s, nil
}

// LoadSeeds reads the seed file at path.
func LoadSeeds(path string) (*Seeds, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("seed file: %w", err)
	}
	defer f.Close()
	s, err := ParseSeeds(f, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("seed file %s: %w", path, err)
	}
	return s, nil
}

// Validate checks that the seeds can train a model.
func (s *Seeds) Validate() error {
	if len(s.Topics) == 0 {
		return errors.New("no topic has example pages (lines \"TOPIC URL\")")
	}
	if len(s.Other) == 0 {
		return errors.New("no negative examples (lines \"other URL\"): the model needs pages that are off-topic")
	}
	return nil
}
