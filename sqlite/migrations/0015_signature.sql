-- A page's min-hash signature is no longer kept in its row: it is the
-- signature of the page's text with the database's min-hash parameters
-- (dedup_params; crawler.Page.Signature), which Store.Signature computes
-- again. Near-duplicate detection keeps what it needs in dedup_pages and
-- dedup_keys.
ALTER TABLE pages DROP COLUMN signature;
