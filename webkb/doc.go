// Package webkb holds what is particular to the WebKB collection: its
// labels and groups in order of precedence (Labels, Groups, and Options,
// with which Open reads it through replay), the four department sites
// (DepartmentGroups) and their home pages (DepartmentSeeds), the seed file
// of an experiment (the department home pages as crawl seeds, one group's
// pages labelled with the topics as examples, its "other" pages, or every
// other page, as negatives) and the labels of the pages reachable from
// those seeds, the targets of a crawl. The collection itself is read and
// served by replay, its link graph analysed by linkgraph.
package webkb
