// Command scent is a focused web crawler: it learns topics from example
// pages, crawls by the information scent of each link, stores what it
// collects in SQLite and reports precision, recall and harvest rate.
//
// Run "scent help" for the commands.
package main
