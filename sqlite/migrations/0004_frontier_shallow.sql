-- The order of a topic's reserve when a crawl tunnels: shallowest entry
-- first, the best scored among equally shallow ones, the latest among
-- equals (the columns' directions are those of Pop's ORDER BY, so a pop
-- reads the index in order without sorting).
CREATE INDEX frontier_shallow ON frontier(crawl_id, topic, depth, score DESC, seq DESC);
