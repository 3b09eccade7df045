package training

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/urlnorm"
)

// Seeds is the content of a seed file.
type Seeds struct {
	Topics []string            // in order of first appearance
	Train  map[string][]Source // topic → example pages
	Other  []Source            // negative examples ("other")
	// Kinds are the kinds of page named by negative examples of a kind
	// ("other:KIND"), in order of first appearance, and Kinded those
	// examples, in seed-file order, each with its Kind. A model of links
	// takes them for negatives only when there is no plain "other" one;
	// a page judge (PageSeeds) learns each kind as a class of its own.
	Kinds  []string
	Kinded []Source
	Crawl  []urlnorm.URL // where a crawl starts
}

// Examples returns the URLs of the example pages, topics', negatives' and
// then the kinds' (kind by kind), in seed-file order: the pages a model
// trained from the file learns from, its page judge's included.
func (s *Seeds) Examples() []urlnorm.URL {
	var out []urlnorm.URL
	add := func(srcs []Source) {
		for _, src := range srcs {
			if !src.URL.IsZero() {
				out = append(out, src.URL)
			}
		}
	}
	for _, t := range s.Topics {
		add(s.Train[t])
	}
	add(s.Other)
	for _, k := range s.Kinds {
		add(s.ofKind(k))
	}
	return out
}

// ofKind returns the examples of kind k, in seed-file order.
func (s *Seeds) ofKind(k string) []Source {
	var out []Source
	for _, src := range s.Kinded {
		if src.Kind == k {
			out = append(out, src)
		}
	}
	return out
}

// negatives returns the negative examples a model of the topics learns
// from: the plain ones ("other"), or, when there are none, every example
// of a kind, in seed-file order.
func (s *Seeds) negatives() []Source {
	if len(s.Other) > 0 || len(s.Kinded) == 0 {
		return s.Other
	}
	return s.Kinded
}

// PageSeeds returns the seeds of a page judge: every topic and every kind
// of s as a class of its own, in order of first appearance, with the
// plain negatives as negatives (a judge trained from them needs
// Options.LabelledNegatives when there are none).
func (s *Seeds) PageSeeds() *Seeds {
	p := &Seeds{Train: make(map[string][]Source), Other: s.Other, Crawl: s.Crawl}
	for _, t := range s.Topics {
		p.Train[t] = s.Train[t]
	}
	for _, src := range s.Kinded {
		k := src.Kind
		src.Kind = ""
		p.Train[k] = append(p.Train[k], src)
	}
	// In order of first appearance: by the line of each class's first
	// example (topics before kinds where there are no lines).
	p.Topics = append(slices.Clone(s.Topics), s.Kinds...)
	first := func(c string) int {
		if ex := p.Train[c]; len(ex) > 0 {
			return ex[0].Line
		}
		return 0
	}
	slices.SortStableFunc(p.Topics, func(a, b string) int { return first(a) - first(b) })
	return p
}

// Source is one example page: a URL, or a local file.
type Source struct {
	URL  urlnorm.URL // set for web pages
	Path string      // set for local files
	Line int         // line of the seed file
	Kind string      // the kind of a negative example of a kind ("other:KIND")
}

func (s Source) String() string {
	if s.Path != "" {
		return s.Path
	}
	return s.URL.String()
}

// SiteConcentration returns the chance that two of the seed file's
// example pages (the topics' and the negatives', drawn at random with
// replacement) are on the same host: Σ (pages on h / pages)² over hosts
// h (Simpson's index). A local file counts as a host of its own. Near 0
// when the examples come from many sites, 1 when they all come from one,
// whose pages share words (a template, the site's name) that a model
// learns as its classes' own.
func (s *Seeds) SiteConcentration() float64 {
	hosts := make(map[string]int)
	n := 0
	count := func(srcs []Source) {
		for _, src := range srcs {
			n++
			if src.URL.IsZero() {
				hosts["file:"+strconv.Itoa(n)]++
				continue
			}
			hosts[src.URL.Host()]++
		}
	}
	for _, t := range s.Topics {
		count(s.Train[t])
	}
	count(s.negatives())
	if n == 0 {
		return 0
	}
	var sum float64
	for _, k := range hosts {
		sum += float64(k) * float64(k)
	}
	return sum / (float64(n) * float64(n))
}

// validName reports whether name can name a topic, or a kind of
// negative example, in a seed file: a class name (classify.ValidName),
// and not the role "seed".
func validName(name string) bool {
	return classify.ValidName(name) && name != "seed"
}

