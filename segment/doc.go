// Package segment turns one fetched HTML page into the words it shows and
// the link context of each of its hyperlinks, the input of the focused
// crawler's classifier.
//
// Data flows through it in one pass per page:
//
//	body, Content-Type
//	  → Decode: charset from BOM, header, <meta> or the bytes → UTF-8
//	  → Split: html.Tokenizer stream; visible text collected, links
//	    recorded with their positions in the text
//	  → Tokenize: the text, range by range between link positions
//	  → Page{Text, Tokens, Segments}: per link its anchor tokens, the
//	    Window tokens before and after it, and its resolved, normalized
//	    URL (urlnorm).
//
// The token stream holds the text a reader sees: the contents of script,
// style, noscript, template, iframe, noembed and noframes elements and of
// comments are skipped, and so is the page title, which goes to
// Page.Title instead (head text would otherwise open every page's stream
// with the same words). Every tag ends a word.
//
// Tokens are those of the prose tokenizer (github.com/jdkato/prose/v2),
// lower-cased, without tokens that have no letter or digit. Tokenize gives
// exactly those tokens several times faster than prose; ProseTokenize is
// the reference it is tested against, on every page of the WebKB corpus
// and by fuzzing. Words are separated by white space, so Korean and other
// scripts that space their words tokenize into words.
//
// Bad input gives errors, never panics: a body that is not text gives
// ErrBinary, one in an encoding that cannot be decoded ErrCharset, and a
// huge page is read only up to Options.MaxTokens words and
// Options.MaxLinks links. All work is linear in the size of the page.
package segment
