// Package pgtest starts a real PostgreSQL server for tests: initdb and
// pg_ctl in a temporary directory, listening on a free loopback port, and
// a fresh database for every test that asks for one.
//
// A test binary starts at most one server, on first use, and stops it when
// Main returns; every test gets its own database (CREATE DATABASE), so
// tests do not see each other's rows. The binaries are looked up on PATH,
// then in /usr/lib/postgresql/*/bin; where they are absent the tests that
// need them skip with a message. initdb refuses to run as root, so as root
// the server runs as the unprivileged user postgres (or nobody), which owns
// the temporary directory.
package pgtest
