-- Revisits: page versions and the change log, as the SQLite store keeps
-- them (its migration 0003_revisit.sql).
--
-- A page's first version is its row in pages. When a revisit finds new
-- content, the first version is copied here as version 1 (if not yet) and
-- the new one is added as the next version, so that page_versions holds
-- the whole history of every page that ever changed; pages is left as the
-- crawl stored it. The change columns measure the change from the previous
-- version (IED with costs s and t); they are NULL on version 1. Times are
-- timestamptz (microseconds).
CREATE TABLE page_versions (
	page_id      bigint NOT NULL REFERENCES pages(id),
	version      integer NOT NULL,   -- from 1
	fetched_at   timestamptz NOT NULL,
	status       integer NOT NULL,
	size         bigint NOT NULL,    -- body bytes
	content_type text NOT NULL,
	etag         text NOT NULL,
	modified     text NOT NULL,      -- Last-Modified as sent
	content_hash text NOT NULL,      -- hex SHA-256 of the body
	title        text NOT NULL,
	text         text NOT NULL,      -- extracted text, as in pages
	adds         integer,
	copies       integer,
	drops        integer,
	shrinks      integer,
	replaces     integer,
	moves        integer,
	delta        double precision,   -- δ_E
	distance     double precision,   -- D_IED
	cost_s       double precision,
	cost_t       double precision,
	PRIMARY KEY (page_id, version)
);

-- One row per check of a page, changed or not, failed or not: what
-- revisit scheduling learns from. id follows the order in which the
-- checks were recorded.
CREATE TABLE change_log (
	id           bigserial PRIMARY KEY,
	page_id      bigint NOT NULL REFERENCES pages(id),
	checked_at   timestamptz NOT NULL,
	url          text NOT NULL,
	status       integer NOT NULL,   -- 0 when no response was received
	fetched_size bigint NOT NULL,    -- body bytes received (0 for a 304)
	update_size  double precision NOT NULL, -- δ_E of the change, 0 when unchanged
	changed      boolean NOT NULL,   -- the content hash differs
	version      integer NOT NULL,   -- the page's latest version after the check
	failure      text NOT NULL       -- empty unless the check failed
);
CREATE INDEX change_log_page ON change_log(page_id, checked_at);
CREATE INDEX change_log_time ON change_log(checked_at);
