-- Which process runs a crawl: a second process refuses to run the same
-- crawl while the lease is held. The holder renews expires_at while it
-- runs and deletes the row when it closes the store; a lease whose
-- process is gone (same host, no such pid) or that expired is taken over.
CREATE TABLE crawl_leases (
	crawl_id   INTEGER PRIMARY KEY REFERENCES crawls(id),
	holder     TEXT NOT NULL,   -- random id of the holding store
	host       TEXT NOT NULL,
	pid        INTEGER NOT NULL,
	started_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
