-- Sitemaps read during a crawl, each with the fetch that found its site,
-- and the URLs they list with their lastmod.
CREATE TABLE sitemaps (
	id       INTEGER PRIMARY KEY,
	crawl_id INTEGER NOT NULL REFERENCES crawls(id),
	page_id  INTEGER NOT NULL REFERENCES pages(id),
	url      TEXT NOT NULL,
	status   INTEGER NOT NULL,  -- 0 when no response was received
	is_index INTEGER NOT NULL,  -- 1 for a sitemap index
	entries  INTEGER NOT NULL,  -- URLs (or sitemaps) listed
	failure  TEXT NOT NULL      -- empty unless refused: "reason: detail"
);
CREATE INDEX sitemaps_crawl ON sitemaps(crawl_id);

CREATE TABLE sitemap_urls (
	sitemap_id INTEGER NOT NULL REFERENCES sitemaps(id),
	url        TEXT NOT NULL,
	lastmod    TEXT             -- NULL when the sitemap gives none
);
CREATE INDEX sitemap_urls_url ON sitemap_urls(url);
