// Package webkb reads labelled collections in WebKB's layout
// (LABEL/GROUP/URL, every '/' of the URL written '^'): WebKB's labels and
// groups in order of precedence (Labels, Groups, and Options, with which
// Open reads a collection through replay); the home pages of a
// collection's sites, the natural seeds of a crawl of it (SiteSeeds:
// found by where each group's pages lie, so that any collection in the
// layout has them, and WebKB's are its four department home pages); the
// group a model learns from by default, the one that is not a site
// (Group: WebKB's misc); the seed file of an experiment (the seeds, one
// group's pages labelled with the topics as examples, its "other" pages
// as negatives and its pages of the other labels as negatives of their
// kind, or all of them so when none is labelled other; a label that is
// no class name is given one of its own, Renamed); and
// the labels of the pages reachable from the seeds, the targets of a
// crawl. The collection itself is read and served by replay, its link
// graph analysed by linkgraph.
package webkb
