package replay

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/scent-crawler/scent/urlnorm"
)

// Page is one stored page, at its normalized URL.
type Page struct {
	// URL is the normalized URL the page was fetched from.
	URL urlnorm.URL
	// Label is the class folder, such as "course" or Other.
	Label string
	// Group is the group folder, such as the site or university the page
	// was gathered from.
	Group string
	// Header holds the stored response headers (Content-Type,
	// Last-Modified, …) as ParseStored returns them; nil for bare bodies.
	Header http.Header
	body   body // the stored body; Body returns it
	// Status is 200, or 301/302 for a stored redirect.
	Status int
	// Name is the file's path inside the collection, "class/group/file".
	Name string
}

// Body returns the stored body, a new slice each call.
func (p *Page) Body() []byte { return p.body.bytes() }

// Size returns the length of the stored body.
func (p *Page) Size() int { return p.body.size }

// ContentType returns the stored Content-Type, or "text/html" when none was
// stored.
func (p *Page) ContentType() string {
	if ct := p.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "text/html"
}

// IsHTML reports whether the page is served as HTML.
func (p *Page) IsHTML() bool {
	ct := strings.ToLower(p.ContentType())
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml")
}

// Label is the one label kept for a normalized URL.
type Label struct {
	// URL is the normalized URL.
	URL urlnorm.URL
	// Label and Group are those of the file whose body is served.
	Label, Group string
	// Rule names the rule that picked the label: RuleUnique, RuleAgree,
	// RuleNonOther or RulePrecedence.
	Rule string
	// Others lists "label/group" of the other files of the same URL, in
	// file-name order; nil when the URL has one file.
	Others []string
}

// Rules that pick one label per normalized URL, recorded in Label.Rule.
const (
	// RuleUnique: one file has the URL.
	RuleUnique = "unique"
	// RuleAgree: several files have the URL, all with the same label.
	RuleAgree = "agree"
	// RuleNonOther: the files disagree, and the only label that is not
	// "other" wins over "other".
	RuleNonOther = "non-other"
	// RulePrecedence: the files carry several labels besides "other"; the
	// first of them in Options.LabelPrecedence wins.
	RulePrecedence = "precedence"
)

// Other is the label of the pages that are about none of the collection's
// topics. It loses to any other label when the files of one URL disagree
// (RuleNonOther), wherever Options.LabelPrecedence places it.
const Other = "other"

// Options are the collection-level choices Open needs besides the files:
// how to settle a URL stored under several labels or groups. The zero
// value orders labels and groups by name, with Other last.
type Options struct {
	// LabelPrecedence orders the labels for RulePrecedence: the first
	// listed wins. Labels not listed come after those listed, by name;
	// Other comes last in any case.
	LabelPrecedence []string
	// GroupPrecedence orders the groups when the files of one URL with
	// the chosen label lie in several groups: the first listed wins;
	// groups not listed come after, by name.
	GroupPrecedence []string
}

// Stats counts what Open found.
type Stats struct {
	// Files is the number of regular files in the collection.
	Files int
	// FilesPerLabel counts files per class folder, ftp: and file: ones
	// included.
	FilesPerLabel map[string]int
	// Skipped counts files whose names are not http(s) URLs (ftp:, file:)
	// or are not at class/group/name.
	Skipped int
	// WithHeader and Bare count the http files that begin with stored
	// response headers and those that are bare bodies.
	WithHeader, Bare int
	// Redirects counts the stored redirects (responses with a Location).
	Redirects int
	// DroppedHeaderLines counts garbled header lines that were dropped.
	DroppedHeaderLines int
	// Pages is the number of distinct normalized URLs.
	Pages int
	// Collisions counts normalized URLs shared by more than one file, and
	// Conflicts those of them whose files carry different labels.
	Collisions, Conflicts int
}

// Skip is a file that Open did not turn into a page, with the reason.
type Skip struct {
	// Name is the file's path inside the collection.
	Name string
	// Reason says why it was skipped, such as an unsupported scheme.
	Reason string
}

