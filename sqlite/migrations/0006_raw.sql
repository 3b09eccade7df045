-- Raw HTTP exchanges of fetched pages, one row per hop (redirects first):
-- the request and the response (status line, headers, body as received),
-- each compressed with DEFLATE (RFC 1951).
CREATE TABLE raw_exchanges (
	id            INTEGER PRIMARY KEY,
	page_id       INTEGER NOT NULL REFERENCES pages(id),
	hop           INTEGER NOT NULL,   -- 0 for the first request
	url           TEXT NOT NULL,      -- the request's target
	sent_at       TEXT NOT NULL,
	truncated     INTEGER NOT NULL,   -- 1 when the body was not read whole
	request       BLOB NOT NULL,
	response      BLOB NOT NULL,
	response_size INTEGER NOT NULL,   -- bytes of the response before compression
	UNIQUE (page_id, hop)
);
