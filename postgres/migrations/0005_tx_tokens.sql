-- One row per write transaction of the store, inserted first in it: when
-- the connection is lost during COMMIT, the transaction may or may not
-- have committed, and the row (visible, or its insert blocked until the
-- first attempt ends) tells the retry which. keep_until is when no retry
-- can still ask: the rows past it are swept.
CREATE TABLE tx_tokens (
	token      bigint PRIMARY KEY,
	keep_until timestamptz NOT NULL
);
CREATE INDEX tx_tokens_keep ON tx_tokens(keep_until);
