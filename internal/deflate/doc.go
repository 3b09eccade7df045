// Package deflate compresses many small values with DEFLATE (RFC 1951)
// at one level and preset dictionary, reusing a bounded set of writers.
//
// A DEFLATE writer holds hundreds of kilobytes of tables. A sync.Pool
// loses its writers at every garbage collection, so a crawl that
// compresses every exchange and page text would build new writers (and
// give the collector more to do) all the time; a Writers keeps up to its
// capacity of them for good.
package deflate
