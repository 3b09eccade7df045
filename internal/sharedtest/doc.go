// Package sharedtest finds the data that tests share with the project
// without being part of it: the ../shared folder beside the module root,
// with the real corpus and change history. Tests that need it skip with a
// message when it is absent, so "go test ./..." passes on any clone.
package sharedtest
