-- Near-duplicate detection (min-hash) and the search index.

-- The min-hash parameters (minhash.Params.MarshalText) every signature and
-- key of this database was made with; at most one row.
CREATE TABLE dedup_params (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	params TEXT NOT NULL
);

-- Pages indexed as originals, in insertion order (seq): the earliest
-- inserted page is the original of its near-duplicates. page_id is a
-- pages.id for the store's own index, but the table does not require it.
CREATE TABLE dedup_pages (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	page_id INTEGER NOT NULL UNIQUE,
	f0 INTEGER NOT NULL, f1 INTEGER NOT NULL, f2 INTEGER NOT NULL,
	f3 INTEGER NOT NULL, f4 INTEGER NOT NULL, f5 INTEGER NOT NULL
);

-- The 15 keys of every indexed page, by minhash.Key.Hash; a hash match is
-- confirmed against the features in dedup_pages.
CREATE TABLE dedup_keys (
	hash INTEGER NOT NULL,
	seq  INTEGER NOT NULL,
	PRIMARY KEY (hash, seq)
) WITHOUT ROWID;

-- signature: minhash.Signature.MarshalBinary of the page's text (NULL for
-- failed pages); duplicate_of: the original page when this one is a
-- near-duplicate.
ALTER TABLE pages ADD COLUMN signature BLOB;
ALTER TABLE pages ADD COLUMN duplicate_of INTEGER REFERENCES pages(id);
CREATE INDEX pages_duplicate_of ON pages(duplicate_of) WHERE duplicate_of IS NOT NULL;

-- Full-text index of the title and text of stored pages that are not
-- near-duplicates; docid is pages.id.
CREATE VIRTUAL TABLE search USING fts4(title, text, tokenize=unicode61);
