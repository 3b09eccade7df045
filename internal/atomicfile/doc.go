// Package atomicfile writes files so that a crash never leaves a
// half-written one: the data goes to a temporary file in the same folder,
// which is synced and renamed over the target (Write). What is not a
// regular file (a device such as /dev/null, a pipe) is written to as it
// is, never replaced. A temporary file is named after the target, the
// host and the writing process (".report.md.HOST.PID-RANDOM"), so that the
// next write of the target removes those of writers killed before they
// could (kill -9), and only those.
package atomicfile
