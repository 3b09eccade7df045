-- frontier_shallow ordered every entry by depth, so every rescore of a
-- learning crawl and every push and pop wrote it, though only two reads
-- use it: a survey's few entries within crawler.SurveyDepth, and a
-- fallback stack's (reserve, parts: a name with "~") shallowest entry.
-- Two partial indexes hold just those entries. A query uses one only
-- when its WHERE holds the index's own term (depth <= 1,
-- instr(topic, '~') > 0), as popQuery's and surveyQuery's do.
DROP INDEX frontier_shallow;
CREATE INDEX frontier_survey ON frontier(crawl_id, topic, score) WHERE depth <= 1;
CREATE INDEX frontier_fallback ON frontier(crawl_id, topic, depth, score DESC, seq DESC) WHERE instr(topic, '~') > 0;
