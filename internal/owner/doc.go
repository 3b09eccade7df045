// Package owner names the temporary files and folders a process makes
// after their maker, its host and process id (Tag), so that a later
// process can remove those whose maker was killed before it could (kill
// -9 runs no deferred removal) and leave alone those of a process still
// running or of another host (Dead). TempDir makes such a folder and
// removes the dead makers' folders of the same prefix first.
package owner
