-- A bounded frontier and compact links.

-- URLs of a host waiting to be fetched, and new URLs of the host that were
-- not queued because the frontier was full (crawler.Config.MaxFrontierPerHost,
-- MaxFrontier).
ALTER TABLE hosts ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
INSERT INTO hosts(crawl_id, host, pages, waiting)
	SELECT crawl_id, host, 0, COUNT(*) FROM urls WHERE state = 0 GROUP BY crawl_id, host
	ON CONFLICT(crawl_id, host) DO UPDATE SET waiting = excluded.waiting;

-- The links of a fetched page, in page order, as one compressed list
-- (see pagelinks.go), in the page's own row: it replaces the table links,
-- one row a link, whose rows are moved here when a database is migrated.
ALTER TABLE pages ADD COLUMN links BLOB;

-- URLs of a crawl waiting to be fetched, in all.
ALTER TABLE crawls ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
UPDATE crawls SET waiting = (SELECT COUNT(*) FROM urls WHERE urls.crawl_id = crawls.id AND urls.state = 0);

-- The full-text index keeps no copy of the text: it reads title and text
-- from pages (an external-content FTS4 table; a page's text never
-- changes once stored). The pages indexed before are indexed again.
CREATE TEMP TABLE indexed AS SELECT docid AS id FROM search;
DROP TABLE search;
CREATE VIRTUAL TABLE search USING fts4(title, text, content="pages", tokenize=unicode61);
INSERT INTO search(docid, title, text) SELECT p.id, p.title, p.text FROM pages p JOIN indexed i ON i.id = p.id ORDER BY p.id;
DROP TABLE indexed;
