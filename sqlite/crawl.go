package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

var _ crawler.Store = (*Store)(nil)

const timeFormat = time.RFC3339Nano

// OpenCrawl creates or resumes the crawl named spec.Name.
func (s *Store) OpenCrawl(ctx context.Context, spec crawler.CrawlSpec) (crawler.CrawlState, error) {
	if spec.Name == "" {
		return crawler.CrawlState{}, errors.New("open crawl: empty name")
	}
	// Opening reads the crawl back from the database: a group of writes
	// undone before no longer stands in the way (group.go).
	s.group.mu.Lock()
	s.group.err = nil
	s.group.mu.Unlock()
	tx, err := s.begin(ctx)
	if err != nil {
		return crawler.CrawlState{}, fmt.Errorf("open crawl %s: %w", spec.Name, err)
	}
	defer tx.Rollback()
	var (
		st                       crawler.CrawlState
		strategy, stacks, topics string
		finished                 sql.NullString
	)
	err = tx.QueryRowContext(ctx, `SELECT id, strategy, stacks, topics, finished_at FROM crawls WHERE name = ?`, spec.Name).
		Scan(&st.ID, &strategy, &stacks, &topics, &finished)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		st, err = s.createCrawl(ctx, tx, spec)
		if err != nil {
			return crawler.CrawlState{}, err
		}
	case err != nil:
		return crawler.CrawlState{}, fmt.Errorf("open crawl %s: %w", spec.Name, err)
	default:
		st.Resumed = true
		if strategy != string(spec.Strategy) || stacks != jsonList(spec.Stacks) || topics != jsonList(spec.Topics) {
			return crawler.CrawlState{}, fmt.Errorf("crawl %q exists with strategy %s and topics %s; resume it with the same settings or choose another --crawl name", spec.Name, strategy, topics)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE crawls SET finished_at = NULL, finish = NULL WHERE id = ?`, st.ID); err != nil {
			return crawler.CrawlState{}, err
		}
		// URLs leased to fetches that never committed go back on top.
		rows, err := tx.QueryContext(ctx, `SELECT id, host, COALESCE(topic, ''), COALESCE(depth, 0), COALESCE(score, 0) FROM urls WHERE crawl_id = ? AND state = 1`, st.ID)
		if err != nil {
			return crawler.CrawlState{}, err
		}
		type lease struct {
			id    int64
			host  string
			topic string
			depth int
			score float64
		}
		var leases []lease
		for rows.Next() {
			var l lease
			if err := rows.Scan(&l.id, &l.host, &l.topic, &l.depth, &l.score); err != nil {
				rows.Close()
				return crawler.CrawlState{}, err
			}
			leases = append(leases, l)
		}
		rows.Close()
		w := newWaitingCount(tx, st.ID)
		for _, l := range leases {
			if _, err := tx.ExecContext(ctx, `UPDATE urls SET state = 0 WHERE id = ?`, l.id); err != nil {
				return crawler.CrawlState{}, err
			}
			w.add(l.host, 1)
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO frontier(crawl_id, topic, url_id, depth, score, fallback) VALUES (?, ?, ?, ?, ?, ?)`,
				st.ID, l.topic, l.id, l.depth, l.score, fallback(l.topic)); err != nil {
				return crawler.CrawlState{}, err
			}
		}
		if err := w.save(ctx); err != nil {
			return crawler.CrawlState{}, err
		}
		st.Requeue = len(leases)
	}
	if err := s.takeLease(ctx, tx, st.ID, spec.Name); err != nil {
		return crawler.CrawlState{}, err
	}
	if err := keepLearnt(ctx, tx.Tx, st.ID, spec.Learnt); err != nil {
		return crawler.CrawlState{}, fmt.Errorf("open crawl %s: %w", spec.Name, err)
	}
	if _, err := ensureParams(ctx, tx.Tx, spec.MinHash); err != nil {
		return crawler.CrawlState{}, fmt.Errorf("open crawl %s: %w", spec.Name, err)
	}
	var maxOrd sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(ord), COUNT(*), COUNT(*) FILTER (WHERE failure = '') FROM pages WHERE crawl_id = ?`, st.ID).Scan(&maxOrd, &st.Fetched, &st.Succeeded); err != nil {
		return crawler.CrawlState{}, err
	}
	st.ByTopic = make(map[string]int)
	rows, err := tx.QueryContext(ctx, `SELECT topic, COUNT(*) FROM pages WHERE crawl_id = ? GROUP BY topic`, st.ID)
	if err != nil {
		return crawler.CrawlState{}, err
	}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			rows.Close()
			return crawler.CrawlState{}, err
		}
		st.ByTopic[t] = n
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		return crawler.CrawlState{}, fmt.Errorf("open crawl %s: %w", spec.Name, err)
	}
	s.ords[st.ID] = int(maxOrd.Int64)
	s.pops.reset(st.ID)
	s.caps[st.ID] = frontierCaps{perHost: spec.MaxWaitingPerHost, total: spec.MaxWaiting}
	if st.Resumed {
		if st.Learner, err = s.learnerState(ctx, st.ID); err != nil {
			return crawler.CrawlState{}, fmt.Errorf("open crawl %s: learner: %w", spec.Name, err)
		}
	}
	s.renewLeases()
	return st, nil
}

// Rescore implements crawler.Store: it sets the score of each entry
// still waiting on its stack; entries no longer waiting are left alone.
func (s *Store) Rescore(ctx context.Context, crawl int64, entries []crawler.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	defer tx.Rollback()
	if err := s.pops.write(ctx, tx, crawl); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	upd, err := tx.PrepareContext(ctx, `UPDATE frontier SET score = ?4
		WHERE crawl_id = ?1 AND topic = ?2 AND url_id = (SELECT id FROM urls WHERE crawl_id = ?1 AND url = ?3)`)
	if err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	defer upd.Close()
	for _, e := range entries {
		if _, err := upd.ExecContext(ctx, crawl, e.Topic, e.URL.String(), e.Score); err != nil {
			return fmt.Errorf("rescore %s: %w", e.URL, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	s.pops.written(crawl)
	return nil
}

// maxLearnerPart is the most bytes of a learner's state kept in one
// row of learner_parts. SQLite copies a value bound to a statement, and
// again the row it makes of it: a learner's memory (15 MB at 100,000
// links) saved whole made it allocate twice that at once, which glibc's
// allocator, having raised its threshold for mapping large blocks on
// the first such free, took from one of its arenas and kept. Parts stay
// below that threshold's starting 128 KiB, blocks the allocator reuses.
const maxLearnerPart = 64 << 10

// SaveLearner implements crawler.Store: the state is written in parts
// of at most maxLearnerPart bytes, replacing the parts of the state
// saved before, in one transaction.
func (s *Store) SaveLearner(ctx context.Context, crawl int64, state []byte) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("save learner: %w", err)
	}
	defer tx.Rollback()
	_, err = tx.exec(ctx, `INSERT INTO learners(crawl_id, saved_at) VALUES (?, ?)
		ON CONFLICT(crawl_id) DO UPDATE SET saved_at = excluded.saved_at`,
		crawl, time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("save learner: %w", err)
	}
	part := 0
	for first := true; first || len(state) > 0; first = false {
		n := min(len(state), maxLearnerPart)
		_, err = tx.exec(ctx, `INSERT INTO learner_parts(crawl_id, part, data) VALUES (?, ?, ?)
			ON CONFLICT(crawl_id, part) DO UPDATE SET data = excluded.data`, crawl, part, state[:n])
		if err != nil {
			return fmt.Errorf("save learner: %w", err)
		}
		state = state[n:]
		part++
	}
	if _, err := tx.exec(ctx, `DELETE FROM learner_parts WHERE crawl_id = ? AND part >= ?`, crawl, part); err != nil {
		return fmt.Errorf("save learner: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save learner: %w", err)
	}
	return nil
}

// LearnerState returns the learner's state the crawl saved last, nil
// when it saved none (a crawl without a learner).
func (s *Store) LearnerState(ctx context.Context, crawl int64) ([]byte, error) {
	state, err := s.learnerState(ctx, crawl)
	if err != nil {
		return nil, fmt.Errorf("learner state: %w", err)
	}
	return state, nil
}

// learnerState reads back the learner's state of crawl, nil when none
// was saved.
func (s *Store) learnerState(ctx context.Context, crawl int64) ([]byte, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT data, SUM(length(data)) OVER () FROM learner_parts WHERE crawl_id = ? ORDER BY part`, crawl)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var state []byte
	for rows.Next() {
		var part sql.RawBytes
		var size int
		if err := rows.Scan(&part, &size); err != nil {
			return nil, err
		}
		if state == nil {
			state = make([]byte, 0, size)
		}
		state = append(state, part...)
	}
	return state, rows.Err()
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (s *Store) createCrawl(ctx context.Context, tx cachedTx, spec crawler.CrawlSpec) (crawler.CrawlState, error) {
	cfg := spec.Config
	if cfg == "" {
		cfg = "{}"
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO crawls(name, strategy, stacks, topics, config, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		spec.Name, string(spec.Strategy), jsonList(spec.Stacks), jsonList(spec.Topics), cfg, time.Now().UTC().Format(timeFormat))
	if err != nil {
		return crawler.CrawlState{}, fmt.Errorf("create crawl %s: %w", spec.Name, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return crawler.CrawlState{}, err
	}
	var seeds []crawler.Entry
	seedStacks := spec.SeedStacks
	if seedStacks == nil {
		seedStacks = spec.Stacks
	}
	for _, stack := range seedStacks {
		for _, u := range spec.Seeds {
			seeds = append(seeds, crawler.Entry{Topic: stack, URL: u, Score: 1})
		}
	}
	// Seeds are pushed in reverse so that the first seed is on top.
	slices.Reverse(seeds)
	if err := push(ctx, tx, id, seeds, frontierCaps{perHost: spec.MaxWaitingPerHost, total: spec.MaxWaiting}); err != nil {
		return crawler.CrawlState{}, err
	}
	return crawler.CrawlState{ID: id}, nil
}

// frontierCaps bound the URLs of a crawl waiting to be fetched, per host
// and in all; 0 means no bound (crawler.CrawlSpec.MaxWaitingPerHost,
// MaxWaiting).
type frontierCaps struct{ perHost, total int }

// push adds entries to their stacks; URLs already fetched or leased are
// left out, and a URL pushed again on a stack moves to its top. A URL the
// crawl does not know yet is not queued when its host already has
// caps.perHost URLs waiting or the crawl caps.total: it is counted as
// dropped for its host instead (hosts.dropped).
func push(ctx context.Context, tx cachedTx, crawl int64, entries []crawler.Entry, caps frontierCaps) error {
	if len(entries) == 0 {
		return nil
	}
	known, err := tx.PrepareContext(ctx, `SELECT id, state FROM urls WHERE crawl_id = ? AND url = ?`)
	if err != nil {
		return err
	}
	defer known.Close()
	insURL, err := tx.PrepareContext(ctx, `INSERT INTO urls(crawl_id, url, host) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insURL.Close()
	// On a stack a URL pushed again moves to the top (a seq above every
	// entry's) with the higher score and the shorter distance from a
	// seed; on the bfs queue it keeps its first place. The entry is
	// updated in place: an INSERT OR REPLACE, which deletes it and
	// inserts it anew, took two and a half times as long
	// (BenchmarkStore_push).
	ins, err := tx.PrepareContext(ctx, `INSERT INTO frontier(crawl_id, topic, url_id, depth, score, fallback)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6)
		ON CONFLICT(crawl_id, topic, url_id) DO UPDATE SET seq = (SELECT max(seq) FROM frontier) + 1,
			depth = min(depth, excluded.depth), score = max(score, excluded.score), fallback = excluded.fallback`)
	if err != nil {
		return err
	}
	defer ins.Close()
	insQueue, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO frontier(crawl_id, topic, url_id, depth, score, fallback) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insQueue.Close()
	// A URL new to the crawl is on no stack yet: a plain insert.
	insNew, err := tx.PrepareContext(ctx, `INSERT INTO frontier(crawl_id, topic, url_id, depth, score, fallback) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insNew.Close()
	w := newWaitingCount(tx, crawl)
	for _, e := range entries {
		var id int64
		var state int
		err := known.QueryRowContext(ctx, crawl, e.URL.String()).Scan(&id, &state)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			host := e.URL.Host()
			h := w.host(host)
			full, err := w.full(ctx, h, host, caps)
			if err != nil {
				return fmt.Errorf("push %s: %w", e.URL, err)
			}
			if full {
				h.dropped++
				continue
			}
			res, err := insURL.ExecContext(ctx, crawl, e.URL.String(), host)
			if err != nil {
				return fmt.Errorf("push %s: %w", e.URL, err)
			}
			if id, err = res.LastInsertId(); err != nil {
				return err
			}
			w.add(host, 1)
			if _, err := insNew.ExecContext(ctx, crawl, e.Topic, id, e.Depth, e.Score, fallback(e.Topic)); err != nil {
				return fmt.Errorf("push %s: %w", e.URL, err)
			}
			continue
		case err != nil:
			return fmt.Errorf("push %s: %w", e.URL, err)
		case state != 0:
			continue
		}
		stmt := ins
		if e.Topic == "" {
			stmt = insQueue
		}
		if _, err := stmt.ExecContext(ctx, crawl, e.Topic, id, e.Depth, e.Score, fallback(e.Topic)); err != nil {
			return fmt.Errorf("push %s: %w", e.URL, err)
		}
	}
	return w.save(ctx)
}

// waitingCount keeps, within one transaction, the changes of the count
// of a crawl's URLs waiting to be fetched (state 0) per host
// (hosts.waiting) and in all (crawls.waiting), and of the URLs dropped per
// host; save writes them. Every change of a URL to or from state 0 goes
// through one. The stored counts are read only where a bound needs them
// (push), so a pop or a commit reads nothing.
type waitingCount struct {
	tx    cachedTx
	crawl int64
	delta int
	total int  // crawls.waiting + delta, once read
	read  bool // total was read
	hosts map[string]*hostCount
}

type hostCount struct {
	waiting, delta, dropped int // waiting: hosts.waiting + delta, once read
	read                    bool
}

func newWaitingCount(tx cachedTx, crawl int64) *waitingCount {
	return &waitingCount{tx: tx, crawl: crawl, hosts: make(map[string]*hostCount)}
}

func (w *waitingCount) host(host string) *hostCount {
	h := w.hosts[host]
	if h == nil {
		h = &hostCount{}
		w.hosts[host] = h
	}
	return h
}

// full reports whether caps keep a new URL of host (counted by h) off
// the frontier.
func (w *waitingCount) full(ctx context.Context, h *hostCount, host string, caps frontierCaps) (bool, error) {
	if caps.perHost > 0 && !h.read {
		var stored int
		err := w.tx.queryRow(ctx, `SELECT waiting FROM hosts WHERE crawl_id = ? AND host = ?`, w.crawl, host).Scan(&stored)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, err
		}
		h.waiting, h.read = stored+h.delta, true
	}
	if caps.total > 0 && !w.read {
		var stored int
		if err := w.tx.queryRow(ctx, `SELECT waiting FROM crawls WHERE id = ?`, w.crawl).Scan(&stored); err != nil {
			return false, fmt.Errorf("waiting URLs of crawl %d: %w", w.crawl, err)
		}
		w.total, w.read = stored+w.delta, true
	}
	return caps.perHost > 0 && h.waiting >= caps.perHost || caps.total > 0 && w.total >= caps.total, nil
}

