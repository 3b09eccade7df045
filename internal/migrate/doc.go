// Package migrate reads a store's schema migrations: SQL files named
// NNNN_name.sql, numbered from 1 without a gap, applied in that order.
package migrate
