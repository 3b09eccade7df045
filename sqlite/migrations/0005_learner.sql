-- The state of a crawl's link learner (crawler.Learner.MarshalState),
-- saved as the crawl goes so that a resumed crawl scores as the stopped
-- one did.
CREATE TABLE learners (
	crawl_id INTEGER PRIMARY KEY REFERENCES crawls(id),
	state    BLOB NOT NULL,
	saved_at TEXT NOT NULL
);
