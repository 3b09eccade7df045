package segment

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/scent-crawler/scent/urlnorm"
)

// Defaults used for zero Options fields.
const (
	DefaultWindow    = 10
	DefaultMaxTokens = 200_000
	DefaultMaxLinks  = 20_000
)

// Options control Split. The zero value gives the defaults.
type Options struct {
	// Window is the number of tokens taken before and after each anchor;
	// 0 means DefaultWindow and a negative value means none.
	Window int
	// URLTokens adds the words of each target URL's path to its segment
	// ("/corba/intro.html" gives corba, intro).
	URLTokens bool
	// StopWords drops English stop words from the token stream, the
	// anchors and the URL tokens.
	StopWords bool
	// MaxTokens caps the words read from one page; the rest of the page is
	// ignored and Page.Truncated is set. Values ≤ 0 mean DefaultMaxTokens.
	MaxTokens int
	// MaxLinks caps the links read from one page in the same way. Values
	// ≤ 0 mean DefaultMaxLinks.
	MaxLinks int
}

func (o Options) window() int {
	switch {
	case o.Window == 0:
		return DefaultWindow
	case o.Window < 0:
		return 0
	}
	return o.Window
}

func (o Options) maxTokens() int {
	if o.MaxTokens <= 0 {
		return DefaultMaxTokens
	}
	return o.MaxTokens
}

func (o Options) maxLinks() int {
	if o.MaxLinks <= 0 {
		return DefaultMaxLinks
	}
	return o.MaxLinks
}

// Segment is the link context of one hyperlink: the words a reader sees on
// and around the link. Before, Anchor and After may share their backing
// array with Page.Tokens and with other segments; treat them as read-only.
type Segment struct {
	// URL is the absolute, normalized target.
	URL urlnorm.URL
	// Anchor holds the tokens inside the <a> element (for <area>, none),
	// then those of the alt text of images inside it, then those of its
	// title attribute.
	Anchor []string
	// Before holds up to Window tokens of the stream preceding the anchor.
	Before []string
	// After holds up to Window tokens of the stream following the anchor.
	After []string
	// Rel is the rel attribute, lower-cased, e.g. "nofollow".
	Rel string
	// URLTokens holds the words of the target's path, only when
	// Options.URLTokens is set.
	URLTokens []string
}

// Tokens appends Before, Anchor, After and URLTokens to dst and returns the
// extended slice: the segment as one document.
func (s Segment) Tokens(dst []string) []string {
	dst = append(dst, s.Before...)
	dst = append(dst, s.Anchor...)
	dst = append(dst, s.After...)
	return append(dst, s.URLTokens...)
}

// Page is one HTML page split into its visible text and its link segments.
type Page struct {
	// URL is the page URL given to Split.
	URL urlnorm.URL
	// Base is the URL relative links are resolved against: the first
	// <base href> resolved against URL, or URL.
	Base urlnorm.URL
	// Title is the text of the first <title>, white space collapsed. It is
	// not part of Text or Tokens.
	Title string
	// Text is the visible text with white space collapsed to single spaces
	// and typographic quotes folded to ASCII, as the tokenizer sees it.
	// Separate text nodes are separated by a space.
	Text string
	// Tokens are the tokens of Text in order; without Options.StopWords
	// and unless Truncated they equal Tokenize(Text, nil).
	Tokens []string
	// Segments holds one segment per link, in document order; a target
	// linked several times has several segments.
	Segments []Segment
	// Charset is the canonical name of the encoding the body was decoded
	// from.
	Charset string
	// Dropped counts links without a segment: empty or fragment-only
	// references, non-HTTP schemes (javascript:, mailto:, tel:, data:, ftp:
	// …) and references that do not parse.
	Dropped int
	// Truncated reports that Options.MaxTokens or Options.MaxLinks stopped
	// the reading of the page.
	Truncated bool
}