// Archive is a loaded collection: one page per normalized URL, its labels,
// and the prepared responses that the handler serves. It is not modified
// after Open and is safe for concurrent use.
type Archive struct {
	pages   []*Page // one per URL, sorted by URL
	byURL   map[urlnorm.URL]*Page
	labels  []Label
	files   []*Page // every http file, sorted by name
	skipped []Skip
	stats   Stats
	routes  map[string]*route
}

// Pages returns one page per normalized URL (the chosen one on collisions),
// sorted by URL. The slice is shared; do not modify it.
func (a *Archive) Pages() []*Page { return a.pages }

// Files returns every stored http file, including those that lost a
// collision, sorted by name. The slice is shared; do not modify it.
func (a *Archive) Files() []*Page { return a.files }

// Lookup returns the page stored at exactly u.
func (a *Archive) Lookup(u urlnorm.URL) (*Page, bool) {
	p, ok := a.byURL[u]
	return p, ok
}

// Labels returns one label per normalized URL, sorted by URL. The slice is
// shared; do not modify it.
func (a *Archive) Labels() []Label { return a.labels }

// Skipped returns the files that are not pages, sorted by name.
func (a *Archive) Skipped() []Skip { return a.skipped }

// Stats returns the counts gathered while loading.
func (a *Archive) Stats() Stats { return a.stats }

// rawFile is one file read from the collection.
type rawFile struct {
	name string // class/group/file
	data []byte
}

// Open loads a collection laid out as class/group/<URL with '/' written as
// '^'>, either from a .tgz/.tar.gz/.tar file read directly or from an
// unpacked folder; o settles the URLs stored more than once.
func Open(path string, o Options) (*Archive, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open archive: %w", err)
	}
	var files []rawFile
	if fi.IsDir() {
		files, err = readDir(path)
	} else {
		files, err = readTar(path)
	}
	if err != nil {
		return nil, fmt.Errorf("open archive %s: %w", path, err)
	}
	a, err := build(files, o)
	if err != nil {
		return nil, fmt.Errorf("open archive %s: %w", path, err)
	}
	return a, nil
}

func readDir(root string) ([]rawFile, error) {
	var files []rawFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, rawFile{name: filepath.ToSlash(rel), data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read folder: %w", err)
	}
	return files, nil
}

func readTar(path string) ([]rawFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read gzip: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	var files []rawFile
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read tar: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size < 0 || h.Size > 1<<30 {
			return nil, fmt.Errorf("read tar: %s: size %d out of range", h.Name, h.Size)
		}
		data := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, data); err != nil {
			return nil, fmt.Errorf("read tar: %s: %w", h.Name, err)
		}
		files = append(files, rawFile{name: strings.TrimPrefix(h.Name, "./"), data: data})
	}
	return files, nil
}

// splitName splits "…/class/group/file" into its last three parts.
func splitName(name string) (label, group, file string, ok bool) {
	parts := strings.Split(name, "/")
	if len(parts) < 3 {
		return "", "", "", false
	}
	n := len(parts)
	label, group, file = parts[n-3], parts[n-2], parts[n-1]
	if label == "" || group == "" || file == "" {
		return "", "", "", false
	}
	return label, group, file, true
}

// fileURL turns a file name into the URL it stands for.
func fileURL(file string) (urlnorm.URL, error) {
	return urlnorm.Parse(strings.ReplaceAll(strings.TrimSpace(file), "^", "/"))
}

