package metrics

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/scent-crawler/scent/crawler"
)

// Metrics are the collectors of one crawl process.
type Metrics struct {
	reg       *prometheus.Registry
	fetches   *prometheus.CounterVec
	failures  *prometheus.CounterVec
	robots    prometheus.Counter
	stored    prometheus.Counter
	dups      prometheus.Counter
	bytes     prometheus.Counter
	latency   prometheus.Histogram
	topicPage *prometheus.CounterVec
	relevant  *prometheus.CounterVec
	harvest   *prometheus.GaugeVec
	frontier  *prometheus.GaugeVec
}

// New returns the metrics, registered with a registry of their own that
// also holds the Go runtime's and the process's collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scent_fetches_total",
			Help: "Fetches committed, by HTTP status class (2xx … 5xx; none when no response was received)."}, []string{"class"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scent_fetch_failures_total",
			Help: "Fetches recorded with a failure, by reason (robots, status, content-type, timeout …)."}, []string{"reason"}),
		robots: prometheus.NewCounter(prometheus.CounterOpts{Name: "scent_robots_refusals_total",
			Help: "Fetches refused by robots.txt."}),
		stored: prometheus.NewCounter(prometheus.CounterOpts{Name: "scent_pages_stored_total",
			Help: "Pages fetched and parsed successfully and stored."}),
		dups: prometheus.NewCounter(prometheus.CounterOpts{Name: "scent_duplicates_total",
			Help: "Stored pages found to be near-duplicates of an earlier page."}),
		bytes: prometheus.NewCounter(prometheus.CounterOpts{Name: "scent_body_bytes_total",
			Help: "Body bytes of the pages stored."}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "scent_fetch_duration_seconds",
			Help:    "Time of a fetch with a response, retries and politeness waits included.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12)}),
		topicPage: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scent_topic_pages_total",
			Help: "Pages stored that were taken from a topic's stack (or the bfs queue, topic \"\")."}, []string{"topic"}),
		relevant: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scent_topic_relevant_total",
			Help: "Pages stored that were taken from a topic's stack and that the classifier finds on-topic."}, []string{"topic"}),
		harvest: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "scent_harvest_rate",
			Help: "Per topic, on-topic pages over pages taken from its stack, this run."}, []string{"topic"}),
		frontier: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "scent_frontier_entries",
			Help: "URLs waiting per stack: a topic's stack, its reserve (topic~reserve) and parts, or the bfs queue."}, []string{"stack"}),
	}
	m.reg.MustRegister(m.fetches, m.failures, m.robots, m.stored, m.dups, m.bytes, m.latency,
		m.topicPage, m.relevant, m.harvest, m.frontier,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// observe counts one committed page.
func (m *Metrics) observe(p *crawler.Page, h *harvest) {
	class := "none"
	if p.Status > 0 {
		class = strconv.Itoa(p.Status/100) + "xx"
		m.latency.Observe(p.Duration.Seconds())
	}
	m.fetches.WithLabelValues(class).Inc()
	if p.Failure != "" {
		reason, _, _ := strings.Cut(p.Failure, ":")
		m.failures.WithLabelValues(reason).Inc()
		if reason == "robots" {
			m.robots.Inc()
		}
		return
	}
	m.stored.Inc()
	m.bytes.Add(float64(p.Size))
	m.topicPage.WithLabelValues(p.Topic).Inc()
	rel := p.Relevant[p.Topic]
	if rel {
		m.relevant.WithLabelValues(p.Topic).Inc()
	}
	if p.Topic != "" {
		m.harvest.WithLabelValues(p.Topic).Set(h.add(p.Topic, rel))
	}
}

// harvest keeps the counts behind the harvest-rate gauges.
type harvest struct {
	pages, relevant map[string]int
}

func (h *harvest) add(topic string, rel bool) float64 {
	h.pages[topic]++
	if rel {
		h.relevant[topic]++
	}
	return float64(h.relevant[topic]) / float64(h.pages[topic])
}

// DuplicateCounter is an optional interface of a crawler.Store that says
// how many of a crawl's pages committed after a point are near-duplicates;
// *sqlite.Store implements it.
type DuplicateCounter interface {
	// DuplicatesSince counts the near-duplicates among the pages of crawl
	// whose fetch order is above after, and returns the highest order.
	DuplicatesSince(ctx context.Context, crawl int64, after int) (dups, last int, err error)
}

// refreshEvery is how often Store reads the frontier's size and the
// duplicates count.
const refreshEvery = 2 * time.Second

// Store is a crawler.Store that counts what is committed through it.
type Store struct {
	crawler.Store
	M *Metrics

	mu      sync.Mutex
	h       harvest
	crawl   int64
	lastOrd int
	next    time.Time
}

// Unwrap returns the store s wraps: the crawler finds the optional
// interfaces of a store (crawler.Grouper, crawler.Peeker, …) on it
// (crawler.StoreAs).
func (s *Store) Unwrap() crawler.Store { return s.Store }

// OpenCrawl opens the crawl and starts counting its harvest.
func (s *Store) OpenCrawl(ctx context.Context, spec crawler.CrawlSpec) (crawler.CrawlState, error) {
	st, err := s.Store.OpenCrawl(ctx, spec)
	if err != nil {
		return st, err
	}
	s.mu.Lock()
	s.crawl = st.ID
	s.h = harvest{pages: make(map[string]int), relevant: make(map[string]int)}
	s.lastOrd = st.Fetched
	s.mu.Unlock()
	s.refresh(ctx)
	return st, nil
}

// Commit commits pages and counts them.
func (s *Store) Commit(ctx context.Context, crawl int64, pages []*crawler.Page, push []crawler.Entry) error {
	if err := s.Store.Commit(ctx, crawl, pages, push); err != nil {
		return err
	}
	s.mu.Lock()
	for _, p := range pages {
		s.M.observe(p, &s.h)
	}
	due := time.Now().After(s.next)
	s.mu.Unlock()
	if due {
		s.refresh(ctx)
	}
	return nil
}

// FinishCrawl records the end of the crawl and refreshes the gauges a
// last time.
func (s *Store) FinishCrawl(ctx context.Context, crawl int64, reason string) error {
	s.refresh(ctx)
	return s.Store.FinishCrawl(ctx, crawl, reason)
}

// refresh reads the frontier's sizes and the new duplicates.
func (s *Store) refresh(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t0 := time.Now()
	// Counting scans the frontier: at least 20 times as long as it takes
	// passes between two counts, so a frontier of millions of URLs does
	// not slow the crawl.
	defer func() { s.next = time.Now().Add(max(refreshEvery, 20*time.Since(t0))) }()
	if sizes, err := s.Store.FrontierSizes(ctx, s.crawl); err == nil {
		s.M.frontier.Reset()
		for stack, n := range sizes {
			name := stack
			if name == "" {
				name = "queue"
			}
			s.M.frontier.WithLabelValues(name).Set(float64(n))
		}
	}
	if dc, ok := crawler.StoreAs[DuplicateCounter](s.Store); ok {
		if n, last, err := dc.DuplicatesSince(ctx, s.crawl, s.lastOrd); err == nil {
			s.M.dups.Add(float64(n))
			s.lastOrd = last
		}
	}
}
