-- The refresh schedule: for every page a scheduler watches, when it is
-- next due and what it was last placed in. It is written in the same
-- transaction as the change-log row of the check that set it, so that a
-- scheduler killed at any moment resumes with each page's next check
-- exactly once.
CREATE TABLE refresh_schedule (
	page_id   INTEGER PRIMARY KEY REFERENCES pages(id),
	next_due  TEXT NOT NULL,           -- UTC, fixed width (as change_log)
	rate      REAL NOT NULL,           -- estimated changes per week
	grp       TEXT NOT NULL,           -- revisit group: G1 … G14, 2G1, 4G1
	hour      INTEGER NOT NULL,        -- hour of day (UTC) to collect at, -1: any
	gone      INTEGER NOT NULL DEFAULT 0 -- 1 after a 410: not checked again
);
CREATE INDEX refresh_schedule_due ON refresh_schedule(next_due);