func build(raw []rawFile, o Options) (*Archive, error) {
	slices.SortFunc(raw, func(x, y rawFile) int { return strings.Compare(x.name, y.name) })
	a := &Archive{byURL: make(map[urlnorm.URL]*Page, len(raw))}
	a.stats.Files = len(raw)
	a.stats.FilesPerLabel = make(map[string]int)
	byURL := make(map[urlnorm.URL][]*Page, len(raw))
	var bodies [][]byte // of a.files
	for _, f := range raw {
		label, group, file, ok := splitName(f.name)
		if !ok {
			a.skipped = append(a.skipped, Skip{Name: f.name, Reason: "not at class/group/file"})
			a.stats.Skipped++
			continue
		}
		a.stats.FilesPerLabel[label]++
		u, err := fileURL(file)
		if err != nil {
			a.skipped = append(a.skipped, Skip{Name: f.name, Reason: err.Error()})
			a.stats.Skipped++
			continue
		}
		st := ParseStored(f.data)
		if st.Header != nil {
			a.stats.WithHeader++
		} else {
			a.stats.Bare++
		}
		if st.Status != http.StatusOK {
			a.stats.Redirects++
		}
		a.stats.DroppedHeaderLines += st.Dropped
		p := &Page{URL: u, Label: label, Group: group, Header: st.Header, Status: st.Status, Name: f.name}
		a.files = append(a.files, p)
		bodies = append(bodies, st.Body)
		byURL[u] = append(byURL[u], p)
	}
	compressAll(a.files, bodies)
	if len(byURL) == 0 {
		if len(a.skipped) > 0 {
			return nil, fmt.Errorf("no http pages found: %d files read, %d skipped (the first, %s: %s)", a.stats.Files, len(a.skipped), a.skipped[0].Name, a.skipped[0].Reason)
		}
		return nil, fmt.Errorf("no http pages found: %d files read (want LABEL/GROUP/URL with each / of the URL written ^)", a.stats.Files)
	}
	for u, ps := range byURL {
		chosen, l := choose(ps, o)
		l.URL = u
		a.byURL[u] = chosen
		a.pages = append(a.pages, chosen)
		a.labels = append(a.labels, l)
		if len(ps) > 1 {
			a.stats.Collisions++
			if l.Rule != RuleAgree {
				a.stats.Conflicts++
			}
		}
	}
	slices.SortFunc(a.pages, func(x, y *Page) int { return strings.Compare(x.URL.String(), y.URL.String()) })
	slices.SortFunc(a.labels, func(x, y Label) int { return strings.Compare(x.URL.String(), y.URL.String()) })
	a.stats.Pages = len(a.pages)
	a.routes = buildRoutes(a)
	return a, nil
}

// rank returns the position of s in order, or len(order) when absent.
func rank(order []string, s string) int {
	if i := slices.Index(order, s); i >= 0 {
		return i
	}
	return len(order)
}

// labelRank is rank for labels, with Other after every other label.
func labelRank(order []string, label string) int {
	if label == Other {
		return len(order) + 1
	}
	return rank(order, label)
}

// choose picks the page and label for the files ps of one URL, given in
// name order.
func choose(ps []*Page, o Options) (*Page, Label) {
	if len(ps) == 1 {
		return ps[0], Label{Label: ps[0].Label, Group: ps[0].Group, Rule: RuleUnique}
	}
	distinct := map[string]bool{}
	for _, p := range ps {
		distinct[p.Label] = true
	}
	best := slices.MinFunc(ps, func(x, y *Page) int {
		if c := labelRank(o.LabelPrecedence, x.Label) - labelRank(o.LabelPrecedence, y.Label); c != 0 {
			return c
		}
		if c := strings.Compare(x.Label, y.Label); c != 0 { // labels not listed
			return c
		}
		if c := rank(o.GroupPrecedence, x.Group) - rank(o.GroupPrecedence, y.Group); c != 0 {
			return c
		}
		if c := strings.Compare(x.Group, y.Group); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	rule := RuleAgree
	switch {
	case len(distinct) == 1:
	case len(distinct) == 2 && distinct[Other]:
		rule = RuleNonOther
	default:
		rule = RulePrecedence
	}
	l := Label{Label: best.Label, Group: best.Group, Rule: rule}
	for _, p := range ps {
		if p != best {
			l.Others = append(l.Others, p.Label+"/"+p.Group)
		}
	}
	return best, l
}
