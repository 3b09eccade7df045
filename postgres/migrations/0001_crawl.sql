-- Crawls, their frontier and visited set, the processes sharing them,
-- fetched pages, near-duplicate index and search.

-- waiting: URLs waiting to be fetched; fetched, succeeded: pages committed
-- (all, without failure); budget: successful pages the crawl may fetch
-- across all its processes (0: no bound).
CREATE TABLE crawls (
	id          bigserial PRIMARY KEY,
	name        text NOT NULL UNIQUE,
	strategy    text NOT NULL,
	stacks      text NOT NULL,  -- JSON array
	topics      text NOT NULL,  -- JSON array, the order of score columns
	config      text NOT NULL,  -- JSON
	created_at  timestamptz NOT NULL DEFAULT now(),
	finished_at timestamptz,
	finish      text,
	waiting     bigint NOT NULL DEFAULT 0,
	fetched     bigint NOT NULL DEFAULT 0,
	succeeded   bigint NOT NULL DEFAULT 0,
	budget      bigint NOT NULL DEFAULT 0
);

-- The processes working on a crawl. A holder renews expires_at while it
-- runs; the URLs leased by a holder whose time expired go back on their
-- stacks, to be served to the others.
CREATE TABLE holders (
	id         text PRIMARY KEY,
	crawl_id   bigint NOT NULL REFERENCES crawls(id),
	host       text NOT NULL,
	pid        integer NOT NULL,
	started_at timestamptz NOT NULL DEFAULT now(),
	expires_at timestamptz NOT NULL
);
CREATE INDEX holders_crawl ON holders(crawl_id, expires_at);

-- One row per URL known to a crawl: the visited set.
-- state: 0 waiting, 1 leased to a fetch (by holder), 2 fetched.
CREATE TABLE urls (
	id       bigserial PRIMARY KEY,
	crawl_id bigint NOT NULL REFERENCES crawls(id),
	url      text NOT NULL,
	host     text NOT NULL,
	state    smallint NOT NULL DEFAULT 0,
	topic    text,     -- stack of the lease
	depth    integer,
	score    double precision,
	holder   text,     -- holders.id of the lease
	UNIQUE (crawl_id, url)
);
CREATE INDEX urls_leased ON urls(crawl_id, holder) WHERE state = 1;

-- The per-topic stacks (or the bfs queue); seq orders them.
CREATE TABLE frontier (
	seq      bigserial PRIMARY KEY,
	crawl_id bigint NOT NULL,
	topic    text NOT NULL,
	url_id   bigint NOT NULL REFERENCES urls(id),
	depth    integer NOT NULL,
	score    double precision NOT NULL,
	UNIQUE (crawl_id, topic, url_id)
);
CREATE INDEX frontier_stack ON frontier(crawl_id, topic, seq);
CREATE INDEX frontier_best ON frontier(crawl_id, topic, score DESC, seq DESC);
CREATE INDEX frontier_shallow ON frontier(crawl_id, topic, depth, score DESC, seq DESC);

-- Per host: pages leased (for the per-host cap), URLs waiting and dropped
-- (the frontier's bounds), and when the host may next be fetched.
CREATE TABLE hosts (
	crawl_id bigint NOT NULL,
	host     text NOT NULL,
	pages    integer NOT NULL DEFAULT 0,
	waiting  integer NOT NULL DEFAULT 0,
	dropped  integer NOT NULL DEFAULT 0,
	next_at  timestamptz,
	PRIMARY KEY (crawl_id, host)
);

-- links: the page's links as a JSON array of [target, anchor, context,
-- scores]; signature: minhash.Signature.MarshalBinary; duplicate_of: the
-- original when this page is a near-duplicate; search: title and text of
-- originals for full-text search (NULL for the others).
CREATE TABLE pages (
	id           bigserial PRIMARY KEY,
	crawl_id     bigint NOT NULL REFERENCES crawls(id),
	ord          bigint,            -- fetch order in the crawl, from 1 (set as the commit ends)
	url_id       bigint NOT NULL UNIQUE REFERENCES urls(id),
	url          text NOT NULL,
	final_url    text NOT NULL,
	topic        text NOT NULL,
	depth        integer NOT NULL,
	status       integer NOT NULL,
	fetched_at   timestamptz NOT NULL,
	duration_ms  double precision NOT NULL,
	size         bigint NOT NULL,
	content_type text NOT NULL,
	etag         text NOT NULL,
	modified     text NOT NULL,
	content_hash text NOT NULL,
	title        text NOT NULL,
	text         text NOT NULL,
	failure      text NOT NULL,
	signature    bytea,
	duplicate_of bigint REFERENCES pages(id),
	links        jsonb,
	holder       text,              -- the process that fetched it
	search       tsvector,
	UNIQUE (crawl_id, ord)
);
CREATE INDEX pages_final ON pages(crawl_id, final_url) WHERE failure = '';
CREATE INDEX pages_content_hash ON pages(content_hash) WHERE failure = '';
CREATE INDEX pages_search ON pages USING gin(search);

CREATE TABLE page_scores (
	page_id  bigint NOT NULL REFERENCES pages(id),
	topic    text NOT NULL,
	score    double precision NOT NULL,
	relevant boolean NOT NULL,
	PRIMARY KEY (page_id, topic)
);

-- A fetch answered by a redirect: url is an alias of target.
CREATE TABLE aliases (
	crawl_id bigint NOT NULL REFERENCES crawls(id),
	url      text NOT NULL,
	target   text NOT NULL,
	status   integer NOT NULL,
	page_id  bigint NOT NULL REFERENCES pages(id),
	PRIMARY KEY (crawl_id, url)
);

-- The min-hash parameters of every signature and key; at most one row.
CREATE TABLE dedup_params (
	id     integer PRIMARY KEY CHECK (id = 1),
	params text NOT NULL
);

-- Pages indexed as originals in insertion order (seq) with their
-- features, and the 15 keys of each by minhash.Key.Hash.
CREATE TABLE dedup_pages (
	seq     bigserial PRIMARY KEY,
	page_id bigint NOT NULL UNIQUE,
	f0 bigint NOT NULL, f1 bigint NOT NULL, f2 bigint NOT NULL,
	f3 bigint NOT NULL, f4 bigint NOT NULL, f5 bigint NOT NULL
);
CREATE TABLE dedup_keys (
	hash bigint NOT NULL,
	seq  bigint NOT NULL,
	PRIMARY KEY (hash, seq)
);

-- The state of a crawl's link learner.
CREATE TABLE learners (
	crawl_id bigint PRIMARY KEY REFERENCES crawls(id),
	state    bytea NOT NULL,
	saved_at timestamptz NOT NULL
);

-- Models trained for a crawl, shared by its processes: the first one
-- stored under a name is the one every process uses.
CREATE TABLE models (
	name     text PRIMARY KEY,
	model    bytea NOT NULL,
	saved_at timestamptz NOT NULL DEFAULT now()
);