// Split decodes an HTML page (see Decode), reads its visible text and its
// <a href> and <area href> links in one streaming pass, and returns the
// page with a segment per link. pageURL is the final URL of the page; a
// zero pageURL leaves only absolute links. A body whose Content-Type is
// text/plain is read as text without markup and has no links.
//
// Text inside script, style, noscript, template, iframe, noembed and
// noframes elements and comments is skipped. Every tag is a word boundary.
// An <a> ends at </a>, at the next <a> or at the end of the page.
//
// Split returns an error wrapping ErrBinary or ErrCharset when the body is
// not text; any HTML, however broken, gives a page.
func Split(body []byte, contentType string, pageURL urlnorm.URL, opts Options) (*Page, error) {
	doc, cs, err := Decode(body, contentType)
	if err != nil {
		return nil, fmt.Errorf("split page %q: %w", pageURL.String(), err)
	}
	s := splitter{
		opts:      opts,
		maxTokens: opts.maxTokens(),
		maxLinks:  opts.maxLinks(),
		open:      -1,
		// Room for the visible text: half the page, but no more than
		// MaxTokens words of about eight bytes hold.
		text: make([]byte, 0, min(len(doc)/2, 8*opts.maxTokens())),
	}
	if mediaType, _ := parseContentType(contentType); mediaType == "text/plain" {
		s.addText(doc)
	} else {
		s.parse(doc)
	}
	return s.page(pageURL, cs), nil
}

// splitter is the state of one pass over a page.
type splitter struct {
	opts      Options
	maxTokens int
	maxLinks  int

	text  []byte // visible text so far, collapsed and sanitized
	space bool   // a separator is due before the next visible character
	words int    // pieces of non-space text in text

	title     []byte
	inTitle   bool // the next text token is the title
	titleSeen bool
	skipText  bool // the next text token is the content of a skipped element
	template  int  // depth of open <template> elements

	base     string
	haveBase bool

	links []link
	open  int   // index in links of the open <a>, or -1
	marks []int // offsets in text at which links start and end

	truncated bool
}

// link is a link as found, before its URL is resolved and its tokens are
// known. start and end index marks.
type link struct {
	href, rel  string
	start, end int
	alt, title []string
}

// mark records the current end of the text and returns its index.
func (s *splitter) mark() int {
	s.marks = append(s.marks, len(s.text))
	return len(s.marks) - 1
}

// maxTokenBytes bounds one token of a page (a run of text, a tag with
// its attributes, a comment, a script): the tokenizer holds a token
// whole, and a longer one ends the reading of the page, which is then
// Truncated. A run of text this long holds more words than a page is
// read for by default (DefaultMaxTokens, at about eight bytes a word).
const maxTokenBytes = 4 << 20

func (s *splitter) parse(doc []byte) {
	z := html.NewTokenizer(bytes.NewReader(doc))
	z.SetMaxBuf(maxTokenBytes)
	for !s.truncated {
		tt := z.Next()
		skip, title := s.skipText, s.inTitle
		s.skipText, s.inTitle = false, false
		switch tt {
		case html.ErrorToken:
			if errors.Is(z.Err(), html.ErrBufferExceeded) {
				s.truncated = true
			}
			s.closeAnchor()
			return
		case html.TextToken:
			switch {
			case skip || s.template > 0:
			case title:
				s.title = appendCollapsed(nil, z.Text())
			default:
				s.addText(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			s.startTag(z)
		case html.EndTagToken:
			switch tagName(z.Raw()) {
			case "a":
				s.closeAnchor()
			case "template":
				if s.template > 0 {
					s.template--
				}
			}
		}
	}
	s.closeAnchor()
}

// attrs holds the attributes of one tag that Split uses.
type attrs struct {
	href, rel, title, alt string
	hasHref               bool
}

func readAttrs(z *html.Tokenizer, more bool) attrs {
	var a attrs
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "href":
			if !a.hasHref {
				a.href, a.hasHref = string(v), true
			}
		case "rel":
			a.rel = strings.Join(strings.Fields(strings.ToLower(string(v))), " ")
		case "title":
			a.title = string(v)
		case "alt":
			a.alt = string(v)
		}
	}
	return a
}

// tagName returns the lower-cased name of a raw start or end tag if it is
// one Split acts on, or "". Reading it from the raw bytes spares the copy
// that html.Tokenizer.TagName makes of every tag name.
func tagName(raw []byte) string {
	i := 1
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	var buf [8]byte
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '/' || c == '>' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			break
		}
		if n == len(buf) {
			return ""
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	switch string(buf[:n]) {
	case "a":
		return "a"
	case "area":
		return "area"
	case "img":
		return "img"
	case "base":
		return "base"
	case "script":
		return "script"
	case "style":
		return "style"
	case "noscript":
		return "noscript"
	case "iframe":
		return "iframe"
	case "noembed":
		return "noembed"
	case "noframes":
		return "noframes"
	case "title":
		return "title"
	case "template":
		return "template"
	}
	return ""
}

