// Package collectiontest writes small labelled collections for tests of
// the replay and of experiments over it.
package collectiontest
