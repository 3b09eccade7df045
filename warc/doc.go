// Package warc writes and reads WARC 1.1 files (ISO 28500:2017), the
// archive format of web crawls.
//
// A Record is a version line, an ordered list of named fields and a block
// of bytes. A Writer serializes records, each compressed as a gzip member
// of its own so that any record can be read from its offset; it fills in
// the fields a record must have (WARC-Record-ID, WARC-Date,
// Content-Length) and the block digest (WARC-Block-Digest, sha1 in
// base32). A Reader gives the records of a file back, compressed or not,
// with the offset of each: writing what it read gives the same bytes.
//
// A Dir writes records into a directory of files, each starting with a
// warcinfo record and rotated when it grows past a size limit. The file
// being written is named *.warc.gz.open and renamed when it is closed;
// when a Dir is opened again after a crash, an open file left behind is
// cut back to its last complete record and closed, so that every file
// in the directory is valid.
package warc
