-- frontier_shallow ordered every entry by depth, so every rescore of a
-- learning crawl and every push and pop wrote it, though only two reads
-- use it: a survey's few entries within crawler.SurveyDepth, and a
-- fallback stack's (crawler.Reserve, Parts) shallowest entries. Two
-- partial indexes hold just those entries. A query uses one only when
-- its WHERE holds the index's own term (depth <= 1, fallback = 1), as
-- popQuery's and surveyQuery's do. The fallback column marks a fallback
-- stack's entries: an index whose WHERE calls a function (instr(topic,
-- '~')) made every delete from the table four times slower with foreign
-- keys on.
ALTER TABLE frontier ADD COLUMN fallback INTEGER NOT NULL DEFAULT 0;
UPDATE frontier SET fallback = 1 WHERE instr(topic, '~') > 0;
DROP INDEX frontier_shallow;
CREATE INDEX frontier_survey ON frontier(crawl_id, topic, score) WHERE depth <= 1;
CREATE INDEX frontier_fallback ON frontier(crawl_id, topic, depth, score DESC, seq DESC) WHERE fallback = 1;