// ParseSeeds reads a seed file. A '#' at the start of a line or after
// white space begins a comment that runs to the end of the line; every
// line that is not blank once comments are removed holds two fields
// separated by white space, a role and a source:
//
//	seed    http://www.cs.cornell.edu/         # a crawl starts here
//	course  http://www.cs.cmu.edu/~cs101/      # an example page of topic "course"
//	course  pages/cs101.html                   # a local example (relative to the seed file)
//	course  file:///home/me/pages/cs102.html   # a local example named by a file URL
//	other   http://www.example.com/news.html   # a negative example
//	other:student http://www.cs.cmu.edu/~ann/  # a negative example of a kind
//
// Topic names are lower-case letters, digits, '_', '.' and '-'; "seed" and
// "other" are reserved. A negative example of a kind names a kind of page
// that is not a topic but may look like one (student home pages beside a
// topic of faculty pages): the crawl's page judge learns each kind as a
// class of its own, and a model of links takes them as negatives only
// when the file has no plain "other" line. Kind names are as topic names,
// and none may be a topic's. A source with "://" is a URL (only http and https
// are accepted, whatever their case), one starting with "file:" is a local
// file, and anything else is a file path; dir resolves relative file paths.
// Duplicate crawl seeds are kept once. Errors name the line they are on.
func ParseSeeds(r io.Reader, dir string) (*Seeds, error) {
	s := &Seeds{Train: make(map[string][]Source)}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	seenSeed := make(map[urlnorm.URL]bool)
	// An example listed twice under one role is one example: trained on
	// twice, it would weigh double.
	type example struct{ role, url, path string }
	seenExample := make(map[example]bool)
	// A page is an example of topics or a negative example, never both:
	// the line where each page was first given either role.
	type page struct{ url, path string }
	positive, negative := make(map[page]int), make(map[page]int)
	for sc.Scan() {
		n++
		text := sc.Text()
		if n == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark some editors write
		}
		line := strings.TrimSpace(text)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		for i, f := range fields {
			if strings.HasPrefix(f, "#") {
				fields = fields[:i]
				break
			}
		}
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
		kind, isKind := strings.CutPrefix(role, classify.Other+":")
		if !isKind {
			kind = ""
		}
		switch {
		case isKind && !validName(kind):
			return nil, fmt.Errorf("line %d: %q is not a valid kind of negative example (other:NAME, the name as a topic's)", n, role)
		case !isKind && role != classify.Other && !classify.ValidName(role):
			return nil, fmt.Errorf("line %d: %q is not a valid topic name (lower-case letters, digits, _ . -)", n, role)
		}
		source := Source{Line: n, Kind: kind}
		if lower := strings.ToLower(src); strings.HasPrefix(lower, "file:") {
			p, err := filePath(src[len("file:"):], dir)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, src, err)
			}
			source.Path = p
		} else if strings.Contains(src, "://") {
			u, err := urlnorm.Parse(src)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			source.URL = u
		} else {
			source.Path = resolvePath(src, dir)
		}
		k := example{role, source.URL.String(), source.Path}
		if seenExample[k] {
			continue
		}
		seenExample[k] = true
		pg := page{source.URL.String(), source.Path}
		if isKind || role == classify.Other {
			if at, ok := positive[pg]; ok {
				return nil, fmt.Errorf("line %d: %s is an example of a topic on line %d: it cannot be a negative example too", n, src, at)
			}
			if _, ok := negative[pg]; !ok {
				negative[pg] = n
			}
		} else {
			if at, ok := negative[pg]; ok {
				return nil, fmt.Errorf("line %d: %s is a negative example on line %d: it cannot be an example of a topic too", n, src, at)
			}
			if _, ok := positive[pg]; !ok {
				positive[pg] = n
			}
		}
		switch {
		case role == classify.Other:
			s.Other = append(s.Other, source)
		case isKind:
			if slices.Contains(s.Topics, kind) {
				return nil, fmt.Errorf("line %d: %s is a topic of this file: its pages cannot be negative examples too", n, kind)
			}
			if !slices.Contains(s.Kinds, kind) {
				s.Kinds = append(s.Kinds, kind)
			}
			s.Kinded = append(s.Kinded, source)
		default:
			if slices.Contains(s.Kinds, role) {
				return nil, fmt.Errorf("line %d: %s is a kind of negative example of this file (other:%s): it cannot be a topic too", n, role, role)
			}
			if _, ok := s.Train[role]; !ok {
				s.Topics = append(s.Topics, role)
			}
			s.Train[role] = append(s.Train[role], source)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	return s, nil
}

// filePath returns the local path named by what follows "file:": a path
// ("file:pages/a.html", "file:/tmp/a.html") or the rest of a file URL
// ("file:///tmp/a.html", "file://localhost/tmp/a%20b.html").
func filePath(rest, dir string) (string, error) {
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		host, p, _ := strings.Cut(after, "/")
		if host != "" && !strings.EqualFold(host, "localhost") {
			return "", fmt.Errorf("file URL names host %q, not this machine", host)
		}
		p, err := url.PathUnescape("/" + p)
		if err != nil {
			return "", fmt.Errorf("file URL: %w", err)
		}
		rest = p
	}
	if rest == "" {
		return "", errors.New("empty file path")
	}
	return resolvePath(rest, dir), nil
}

// resolvePath resolves a relative path against dir and cleans it.
func resolvePath(p, dir string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
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
func (s *Seeds) Validate() error { return s.validate(false) }

// validate is Validate; with labelled (Options.LabelledNegatives) two
// topics without negative examples are enough.
func (s *Seeds) validate(labelled bool) error {
	if s == nil || len(s.Topics) == 0 {
		return errors.New("no topic has example pages (lines \"TOPIC URL\")")
	}
	if len(s.negatives()) == 0 && !(labelled && len(s.Topics) > 1) {
		return errors.New("no negative examples (lines \"other URL\"): the model needs pages that are off-topic")
	}
	return nil
}

// DiscoverySeeds returns where a short discovery crawl looking for
// backlinks of the examples starts: the root page of every site that holds
// a web example, then the web examples themselves (positive and negative,
// each once, in seed-file order). Parents of the examples are most often on
// their own sites, reached from the root or linked from the other examples.
func (s *Seeds) DiscoverySeeds() []urlnorm.URL {
	var ex []Source
	for _, t := range s.Topics {
		ex = append(ex, s.Train[t]...)
	}
	ex = append(ex, s.negatives()...)
	seen := make(map[urlnorm.URL]bool)
	var out []urlnorm.URL
	add := func(u urlnorm.URL) {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, e := range ex {
		if e.URL.IsZero() {
			continue
		}
		if root, err := e.URL.Resolve("/"); err == nil {
			add(root)
		}
	}
	for _, e := range ex {
		if !e.URL.IsZero() {
			add(e.URL)
		}
	}
	return out
}