// add counts n more (or, negative, fewer) URLs of host waiting.
func (w *waitingCount) add(host string, n int) {
	h := w.host(host)
	h.waiting += n
	h.delta += n
	w.total += n
	w.delta += n
}

func (w *waitingCount) save(ctx context.Context) error {
	for host, h := range w.hosts {
		if h.delta == 0 && h.dropped == 0 {
			continue
		}
		if _, err := w.tx.exec(ctx, `INSERT INTO hosts(crawl_id, host, pages, waiting, dropped) VALUES (?, ?, 0, ?, ?)
			ON CONFLICT(crawl_id, host) DO UPDATE SET waiting = waiting + excluded.waiting, dropped = dropped + excluded.dropped`,
			w.crawl, host, h.delta, h.dropped); err != nil {
			return fmt.Errorf("waiting URLs of %s: %w", host, err)
		}
	}
	if w.delta != 0 {
		if _, err := w.tx.exec(ctx, `UPDATE crawls SET waiting = waiting + ? WHERE id = ?`, w.delta, w.crawl); err != nil {
			return fmt.Errorf("waiting URLs of crawl %d: %w", w.crawl, err)
		}
	}
	clear(w.hosts)
	w.delta, w.total, w.read = 0, 0, false
	return nil
}

// fallback is the frontier's fallback column for an entry of the stack
// named topic: 1 on a fallback stack (crawler.Reserve, Parts), else 0.
func fallback(topic string) int {
	if crawler.ParseStack(topic).Kind != crawler.Main {
		return 1
	}
	return 0
}

