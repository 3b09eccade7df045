-- The pages a crawl's model and learner learnt from, as the SQLite store
-- keeps them (its migration 0018_learnt.sql): kept with the crawl so
-- that scent report counts none of them as found without being told
-- which they were. Every process of a shared crawl adds its list; the
-- lists of one crawl are the same.
CREATE TABLE learnt (
	crawl_id bigint NOT NULL REFERENCES crawls(id),
	url      text NOT NULL,
	PRIMARY KEY (crawl_id, url)
);