func (s *splitter) startTag(z *html.Tokenizer) {
	name := tagName(z.Raw())
	if name == "" {
		return
	}
	more := true // TagAttr reports when there are none
	switch name {
	case "a":
		if s.template > 0 {
			return
		}
		s.closeAnchor()
		a := readAttrs(z, more)
		if !a.hasHref || !s.roomForLink() {
			return
		}
		s.links = append(s.links, link{
			href: a.href, rel: a.rel, start: s.mark(), end: -1,
			title: s.tokens(a.title),
		})
		s.open = len(s.links) - 1
	case "area":
		if s.template > 0 {
			return
		}
		a := readAttrs(z, more)
		if !a.hasHref || !s.roomForLink() {
			return
		}
		m := s.mark()
		s.links = append(s.links, link{
			href: a.href, rel: a.rel, start: m, end: m,
			alt: s.tokens(a.alt), title: s.tokens(a.title),
		})
	case "img":
		if s.open >= 0 && s.template == 0 {
			if a := readAttrs(z, more); a.alt != "" {
				l := &s.links[s.open]
				l.alt = append(l.alt, s.tokens(a.alt)...)
			}
		}
	case "base":
		if !s.haveBase && s.template == 0 {
			if a := readAttrs(z, more); a.hasHref {
				s.base, s.haveBase = a.href, true
			}
		}
	case "script", "style", "noscript", "iframe", "noembed", "noframes":
		s.skipText = true
	case "title":
		// Only the first title names the page; later ones (inside SVG,
		// say) are not displayed either.
		if !s.titleSeen {
			s.inTitle, s.titleSeen = true, true
		} else {
			s.skipText = true
		}
	case "template":
		s.template++
	}
}

func (s *splitter) roomForLink() bool {
	if len(s.links) >= s.maxLinks {
		s.truncated = true
		return false
	}
	return true
}

func (s *splitter) closeAnchor() {
	if s.open >= 0 {
		s.links[s.open].end = s.mark()
		s.open = -1
	}
}

// tokens tokenizes an attribute value, without stop words if so asked.
func (s *splitter) tokens(v string) []string {
	if v == "" {
		return nil
	}
	toks := Tokenize(v, nil)
	if s.opts.StopWords {
		toks = dropStopWords(toks, 0)
	}
	return toks
}

// addText appends one text node to the visible text: runs of white space
// and NUL bytes become one space, typographic quotes and the
// literal "&rsquo;" become ASCII quotes (as the tokenizer's sanitizing
// step would make them), and a separator follows, since every tag is a
// word boundary.
func (s *splitter) addText(b []byte) {
	t := s.text
	for i := 0; i < len(b); {
		c := b[i]
		size := 1
		out := c
		switch {
		case c < utf8.RuneSelf:
			if asciiSpace[c] || c == 0 {
				s.space = true
				i++
				continue
			}
			if c == '&' && bytes.HasPrefix(b[i:], []byte("&rsquo;")) {
				out, size = '\'', 7
			}
		default:
			var r rune
			r, size = utf8.DecodeRune(b[i:])
			if unicode.IsSpace(r) {
				s.space = true
				i += size
				continue
			}
			switch r {
			case '\u2018', '\u2019':
				out = '\''
			case '\u201c', '\u201d':
				out = '"'
			default:
				out = 0
			}
		}
		if s.space || len(t) == 0 {
			if len(t) > 0 {
				t = append(t, ' ')
			}
			s.space = false
			s.words++
			if s.words > s.maxTokens {
				s.truncated = true
				break
			}
		}
		if out != 0 {
			t = append(t, out)
		} else {
			t = append(t, b[i:i+size]...)
		}
		i += size
	}
	s.text = t
	s.space = true
}

