-- The refresh schedule of scent revisit --watch, as the SQLite store keeps
-- it (its migration 0008_refresh.sql): for every page a scheduler watches,
-- when it is next due and what it was last placed in. It is written in the
-- same transaction as the change-log row of the check that set it, so that
-- a scheduler killed at any moment resumes with each page's next check
-- exactly once.
CREATE TABLE refresh_schedule (
	page_id  bigint PRIMARY KEY REFERENCES pages(id),
	next_due timestamptz NOT NULL,
	rate     double precision NOT NULL, -- estimated changes per week
	grp      text NOT NULL,             -- revisit group: G1 … G14, 2G1, 4G1
	hour     integer NOT NULL,          -- hour of day (UTC) to collect at, -1: any
	gone     boolean NOT NULL DEFAULT false -- after a 410: not checked again
);
CREATE INDEX refresh_schedule_due ON refresh_schedule(next_due);
