// Package webkb holds what is particular to the WebKB collection when a
// crawl is measured on it: the seed file of an experiment (the four
// department home pages as crawl seeds, one group's pages labelled with
// the topics as examples, its "other" pages, or every other page, as
// negatives) and the labels of the pages reachable from those seeds, the
// targets of a crawl. The collection itself is read and served by replay.
package webkb