// popQueries select the first entries of a stack (crawl, topic, limit)
// in order: the rows of the first query, then, when it returned fewer
// than the limit, those of the next (limit: what is left). Each order has
// an index that yields them without sorting. Shallowest is indexed for
// fallback stacks only (frontier_fallback: crawler.Reserve and Parts,
// the stacks it serves); a main stack served shallowest first is sorted.
// SurveyFirst is two queries: the few entries within SurveyDepth through
// frontier_survey (a partial index of them: its term, depth <= 1, is the
// first query's), then the others through frontier_best ("+f.depth"
// keeps the planner off the survey index), each highest score first. As
// one query (a UNION ALL of the two, sorted) its pop took a third longer.
func popQueries(order crawler.Order, onFallback bool) ([]string, error) {
	const cols = `SELECT f.seq, f.url_id, u.url, u.host, u.state, f.depth, f.score
		FROM frontier f JOIN urls u ON u.id = f.url_id
		WHERE f.crawl_id = ? AND f.topic = ?`
	var orderBy string
	where := ""
	switch order {
	case crawler.LIFO:
		orderBy = "f.seq DESC"
	case crawler.FIFO:
		orderBy = "f.seq ASC"
	case crawler.BestFirst:
		orderBy = "f.score DESC, f.seq DESC"
	case crawler.Shallowest:
		orderBy = "f.depth ASC, f.score DESC, f.seq DESC"
		if onFallback {
			where = " AND f.fallback = 1" // frontier_fallback's term
		}
	case crawler.SurveyFirst:
		depth := strconv.Itoa(crawler.SurveyDepth)
		return []string{
			cols + ` AND f.depth <= ` + depth + ` ORDER BY f.score DESC, f.seq DESC LIMIT ?`,
			cols + ` AND +f.depth > ` + depth + ` ORDER BY f.score DESC, f.seq DESC LIMIT ?`,
		}, nil
	default:
		return nil, fmt.Errorf("pop: unknown order %d", order)
	}
	return []string{cols + where + ` ORDER BY ` + orderBy + ` LIMIT ?`}, nil
}

