// Package minhashtest holds the behaviour suite that every implementation of
// minhash.Index must pass, whether it keeps its keys in memory or in a
// database.
//
// An implementation's tests call Run with a constructor of empty indexes;
// Run starts one subtest per rule of the Index contract and gives each a
// fresh index.
package minhashtest
