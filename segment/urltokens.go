package segment

import "github.com/scent-crawler/scent/urlnorm"

// URLTokens returns the words of u's path, lower-cased, without the file
// extension (/courses/CS101.html → courses, cs101): the features of a
// link whose only context is its URL, such as a sitemap's.
func URLTokens(u urlnorm.URL) []string { return urlTokens(u) }