// popRows reads up to limit rows of queries (popQueries) in order; first
// is how many of them the first query gave.
func popRows(ctx context.Context, rd reader, queries []string, crawl int64, topic string, limit int) (out []popRow, first int, err error) {
	for i, q := range queries {
		if len(out) >= limit {
			break
		}
		rows, err := rd.query(ctx, q, crawl, topic, limit-len(out))
		if err != nil {
			return nil, 0, err
		}
		for rows.Next() {
			var c popRow
			if err := rows.Scan(&c.seq, &c.urlID, &c.url, &c.host, &c.state, &c.depth, &c.score); err != nil {
				rows.Close()
				return nil, 0, err
			}
			out = append(out, c)
		}
		if err := rows.Close(); err != nil {
			return nil, 0, err
		}
		if i == 0 {
			first = len(out)
		}
	}
	return out, first, nil
}

// Pop leases up to n URLs from topic's stack. It only reads: what it
// takes and leases is written by the crawl's next write transaction
// (see pops).
func (s *Store) Pop(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost int) ([]crawler.Entry, error) {
	out, _, _, err := s.pop(ctx, crawl, topic, order, n, maxPerHost, 0, nil)
	return out, err
}

// PopPeek implements crawler.Peeker: Pop, and up to peek of the entries
// that come next on the stack, read by the same query and not taken.
func (s *Store) PopPeek(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int) (taken, next []crawler.Entry, err error) {
	taken, next, _, err = s.pop(ctx, crawl, topic, order, n, maxPerHost, peek, nil)
	return taken, next, err
}