// appendCollapsed appends b to dst with runs of white space collapsed to
// one space and leading and trailing white space removed.
func appendCollapsed(dst, b []byte) []byte {
	space := false
	for _, f := range bytes.FieldsFunc(b, unicode.IsSpace) {
		if space {
			dst = append(dst, ' ')
		}
		dst = append(dst, f...)
		space = true
	}
	return dst
}

// page tokenizes the collected text, resolves the links and builds the
// segments.
func (s *splitter) page(pageURL urlnorm.URL, cs string) *Page {
	p := &Page{
		URL:       pageURL,
		Base:      pageURL,
		Title:     string(s.title),
		Text:      string(s.text),
		Charset:   cs,
		Truncated: s.truncated,
	}
	if s.haveBase {
		if b, err := pageURL.Resolve(cleanHref(s.base)); err == nil {
			p.Base = b
		}
	}

	// Tokenize the text range by range so that the token index of every
	// mark is known.
	t := newTokenizer(p.Text, make([]string, 0, min(s.words+s.words/8+8, s.maxTokens)), s.maxTokens)
	at := make([]int, len(s.marks))
	prev := 0
	for i, off := range s.marks {
		s.run(t, prev, off)
		at[i] = len(t.dst)
		prev = off
	}
	s.run(t, prev, len(p.Text))
	p.Tokens = t.dst
	if t.full() {
		p.Truncated = true
	}

	w := s.opts.window()
	toks := p.Tokens
	p.Segments = make([]Segment, 0, len(s.links))
	for _, l := range s.links {
		u, ok := resolve(p.Base, l.href)
		if !ok {
			p.Dropped++
			continue
		}
		start, end := at[l.start], at[l.end]
		seg := Segment{URL: u, Rel: l.rel}
		seg.Before = window(toks, max(0, start-w), start)
		seg.After = window(toks, end, min(len(toks), end+w))
		seg.Anchor = window(toks, start, end)
		if len(l.alt)+len(l.title) > 0 {
			a := make([]string, 0, len(seg.Anchor)+len(l.alt)+len(l.title))
			a = append(a, seg.Anchor...)
			a = append(a, l.alt...)
			seg.Anchor = append(a, l.title...)
		}
		if s.opts.URLTokens {
			seg.URLTokens = urlTokens(u)
			if s.opts.StopWords {
				seg.URLTokens = dropStopWords(seg.URLTokens, 0)
			}
		}
		p.Segments = append(p.Segments, seg)
	}
	return p
}

// run tokenizes one range of the text, dropping stop words if so asked.
func (s *splitter) run(t *tokenizer, from, to int) {
	n := len(t.dst)
	t.run(from, to)
	if s.opts.StopWords {
		t.dst = dropStopWords(t.dst, n)
	}
}

// window returns toks[lo:hi] with its capacity clipped, so that appending
// to it cannot overwrite the tokens that follow, or nil when it is empty.
func window(toks []string, lo, hi int) []string {
	if lo >= hi {
		return nil
	}
	return toks[lo:hi:hi]
}

// cleanHref removes what browsers ignore in a URL attribute: tab and
// newline characters anywhere, and leading and trailing spaces and
// control characters.
func cleanHref(h string) string {
	if strings.ContainsAny(h, "\t\n\r") {
		h = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, h)
	}
	return strings.TrimFunc(h, func(r rune) bool { return r <= ' ' })
}

// resolve turns an href into the link's target, or reports that the link
// is dropped: empty and fragment-only references point back at the page,
// and references that urlnorm rejects are not HTTP links.
func resolve(base urlnorm.URL, href string) (urlnorm.URL, bool) {
	href = cleanHref(href)
	if href == "" || href[0] == '#' {
		return urlnorm.URL{}, false
	}
	u, err := base.Resolve(href)
	if err != nil {
		return urlnorm.URL{}, false
	}
	return u, true
}

// urlTokens returns the lower-cased words (runs of letters and digits) of
// u's unescaped path, without the extension of its last segment.
func urlTokens(u urlnorm.URL) []string {
	path := u.Path()
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	slash := strings.LastIndexByte(path, '/')
	if dot := strings.LastIndexByte(path[slash+1:], '.'); dot > 0 {
		path = path[:slash+1+dot]
	}
	var out []string
	for _, f := range strings.FieldsFunc(path, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		out = append(out, strings.ToLower(f))
	}
	return out
}
