-- A learner's state is kept in parts of at most maxLearnerPart bytes
-- (crawl.go), in order, instead of one value: SQLite copies a value it
-- is given and again the row it makes of it, so a learner's memory of
-- 15 MB saved whole once a minute made it allocate 30 MB at a time,
-- which the C allocator kept for good in one more of its arenas at
-- almost every save. A state saved before is one part until the next
-- save.
CREATE TABLE learner_parts (
	crawl_id INTEGER NOT NULL REFERENCES crawls(id),
	part     INTEGER NOT NULL,
	data     BLOB NOT NULL,
	PRIMARY KEY (crawl_id, part)
);
INSERT INTO learner_parts(crawl_id, part, data) SELECT crawl_id, 0, state FROM learners;
ALTER TABLE learners DROP COLUMN state;
