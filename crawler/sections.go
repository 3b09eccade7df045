package crawler

import (
	"container/list"
	"strings"

	"github.com/scent-crawler/scent/urlnorm"
)

// sectionsKept bounds Config.Sections' memory: the most recently found
// on-topic sections are remembered, per crawl run.
const sectionsKept = 1 << 16

// sections remembers, per topic, the directories of the documents whose
// entry page (see sectionOf) the page classifier found on-topic. Such a
// page is the entry of a compound document — a course's home page and
// its syllabus, assignments and notes, a person's home page and their
// photos and papers — and the links into that directory lead to the
// document's own parts rather than to more entries: they wait on the
// topic's parts, served after its reserve (or are dropped without
// tunnelling), instead of on its stack.
type sections struct {
	topics []string
	lru    *list.List // of sectionKey, most recent first
	by     map[sectionKey]*list.Element
}

type sectionKey struct {
	topic int
	dir   string // scheme://host/path/ with its final slash
}

func newSections(topics []string) *sections {
	return &sections{topics: topics, lru: list.New(), by: make(map[sectionKey]*list.Element)}
}

// indexNames are the file names servers use for a directory's page.
var indexNames = map[string]bool{
	"index.html": true, "index.htm": true, "index.shtml": true, "index.php": true,
	"default.htm": true, "default.html": true, "default.asp": true,
	"home.html": true, "home.htm": true, "welcome.html": true, "welcome.htm": true,
}

// sectionOf returns the directory that holds the parts of the document u
// is the entry page of, or "" when u has a query or lies at a host's root
// (the root page's directory is the whole site, and a root file's
// folder, /courses/, belongs to the site as much as to the file). The
// entry of a directory — a path ending in a slash, an index file
// (index.html, home.html, …), a file named after its directory
// (/cs302/cs302.html, /~cs354-1/cs354.html) — owns that directory; any
// other file owns the folder named after it (/courses/cs100.html owns
// /courses/cs100/), where document converters and authors put a page's
// own pages, and not its own directory, which it shares with its
// siblings (a listing's courses, a person's pages).
func sectionOf(u urlnorm.URL) string {
	p := u.Path()
	slash := strings.LastIndexByte(p, '/')
	if slash <= 0 || u.Query() != "" {
		return ""
	}
	dir, name := p[:slash+1], strings.ToLower(p[slash+1:])
	if name == "" || indexNames[name] {
		return u.Origin() + dir
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 {
		return "" // no extension: no folder of its own
	}
	if namesDirectory(name[:dot], dir) {
		return u.Origin() + dir
	}
	return u.Origin() + p[:slash+1+dot] + "/"
}

// namesDirectory reports whether stem (a file name without its
// extension, in lower case) is the name of dir (a path ending in "/"),
// less a leading "~" and a suffix after "-" or "_" on the directory's
// side, which tell apart the sections of one course (~cs354-1, ~cs354-2).
func namesDirectory(stem, dir string) bool {
	d := dir[:len(dir)-1]
	d = strings.ToLower(strings.TrimPrefix(d[strings.LastIndexByte(d, '/')+1:], "~"))
	return d == stem || strings.HasPrefix(d, stem+"-") || strings.HasPrefix(d, stem+"_")
}

// observe records p's sections for the topics it is on-topic for.
func (s *sections) observe(p *Page) {
	if p.Failure != "" {
		return
	}
	dir := sectionOf(p.FinalURL)
	if dir == "" {
		return
	}
	for i, t := range s.topics {
		if !p.Relevant[t] {
			continue
		}
		k := sectionKey{i, dir}
		if el, ok := s.by[k]; ok {
			s.lru.MoveToFront(el)
			continue
		}
		s.by[k] = s.lru.PushFront(k)
		if s.lru.Len() > sectionsKept {
			old := s.lru.Back()
			s.lru.Remove(old)
			delete(s.by, old.Value.(sectionKey))
		}
	}
}

// within reports whether u lies in a remembered section of topic i: below
// its directory, or an index file naming the directory itself (the same
// page as the one that made it a section).
func (s *sections) within(i int, u urlnorm.URL) bool {
	p := u.Path()
	origin := u.Origin()
	// Every proper ancestor directory of u except the root.
	end := strings.LastIndexByte(p, '/')
	if end == len(p)-1 {
		end = strings.LastIndexByte(p[:end], '/')
	}
	for ; end > 0; end = strings.LastIndexByte(p[:end], '/') {
		if _, ok := s.by[sectionKey{i, origin + p[:end+1]}]; ok {
			return true
		}
	}
	return false
}

// divert moves the entries of push that lie in a remembered section of
// their topic to the topic's parts (tunnel) or drops them.
func (s *sections) divert(push []Entry, tunnel bool) []Entry {
	out := push[:0]
	for _, e := range push {
		i := -1
		for k, t := range s.topics {
			if e.Topic == t {
				i = k
				break
			}
		}
		if i >= 0 && s.within(i, e.URL) {
			if !tunnel {
				continue
			}
			e.Topic = Stack{Topic: e.Topic, Kind: Parts}.Name()
		}
		out = append(out, e)
	}
	return out
}
