-- A URL stored once per fetch. pages.final_url is empty when the final
-- URL is the page's URL (no redirect), and raw_exchanges.url is empty
-- when the exchange's target is the page's URL (the first hop) or its
-- final URL (a later hop): readers take them from the page (see
-- finalURLColumn in read.go and completeFetch in raw.go).
UPDATE pages SET final_url = '' WHERE final_url = url;
UPDATE raw_exchanges SET url = '' WHERE url = (SELECT CASE WHEN raw_exchanges.hop = 0 THEN p.url
	WHEN p.final_url = '' THEN p.url ELSE p.final_url END FROM pages p WHERE p.id = raw_exchanges.page_id);

-- The successful pages of a crawl by final URL: only those reached
-- through a redirect are in the index; the others are found through
-- their URL (urls, then pages.url_id).
DROP INDEX pages_final;
CREATE INDEX pages_final ON pages(crawl_id, final_url) WHERE failure = '' AND final_url <> '';
