-- The order of a topic's reserve when a crawl tunnels: shallowest entry
-- first, the best scored among equally shallow ones.
CREATE INDEX frontier_shallow ON frontier(crawl_id, topic, depth, score);
