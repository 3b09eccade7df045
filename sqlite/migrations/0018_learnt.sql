-- The pages a crawl's model and learner learnt from (crawler.CrawlSpec
-- .Learnt: its examples, negatives and the pages whose links it trained
-- on), kept with the crawl so that scent report counts none of them as
-- found without being told which they were.
CREATE TABLE learnt (
	crawl_id INTEGER NOT NULL REFERENCES crawls(id),
	url      TEXT NOT NULL,
	PRIMARY KEY (crawl_id, url)
) WITHOUT ROWID;
