package crawler

// budget counts a crawl's fetches against its limits (Config.MaxPages,
// MaxFetches, MaxPagesPerTopic). A fetch in flight or waiting to be
// committed may still fail and give its place back, so the checks take
// the number of such fetches (queued).
type budget struct {
	maxPages, maxFetches, maxPerTopic int
	total, succeeded                  int            // committed, all runs
	byTopic                           map[string]int // committed per stack, all runs
	taken                             map[string]int // taken from each stack, not yet committed
}

func newBudget(cfg Config, st CrawlState) *budget {
	b := &budget{maxPages: cfg.MaxPages, maxFetches: cfg.MaxFetches, maxPerTopic: cfg.MaxPagesPerTopic,
		total: st.Fetched, succeeded: st.Succeeded, byTopic: st.ByTopic, taken: make(map[string]int)}
	if b.byTopic == nil {
		b.byTopic = make(map[string]int)
	}
	return b
}

// open reports whether another fetch fits, with queued not yet counted.
func (b *budget) open(queued int) bool {
	return (b.maxPages == 0 || b.succeeded+queued < b.maxPages) &&
		(b.maxFetches == 0 || b.total+queued < b.maxFetches)
}

// room is how many more fetches the limits allow now, with queued not
// yet counted (a large number without limits).
func (b *budget) room(queued int) int {
	n := 1 << 20
	if b.maxPages > 0 {
		n = min(n, b.maxPages-b.succeeded-queued)
	}
	if b.maxFetches > 0 {
		n = min(n, b.maxFetches-b.total-queued)
	}
	return n
}

// topicRooms is how many more fetches each topic's stack may give now
// (0 or less: none), or nil without MaxPagesPerTopic: a snapshot for a
// pop made on another goroutine (the committer's).
func (b *budget) topicRooms(topics []string) map[string]int {
	if b.maxPerTopic == 0 {
		return nil
	}
	out := make(map[string]int, len(topics))
	for _, t := range topics {
		out[t] = b.maxPerTopic - b.byTopic[t] - b.taken[t]
	}
	return out
}

// commit counts a committed fetch.
func (b *budget) commit(p *Page) {
	b.total++
	b.byTopic[p.Topic]++
	if p.Failure == "" {
		b.succeeded++
	}
}