var _ crawler.FloorPopper = (*Store)(nil)

// PopFloor implements crawler.FloorPopper: PopPeek that stops at the
// first entry valued below floor (in SurveyFirst order, past the
// survey's shallow entries), taking none from there on.
func (s *Store) PopFloor(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int, floor float64) (taken, next []crawler.Entry, stopped bool, err error) {
	return s.pop(ctx, crawl, topic, order, n, maxPerHost, peek, &floor)
}

// pop takes up to n entries of topic's stack in order and peeks at up to
// peek after them; with a floor it stops at the first entry below it
// (stopped), except the survey's shallow entries in SurveyFirst order.
func (s *Store) pop(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int, floor *float64) ([]crawler.Entry, []crawler.Entry, bool, error) {
	if n <= 0 {
		return nil, nil, false, nil
	}
	queries, err := popQueries(order, fallback(topic) == 1)
	if err != nil {
		return nil, nil, false, err
	}
	below := func(r popRow) bool {
		return floor != nil && r.score < *floor && (order != crawler.SurveyFirst || r.depth > crawler.SurveyDepth)
	}
	s.pops.mu.Lock()
	c := s.pops.of(crawl)
	s.pops.mu.Unlock()
	// The survey part of a stack runs dry early in a crawl and is
	// seldom pushed to again: 6,449 of the focused bench crawl's 7,026
	// pops ran its query and found it empty (counted once) (BenchmarkStore_pop/survey
	// measures a pop that skips it).
	survey := order == crawler.SurveyFirst
	if survey && c.surveyed[topic] {
		queries, survey = queries[1:], false
	}
	rd, done, err := s.read(ctx)
	if err != nil {
		return nil, nil, false, fmt.Errorf("pop %q: %w", topic, err)
	}
	defer done()
	var out, next []crawler.Entry
	stopped := false
	for len(out) < n {
		// Rows taken but not deleted yet come back from the query and
		// are passed over; the limit makes room for all of them, so a
		// query that returns no other row has reached the stack's end.
		// A row fetched or leased through another stack is passed over
		// too: a quarter more rows than wanted leave room for a few,
		// and another query reads on when they were more. Every row
		// read costs (about 6 µs: BenchmarkStore_pop read 40 rows for
		// 16 in 320 µs, 24 in 220 µs); with two rows more than wanted,
		// 39 of the bench's focused crawl's 6,853 pops needed a second
		// query.
		want := n - len(out)
		cands, first, err := popRows(ctx, rd, queries, crawl, topic, want+want/4+2+len(c.taken)+peek)
		if err != nil {
			return nil, nil, false, fmt.Errorf("pop %q: %w", topic, err)
		}
		if survey && first == 0 {
			c.surveyed[topic] = true
		}
		fresh := 0
		for _, cd := range cands {
			if c.isTaken[cd.seq] {
				continue
			}
			if below(cd) {
				stopped = len(out) < n
				break
			}
			if len(out) >= n {
				next = peekAt(next, cd, c, peek, topic)
				continue
			}
			fresh++
			c.take(cd.seq)
			if _, leased := c.leased[cd.url]; cd.state != 0 || leased {
				continue // fetched or leased through another stack
			}
			if maxPerHost > 0 {
				var count int
				err := rd.queryRow(ctx, `SELECT pages FROM hosts WHERE crawl_id = ? AND host = ?`, crawl, cd.host).Scan(&count)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return nil, nil, false, fmt.Errorf("pop %q: %w", topic, err)
				}
				if count+c.hostPages[cd.host] >= maxPerHost {
					continue
				}
				c.hostPages[cd.host]++
			}
			u, err := urlnorm.Parse(cd.url)
			if err != nil {
				continue // cannot happen for stored URLs
			}
			s.pops.lease(c, cd.url, cd.host, pendingLease{id: cd.urlID, topic: topic, depth: cd.depth, score: cd.score})
			out = append(out, crawler.Entry{Topic: topic, URL: u, Depth: cd.depth, Score: cd.score})
		}
		if fresh == 0 || stopped {
			break
		}
	}
	return out, next, stopped, nil
}

