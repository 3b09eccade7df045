-- Crawls, their frontier and visited set, fetched pages and their links.
CREATE TABLE crawls (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	strategy    TEXT NOT NULL,
	stacks      TEXT NOT NULL,  -- JSON array
	topics      TEXT NOT NULL,  -- JSON array, the order of score columns
	config      TEXT NOT NULL,  -- JSON
	created_at  TEXT NOT NULL,
	finished_at TEXT,
	finish      TEXT
);

-- One row per URL known to a crawl: the visited set.
-- state: 0 waiting, 1 leased to a fetch, 2 fetched.
CREATE TABLE urls (
	id       INTEGER PRIMARY KEY,
	crawl_id INTEGER NOT NULL REFERENCES crawls(id),
	url      TEXT NOT NULL,
	host     TEXT NOT NULL,
	state    INTEGER NOT NULL DEFAULT 0,
	topic    TEXT,     -- stack of the lease
	depth    INTEGER,
	score    REAL,
	UNIQUE (crawl_id, url)
);
CREATE INDEX urls_leased ON urls(crawl_id, state) WHERE state = 1;

-- The per-topic stacks (or the bfs queue).
CREATE TABLE frontier (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	crawl_id INTEGER NOT NULL,
	topic    TEXT NOT NULL,
	url_id   INTEGER NOT NULL REFERENCES urls(id),
	depth    INTEGER NOT NULL,
	score    REAL NOT NULL,
	UNIQUE (crawl_id, topic, url_id)
);
CREATE INDEX frontier_stack ON frontier(crawl_id, topic, seq);
CREATE INDEX frontier_best ON frontier(crawl_id, topic, score);

-- Pages fetched per host, for the per-host cap.
CREATE TABLE hosts (
	crawl_id INTEGER NOT NULL,
	host     TEXT NOT NULL,
	pages    INTEGER NOT NULL,
	PRIMARY KEY (crawl_id, host)
) WITHOUT ROWID;

CREATE TABLE pages (
	id           INTEGER PRIMARY KEY,
	crawl_id     INTEGER NOT NULL REFERENCES crawls(id),
	ord          INTEGER NOT NULL,   -- fetch order in the crawl, from 1
	url_id       INTEGER NOT NULL UNIQUE REFERENCES urls(id),
	url          TEXT NOT NULL,
	final_url    TEXT NOT NULL,
	topic        TEXT NOT NULL,      -- stack it was popped from
	depth        INTEGER NOT NULL,
	status       INTEGER NOT NULL,
	fetched_at   TEXT NOT NULL,
	duration_ms  REAL NOT NULL,
	size         INTEGER NOT NULL,
	content_type TEXT NOT NULL,
	etag         TEXT NOT NULL,
	modified     TEXT NOT NULL,
	content_hash TEXT NOT NULL,
	title        TEXT NOT NULL,
	text         TEXT NOT NULL,
	failure      TEXT NOT NULL,      -- empty when the page was fetched and parsed
	UNIQUE (crawl_id, ord)
);

CREATE TABLE page_scores (
	page_id  INTEGER NOT NULL REFERENCES pages(id),
	topic    TEXT NOT NULL,
	score    REAL NOT NULL,
	relevant INTEGER NOT NULL,
	PRIMARY KEY (page_id, topic)
) WITHOUT ROWID;

CREATE TABLE links (
	id       INTEGER PRIMARY KEY,
	page_id  INTEGER NOT NULL REFERENCES pages(id),
	target   TEXT NOT NULL,
	anchor   TEXT NOT NULL,
	context  TEXT NOT NULL,
	scores   TEXT NOT NULL   -- JSON array in the crawl's topic order, or empty
);
CREATE INDEX links_page ON links(page_id);
CREATE INDEX links_target ON links(target);
