package replay

import (
	"bytes"
	"regexp"
	"strings"

	"golang.org/x/net/html"

	"github.com/scent-crawler/scent/urlnorm"
)

// linkAttrs maps the tags whose links a crawler follows to the attribute
// holding the link.
var linkAttrs = map[string]string{
	"a":      "href",
	"area":   "href",
	"frame":  "src",
	"iframe": "src",
}

// Links returns the http(s) URLs the page links to through <a href>,
// <area href>, <frame src> and <iframe src>, resolved against the page's
// <base href> if any or else its URL, normalized, without duplicates, in
// document order. Pages that are not HTML have no links; a stored redirect
// links to its Location.
func (p *Page) Links() []urlnorm.URL {
	var out []urlnorm.URL
	seen := make(map[urlnorm.URL]bool)
	add := func(base urlnorm.URL, ref string) {
		u, err := base.Resolve(ref)
		if err != nil || seen[u] {
			return
		}
		seen[u] = true
		out = append(out, u)
	}
	if p.Status != 200 {
		if loc := p.Header.Get("Location"); loc != "" {
			add(p.URL, loc)
		}
		return out
	}
	if !p.IsHTML() {
		return nil
	}
	base, baseSet := p.URL, false
	z := html.NewTokenizer(bytes.NewReader(p.Body()))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		tag := string(name)
		want, ok := linkAttrs[tag]
		if tag == "base" {
			want, ok = "href", !baseSet
		}
		if !ok {
			continue
		}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if string(k) != want {
				continue
			}
			ref := strings.TrimSpace(string(v))
			if tag == "base" {
				if b, err := p.URL.Resolve(ref); err == nil {
					base, baseSet = b, true
				}
			} else if ref != "" {
				add(base, ref)
			}
			break
		}
	}
}

// rawLinkRe matches the link attribute of a, area, frame, iframe and base
// tags anywhere in a document, comments and <noframes> included.
var rawLinkRe = regexp.MustCompile(`(?is)<(a|area|frame|iframe|base)\b[^>]*?\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)

// RawLinks is Links as a pattern-matching link extractor sees it, like the
// crawler that gathered the collection: every href or src attribute of an
// a, area, frame or iframe tag counts, also inside comments, <noframes> and
// other text an HTML parser does not read as tags. The first <base href>
// found is honoured.
func (p *Page) RawLinks() []urlnorm.URL {
	var out []urlnorm.URL
	seen := make(map[urlnorm.URL]bool)
	if p.Status != 200 {
		return p.Links()
	}
	if !p.IsHTML() {
		return nil
	}
	ms := rawLinkRe.FindAllSubmatch(p.Body(), -1)
	base := p.URL
	for _, m := range ms {
		if strings.EqualFold(string(m[1]), "base") {
			if b, err := p.URL.Resolve(string(m[2]) + string(m[3]) + string(m[4])); err == nil {
				base = b
			}
			break
		}
	}
	for _, m := range ms {
		if strings.EqualFold(string(m[1]), "base") {
			continue
		}
		ref := strings.TrimSpace(string(m[2]) + string(m[3]) + string(m[4]))
		if ref == "" {
			continue
		}
		u, err := base.Resolve(ref)
		if err != nil || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
	}
	return out
}