// popRow is a row of a pop's query: a frontier entry and its URL.
type popRow struct {
	seq, urlID int64
	url, host  string
	state      int
	depth      int
	score      float64
}

// peekAt appends to next, while it holds fewer than peek, the entry of
// row r of topic's stack, which the pop does not take: when it is still
// waiting, not leased.
func peekAt(next []crawler.Entry, r popRow, c *crawlPops, peek int, topic string) []crawler.Entry {
	if len(next) >= peek || r.state != 0 {
		return next
	}
	if _, leased := c.leased[r.url]; leased {
		return next
	}
	u, err := urlnorm.Parse(r.url)
	if err != nil {
		return next
	}
	return append(next, crawler.Entry{Topic: topic, URL: u, Depth: r.depth, Score: r.score})
}

// Commit stores pages and pushes entries in one transaction.
//
// Every successful page with non-empty text is checked against the
// database's near-duplicate index (see MinhashIndex), in the order of
// pages: the first stored page of a group of near-duplicates is the
// original and enters the index and the search index; a later one is
// stored with duplicate_of pointing at it and enters neither. The index
// is shared by all crawls of the database, so a page of a later crawl can
// be a duplicate of a page of an earlier one. Pages without a signature
// are signed here with the database's parameters.
func (s *Store) Commit(ctx context.Context, crawl int64, pages []*crawler.Page, entries []crawler.Entry) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	defer tx.Rollback()
	if err := s.pops.write(ctx, tx, crawl); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	ord := s.ords[crawl]
	var d *dedupBatch
	topics, ok := s.topics[crawl]
	if len(pages) > 0 {
		if !ok {
			if topics, err = crawlTopics(ctx, tx.Tx, crawl); err != nil {
				return err
			}
		}
		if d, err = newDedupBatch(ctx, tx, s.params); err != nil {
			return err
		}
		defer d.close()
		leased := func(u string) (int64, bool) { return s.pops.isLeased(crawl, u) }
		if err := insertPages(ctx, tx, crawl, &ord, topics, pages, d, leased); err != nil {
			return err
		}
	}
	s.pops.pushed(crawl, entries)
	if err := push(ctx, tx, crawl, entries, s.caps[crawl]); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.ords[crawl] = ord
	s.pops.written(crawl)
	if len(pages) > 0 {
		// Both never change once stored.
		s.topics[crawl] = topics
		s.params = &d.params
		urls := make([]string, len(pages))
		for i, p := range pages {
			urls[i] = p.URL.String()
		}
		s.pops.committed(crawl, urls)
	}
	return nil
}

// crawlTopics returns the crawl's topics (CrawlSpec.Topics), the order of
// its links' scores, read in a transaction or from the database.
func crawlTopics(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, crawl int64) ([]string, error) {
	var raw string
	if err := q.QueryRowContext(ctx, `SELECT topics FROM crawls WHERE id = ?`, crawl).Scan(&raw); err != nil {
		return nil, fmt.Errorf("crawl %d: %w", crawl, err)
	}
	var topics []string
	if err := json.Unmarshal([]byte(raw), &topics); err != nil {
		return nil, fmt.Errorf("crawl %d topics: %w", crawl, err)
	}
	return topics, nil
}

