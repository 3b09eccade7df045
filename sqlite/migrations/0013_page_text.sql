-- Page text stored compressed (see text.go): pages.text and
-- page_versions.text hold a BLOB, the text compressed with DEFLATE
-- against a preset dictionary, or the text itself when that is not
-- shorter. The rows stored before are compressed after this SQL, in the
-- same transaction. The SQL function scent_text, which every connection
-- of scent has, gives back the text of either form; an older scent,
-- which has no such function, refuses the database by its version.
CREATE VIEW page_texts(rowid, title, text) AS SELECT id, title, scent_text(text) FROM pages;

-- The full-text index reads title and text through the view. The pages
-- indexed before (one row each in search_docsize) are indexed again.
CREATE TEMP TABLE indexed AS SELECT docid AS id FROM search_docsize;
DROP TABLE search;
CREATE VIRTUAL TABLE search USING fts4(title, text, content="page_texts", tokenize=unicode61);
INSERT INTO search(docid, title, text) SELECT p.id, p.title, scent_text(p.text) FROM pages p JOIN indexed i ON i.id = p.id ORDER BY p.id;
DROP TABLE indexed;
