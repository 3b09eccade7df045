-- Revisits: page versions and the change log.
--
-- A page's first version is its row in pages. When a revisit finds new
-- content, the first version is copied here as version 1 (if not yet) and
-- the new one is added as the next version, so that page_versions holds
-- the whole history of every page that ever changed; pages is left as the
-- crawl stored it. The change columns measure the change from the previous
-- version (IED with costs s and t); they are NULL on version 1.
-- Times here are UTC with a fixed width (nanoseconds), so that they sort as
-- text.
CREATE TABLE page_versions (
	id           INTEGER PRIMARY KEY,
	page_id      INTEGER NOT NULL REFERENCES pages(id),
	version      INTEGER NOT NULL,   -- from 1
	fetched_at   TEXT NOT NULL,
	status       INTEGER NOT NULL,
	size         INTEGER NOT NULL,   -- body bytes
	content_type TEXT NOT NULL,
	etag         TEXT NOT NULL,
	modified     TEXT NOT NULL,      -- Last-Modified as sent
	content_hash TEXT NOT NULL,      -- hex SHA-256 of the body
	title        TEXT NOT NULL,
	text         TEXT NOT NULL,      -- extracted text, as in pages
	adds         INTEGER,
	copies       INTEGER,
	drops        INTEGER,
	shrinks      INTEGER,
	replaces     INTEGER,
	moves        INTEGER,
	delta        REAL,               -- δ_E
	distance     REAL,               -- D_IED
	cost_s       REAL,
	cost_t       REAL,
	UNIQUE (page_id, version)
);

-- One row per check of a page, changed or not, failed or not: what
-- revisit scheduling learns from.
CREATE TABLE change_log (
	id           INTEGER PRIMARY KEY,
	page_id      INTEGER NOT NULL REFERENCES pages(id),
	checked_at   TEXT NOT NULL,
	url          TEXT NOT NULL,
	status       INTEGER NOT NULL,   -- 0 when no response was received
	fetched_size INTEGER NOT NULL,   -- body bytes received (0 for a 304)
	update_size  REAL NOT NULL,      -- δ_E of the change, 0 when unchanged
	changed      INTEGER NOT NULL,   -- 1 when the content hash differs
	version      INTEGER NOT NULL,   -- the page's latest version after the check
	failure      TEXT NOT NULL       -- empty unless the check failed
);
CREATE INDEX change_log_page ON change_log(page_id, checked_at);
CREATE INDEX change_log_time ON change_log(checked_at);