// insertPages stores pages; leased gives the urls.id of a URL leased by
// a pop (and so not waiting), whose page is stored without looking it up.
func insertPages(ctx context.Context, tx cachedTx, crawl int64, ord *int, topics []string, pages []*crawler.Page, d *dedupBatch, leased func(string) (int64, bool)) error {
	getURL, err := tx.PrepareContext(ctx, `INSERT INTO urls(crawl_id, url, host, state) VALUES (?, ?, ?, 2)
		ON CONFLICT(crawl_id, url) DO UPDATE SET state = 2 RETURNING id`)
	if err != nil {
		return err
	}
	defer getURL.Close()
	markFinal, err := tx.PrepareContext(ctx, `INSERT INTO urls(crawl_id, url, host, state) VALUES (?, ?, ?, 2)
		ON CONFLICT(crawl_id, url) DO UPDATE SET state = 2 WHERE state = 0`)
	if err != nil {
		return err
	}
	defer markFinal.Close()
	insPage, err := tx.PrepareContext(ctx, `INSERT INTO pages(crawl_id, ord, url_id, final_url, topic, depth, status,
		fetched_at, duration_ms, size, content_type, etag, modified, content_hash, title, text, failure, links)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insPage.Close()
	insScore, err := tx.PrepareContext(ctx, `INSERT INTO page_scores(page_id, topic, score, relevant) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insScore.Close()
	// A URL waiting on the frontier can be fetched without a pop: as the
	// final URL of a redirect, or a page committed by another path.
	fetchedWaiting, err := tx.PrepareContext(ctx, `UPDATE urls SET state = 2 WHERE crawl_id = ? AND url = ? AND state = 0 RETURNING host`)
	if err != nil {
		return err
	}
	defer fetchedWaiting.Close()
	w := newWaitingCount(tx, crawl)
	leaveFrontier := func(u urlnorm.URL) error {
		var host string
		err := fetchedWaiting.QueryRowContext(ctx, crawl, u.String()).Scan(&host)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		w.add(host, -1)
		return nil
	}
	insAlias, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO aliases(crawl_id, url, target, status, page_id) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insAlias.Close()
	markFetched, err := tx.PrepareContext(ctx, `UPDATE urls SET state = 2 WHERE id = ?`)
	if err != nil {
		return err
	}
	defer markFetched.Close()
	for _, p := range pages {
		urlID, ok := leased(p.URL.String())
		if ok {
			if _, err := markFetched.ExecContext(ctx, urlID); err != nil {
				return fmt.Errorf("store page %s: %w", p.URL, err)
			}
		} else {
			if err := leaveFrontier(p.URL); err != nil {
				return fmt.Errorf("store page %s: %w", p.URL, err)
			}
			if err := getURL.QueryRowContext(ctx, crawl, p.URL.String(), p.URL.Host()).Scan(&urlID); err != nil {
				return fmt.Errorf("store page %s: %w", p.URL, err)
			}
		}
		final := p.FinalURL
		if final.IsZero() {
			final = p.URL
		}
		if final != p.URL {
			if err := leaveFrontier(final); err != nil {
				return fmt.Errorf("store page %s: %w", p.URL, err)
			}
			if _, err := markFinal.ExecContext(ctx, crawl, final.String(), final.Host()); err != nil {
				return fmt.Errorf("store page %s: %w", p.URL, err)
			}
		}
		if err := aliasIfStored(ctx, tx, crawl, p, final); err != nil {
			return err
		}
		sig, err := d.signature(p)
		if err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
		*ord++
		storedFinal := "" // the page's URL
		if final != p.URL {
			storedFinal = final.String()
		}
		text, links := textAndLinks(p)
		res, err := insPage.ExecContext(ctx, crawl, *ord, urlID, storedFinal, p.Topic, p.Depth, p.Status,
			p.FetchedAt.UTC().Format(timeFormat), float64(p.Duration)/float64(time.Millisecond), p.Size, p.ContentType,
			p.ETag, p.Modified, p.ContentHash, p.Title, text, p.Failure, links)
		if err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
		pageID, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for _, r := range p.Redirects {
			if _, err := insAlias.ExecContext(ctx, crawl, r.URL.String(), r.Target.String(), r.Status, pageID); err != nil {
				return fmt.Errorf("store alias %s: %w", r.URL, err)
			}
		}
		if err := insertNorm(ctx, tx, crawl, pageID, p); err != nil {
			return err
		}
		if err := insertRaw(ctx, tx, pageID, p.URL, final, p.Exchanges); err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
		if err := insertSitemaps(ctx, tx, crawl, pageID, p.Sitemaps); err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
		if err := d.add(ctx, pageID, p, sig); err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
		if err := insertScores(ctx, insScore, pageID, p, topics); err != nil {
			return err
		}
	}
	return w.save(ctx)
}

// insertScores stores the scores and verdicts of p (checked against
// topics), if it has any, one row a topic.
func insertScores(ctx context.Context, ins *sql.Stmt, pageID int64, p *crawler.Page, topics []string) error {
	if err := p.CheckScores(topics); err != nil {
		return fmt.Errorf("store %w", err)
	}
	if len(p.Scores) == 0 {
		return nil
	}
	for _, t := range topics {
		rel := 0
		if p.Relevant[t] {
			rel = 1
		}
		if _, err := ins.ExecContext(ctx, pageID, t, p.Scores[t], rel); err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
	}
	return nil
}

// aliasIfStored turns successful page p, whose final URL is final, into
// an alias when another page of the crawl is already stored with that
// final URL (two fetches of one round reached it): exactly one page is
// stored per final URL, the first committed.
func aliasIfStored(ctx context.Context, tx cachedTx, crawl int64, p *crawler.Page, final urlnorm.URL) error {
	if p.Failure != "" {
		return nil
	}
	var id int64
	err := tx.queryRow(ctx, `SELECT id FROM pages WHERE crawl_id = ?1 AND final_url = ?2 AND final_url <> '' AND failure = ''
		UNION ALL SELECT p.id FROM urls u JOIN pages p ON p.url_id = u.id
			WHERE u.crawl_id = ?1 AND u.url = ?2 AND p.final_url = '' AND p.failure = ''
		LIMIT 1`, crawl, final.String()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store page %s: %w", p.URL, err)
	}
	p.AliasOf(final, id)
	return nil
}

// FrontierSizes counts waiting entries per stack. An entry whose URL left
// the frontier another way (leased from another stack, fetched as a
// redirect's target) keeps its row until a pop of its stack meets it; it
// is not counted.
func (s *Store) FrontierSizes(ctx context.Context, crawl int64) (map[string]int, error) {
	if err := s.writePops(ctx, crawl); err != nil {
		return nil, fmt.Errorf("frontier sizes: %w", err)
	}
	rd, done, err := s.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("frontier sizes: %w", err)
	}
	defer done()
	rows, err := rd.query(ctx, `SELECT f.topic, COUNT(*) FROM frontier f JOIN urls u ON u.id = f.url_id
		WHERE f.crawl_id = ? AND u.state = 0 GROUP BY f.topic`, crawl)
	if err != nil {
		return nil, fmt.Errorf("frontier sizes: %w", err)
	}
	defer rows.Close()
	m := make(map[string]int)
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		m[t] = n
	}
	return m, rows.Err()
}

