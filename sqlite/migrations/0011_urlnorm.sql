-- Redirect aliases and site-based URL normalization.

-- A fetch answered by a redirect: url is an alias of target, which the
-- crawl fetches (once) under its own URL. page_id is the fetch's record.
CREATE TABLE aliases (
	crawl_id INTEGER NOT NULL REFERENCES crawls(id),
	url      TEXT NOT NULL,
	target   TEXT NOT NULL,
	status   INTEGER NOT NULL,
	page_id  INTEGER NOT NULL REFERENCES pages(id),
	PRIMARY KEY (crawl_id, url)
) WITHOUT ROWID;
CREATE INDEX aliases_target ON aliases(crawl_id, target);

-- One measured pair of a host's tolerance sample: url fetched as is and
-- as normalized by ext ("EN1" … "EN6"), and the paper's outcome (loss,
-- gain, change, non-loss).
CREATE TABLE norm_pairs (
	id          INTEGER PRIMARY KEY,
	crawl_id    INTEGER NOT NULL REFERENCES crawls(id),
	host        TEXT NOT NULL,
	ext         TEXT NOT NULL,
	url         TEXT NOT NULL,
	normalized  TEXT NOT NULL,
	outcome     TEXT NOT NULL,
	present     INTEGER NOT NULL, -- p1 was present
	direct      INTEGER NOT NULL, -- u2 was served without a redirect
	fetches     INTEGER NOT NULL, -- requests the pair cost
	page_id     INTEGER REFERENCES pages(id), -- the fetch it was measured with
	detail      TEXT NOT NULL,
	measured_at TEXT NOT NULL
);
CREATE INDEX norm_pairs_host ON norm_pairs(crawl_id, host, ext);

-- A host's counts per extended normalization and its state (sampling,
-- adopted, rejected, dropped: sitenorm.State) as last decided at
-- measured_at; sampled and direct count the pairs the decision used.
CREATE TABLE norm_rules (
	crawl_id    INTEGER NOT NULL REFERENCES crawls(id),
	host        TEXT NOT NULL,
	ext         TEXT NOT NULL,
	loss        INTEGER NOT NULL,
	gain        INTEGER NOT NULL,
	change      INTEGER NOT NULL,
	nonloss     INTEGER NOT NULL,
	sampled     INTEGER NOT NULL,
	direct      INTEGER NOT NULL,
	state       TEXT NOT NULL,
	measured_at TEXT NOT NULL,
	PRIMARY KEY (crawl_id, host, ext)
) WITHOUT ROWID;

-- Pages too short to sign are compared by the SHA-256 of their body.
CREATE INDEX pages_content_hash ON pages(content_hash) WHERE failure = '';

-- One page per final URL: a page whose final URL is already stored becomes
-- an alias.
CREATE INDEX pages_final ON pages(crawl_id, final_url) WHERE failure = '';