// FinishCrawl records the end of a crawl.
func (s *Store) FinishCrawl(ctx context.Context, crawl int64, reason string) error {
	if err := s.writePops(ctx, crawl); err != nil {
		return fmt.Errorf("finish crawl %d: %w", crawl, err)
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("finish crawl %d: %w", crawl, err)
	}
	defer tx.Rollback()
	_, err = tx.exec(ctx, `UPDATE crawls SET finished_at = ?, finish = ? WHERE id = ?`,
		time.Now().UTC().Format(timeFormat), reason, crawl)
	if err != nil {
		return fmt.Errorf("finish crawl %d: %w", crawl, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("finish crawl %d: %w", crawl, err)
	}
	return nil
}

// Dropped counts the new URLs a crawl did not queue because its frontier
// was full (crawler.CrawlSpec.MaxWaitingPerHost, MaxWaiting).
type Dropped struct {
	URLs    int    // in all
	Hosts   int    // hosts with URLs dropped
	Top     string // the host with the most
	TopURLs int
}

// FrontierDropped reads what the crawl's frontier bounds dropped, from
// the per-host counts the store keeps (hosts.dropped).
func (s *Store) FrontierDropped(ctx context.Context, crawl int64) (Dropped, error) {
	var d Dropped
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(dropped), 0), COUNT(*) FILTER (WHERE dropped > 0) FROM hosts WHERE crawl_id = ?`, crawl).Scan(&d.URLs, &d.Hosts)
	if err != nil || d.URLs == 0 {
		return d, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT host, dropped FROM hosts WHERE crawl_id = ? ORDER BY dropped DESC, host LIMIT 1`, crawl).Scan(&d.Top, &d.TopURLs)
	return d, err
}

// keepLearnt adds the pages a crawl learnt from to those it keeps.
func keepLearnt(ctx context.Context, tx *sql.Tx, crawl int64, urls []urlnorm.URL) error {
	if len(urls) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO learnt(crawl_id, url) VALUES (?, ?)`)
	if err != nil {
		return fmt.Errorf("keep the pages learnt from: %w", err)
	}
	defer st.Close()
	for _, u := range urls {
		if _, err := st.ExecContext(ctx, crawl, u.String()); err != nil {
			return fmt.Errorf("keep the pages learnt from: %w", err)
		}
	}
	return nil
}
