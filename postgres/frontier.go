package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/crawler"
)

// frontierCaps bound the URLs of a crawl waiting to be fetched, per host
// and in all; 0 means no bound (crawler.CrawlSpec.MaxWaitingPerHost,
// MaxWaiting).
type frontierCaps struct{ perHost, total int }

// waitingCount keeps, within one transaction, the changes of the count of
// a crawl's URLs waiting to be fetched per host (hosts.waiting) and in all
// (crawls.waiting), and of the URLs dropped per host; save writes them,
// hosts in name order so that concurrent transactions lock the rows in one
// order. The stored counts are read only where a bound needs them.
type waitingCount struct {
	tx    pgx.Tx
	crawl int64
	delta int
	total int
	read  bool
	hosts map[string]*hostCount
	// stored counts the URLs push stored, new to the crawl.
	stored int
}

type hostCount struct {
	waiting, delta, dropped int
	read                    bool
}

func newWaitingCount(tx pgx.Tx, crawl int64) *waitingCount {
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

// full reports whether caps keep a new URL of host off the frontier.
func (w *waitingCount) full(ctx context.Context, host string, caps frontierCaps) (bool, error) {
	h := w.host(host)
	if caps.perHost > 0 && !h.read {
		var stored int
		err := w.tx.QueryRow(ctx, `SELECT waiting FROM hosts WHERE crawl_id = $1 AND host = $2`, w.crawl, host).Scan(&stored)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return false, err
		}
		h.waiting, h.read = stored+h.delta, true
	}
	if caps.total > 0 && !w.read {
		var stored int
		if err := w.tx.QueryRow(ctx, `SELECT waiting FROM crawls WHERE id = $1`, w.crawl).Scan(&stored); err != nil {
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
	var names []string
	var deltas, dropped []int64
	for host, h := range w.hosts {
		if h.delta != 0 || h.dropped != 0 {
			names = append(names, host)
		}
	}
	sort.Strings(names)
	for _, host := range names {
		deltas = append(deltas, int64(w.hosts[host].delta))
		dropped = append(dropped, int64(w.hosts[host].dropped))
	}
	if len(names) > 0 {
		if _, err := w.tx.Exec(ctx, `INSERT INTO hosts(crawl_id, host, waiting, dropped)
			SELECT $1, h, d, x FROM unnest($2::text[], $3::bigint[], $4::bigint[]) WITH ORDINALITY AS t(h, d, x, i) ORDER BY i
			ON CONFLICT (crawl_id, host) DO UPDATE SET waiting = hosts.waiting + excluded.waiting, dropped = hosts.dropped + excluded.dropped`,
			w.crawl, names, deltas, dropped); err != nil {
			return fmt.Errorf("waiting URLs per host: %w", err)
		}
	}
	if w.delta != 0 {
		if _, err := w.tx.Exec(ctx, `UPDATE crawls SET waiting = waiting + $1 WHERE id = $2`, w.delta, w.crawl); err != nil {
			return fmt.Errorf("waiting URLs of crawl %d: %w", w.crawl, err)
		}
	}
	clear(w.hosts)
	w.delta, w.total, w.read = 0, 0, false
	return nil
}

// push adds entries to their stacks; URLs already fetched or leased are
// left out, and a URL pushed again on a stack moves to its top with the
// higher score and the shorter depth (on the bfs queue, topic "", it keeps
// its first place). A URL the crawl does not know yet is not queued when
// caps are reached: it is counted as dropped for its host. All in a few
// statements, whatever the number of entries.
func push(ctx context.Context, tx pgx.Tx, crawl int64, entries []crawler.Entry, caps frontierCaps, w *waitingCount) error {
	if len(entries) == 0 {
		return nil
	}
	known := make(map[string]urlState, len(entries))
	var all []string
	for _, e := range entries {
		u := e.URL.String()
		if _, ok := known[u]; !ok {
			known[u] = urlState{id: -1}
			all = append(all, u)
		}
	}
	if err := readURLStates(ctx, tx, crawl, all, known); err != nil {
		return err
	}
	// New URLs, in entry order, within the frontier's bounds.
	var newURLs, newHosts []string
	adding := make(map[string]bool)
	for _, e := range entries {
		u := e.URL.String()
		if known[u].id >= 0 || adding[u] {
			continue
		}
		host := e.URL.Host()
		full, err := w.full(ctx, host, caps)
		if err != nil {
			return fmt.Errorf("push %s: %w", u, err)
		}
		if full {
			w.host(host).dropped++
			continue
		}
		adding[u] = true
		newURLs, newHosts = append(newURLs, u), append(newHosts, host)
		w.add(host, 1) // corrected below for URLs another process inserted first
	}
	if len(newURLs) > 0 {
		rows, err := tx.Query(ctx, `INSERT INTO urls(crawl_id, url, host)
			SELECT $1, u, h FROM unnest($2::text[], $3::text[]) AS t(u, h) ORDER BY u
			ON CONFLICT (crawl_id, url) DO NOTHING RETURNING url, id`, crawl, newURLs, newHosts)
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		for rows.Next() {
			var u string
			var id int64
			if err := rows.Scan(&u, &id); err != nil {
				rows.Close()
				return fmt.Errorf("push: %w", err)
			}
			known[u] = urlState{id: id, created: true}
			w.stored++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("push: %w", err)
		}
		var raced []string
		for i, u := range newURLs {
			if known[u].id < 0 {
				raced = append(raced, u)
				w.add(newHosts[i], -1)
			}
		}
		if len(raced) > 0 {
			if err := readURLStates(ctx, tx, crawl, raced, known); err != nil {
				return err
			}
		}
	}
	// The frontier rows, one per stack and URL: on a stack the last push
	// places it, with the best score and depth of all; on the queue the
	// first.
	type row struct {
		pos     int
		topic   string
		urlID   int64
		depth   int
		score   float64
		created bool // the URL was stored by this push
	}
	merged := make(map[rowKey]*row)
	for i, e := range entries {
		st := known[e.URL.String()]
		if st.id < 0 || st.state != 0 {
			continue
		}
		k := rowKey{e.Topic, st.id}
		r := merged[k]
		if r == nil {
			merged[k] = &row{pos: i, topic: e.Topic, urlID: st.id, depth: e.Depth, score: e.Score, created: st.created}
			continue
		}
		if e.Topic != "" {
			r.pos = i
			r.depth = min(r.depth, e.Depth)
			r.score = max(r.score, e.Score)
		}
	}
	rs := make([]*row, 0, len(merged))
	for _, r := range merged {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].pos < rs[j].pos })
	for _, queue := range []bool{false, true} {
		var topics []string
		var ids []int64
		var depths []int32
		var scores []float64
		for _, r := range rs {
			if (r.topic == "") == queue {
				topics, ids, depths, scores = append(topics, r.topic), append(ids, r.urlID), append(depths, int32(r.depth)), append(scores, r.score)
			}
		}
		if len(ids) == 0 {
			continue
		}
		// made: the rows the insert makes rather than finds.
		var made []rowKey
		conflict := `DO UPDATE SET seq = nextval('frontier_seq_seq'), depth = LEAST(frontier.depth, excluded.depth), score = GREATEST(frontier.score, excluded.score)`
		if queue {
			conflict = `DO NOTHING RETURNING topic, url_id`
		} else {
			// The rows the insert will update are locked first in the
			// order Rescore locks them in (URL id, then stack): the insert
			// takes them in push order, and a push and a rescore of the
			// same rows deadlocked.
			found, err := rowKeys(tx.Query(ctx, `SELECT f.topic, f.url_id FROM frontier f
				JOIN unnest($2::text[], $3::bigint[]) AS x(t, u) ON f.crawl_id = $1 AND f.topic = x.t AND f.url_id = x.u
				ORDER BY f.url_id, f.topic FOR UPDATE OF f`, crawl, topics, ids))
			if err != nil {
				return fmt.Errorf("push: %w", err)
			}
			for i, id := range ids {
				if k := (rowKey{topics[i], id}); !found[k] {
					made = append(made, k)
				}
			}
		}
		inserted, err := rowKeys(tx.Query(ctx, `INSERT INTO frontier(crawl_id, topic, url_id, depth, score)
			SELECT $1, t, u, d, s FROM unnest($2::text[], $3::bigint[], $4::int[], $5::float8[]) WITH ORDINALITY AS x(t, u, d, s, i) ORDER BY i
			ON CONFLICT (crawl_id, topic, url_id) `+conflict, crawl, topics, ids, depths, scores))
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		for k := range inserted {
			made = append(made, k)
		}
		// The states were read before the insert, without a lock. A URL
		// another process leased since (its pop deleted the URL's row,
		// and the insert, which waited for that pop to commit, made the
		// row again) no longer waits: its row is taken out, by a
		// statement that sees what that pop committed; a row another
		// pop holds is left to it. Only a row made for a URL stored
		// before can be one.
		var mTopics []string
		var mIDs []int64
		for _, k := range made {
			if !merged[k].created {
				mTopics, mIDs = append(mTopics, k.topic), append(mIDs, k.id)
			}
		}
		if len(mIDs) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM frontier WHERE seq IN (
				SELECT f.seq FROM frontier f
				JOIN unnest($2::text[], $3::bigint[]) AS x(t, u) ON f.crawl_id = $1 AND f.topic = x.t AND f.url_id = x.u
				JOIN urls w ON w.id = f.url_id
				WHERE w.state <> 0 FOR UPDATE OF f SKIP LOCKED)`, crawl, mTopics, mIDs); err != nil {
				return fmt.Errorf("push: %w", err)
			}
		}
	}
	return nil
}

// analyzeFirst is how many URLs a store stores before it first has the
// server analyze the crawl's tables (keepStatistics).
const analyzeFirst = 1000

// keepStatistics has the server gather fresh statistics of the tables
// urls and frontier (ANALYZE) once the URLs this store has stored,
// stored more of them just now, have doubled since it last did, the
// first time at analyzeFirst. A push and a rescore look their rows up by
// crawl, stack and URL id: on statistics of a table still small the
// server takes a stack's own index for it and reads all of the stack's
// rows for each (BenchmarkStore_push: on a stack of 25,000, "stale"
// against "fresh"). Autovacuum gathers them too,
// but at most once a minute and after a tenth of a table has changed;
// a crawl's tables grow faster at its start. An ANALYZE that fails is
// let go: statistics only choose plans.
func (s *Store) keepStatistics(ctx context.Context, stored int) {
	s.mu.Lock()
	s.stored += stored
	due := stored > 0 && s.stored >= max(s.analyzeAt, analyzeFirst) && !s.noAnalyze
	if due {
		s.analyzeAt = 2 * s.stored
	}
	s.mu.Unlock()
	if due {
		_, _ = s.pool.Exec(ctx, `ANALYZE urls, frontier`) // an error is let go
	}
}

// requeue puts the URLs of crawl leased and matching cond (an SQL
// condition on urls with $2… bound to args) back on top of the stacks
// they were leased from, and counts them as waiting again.
func requeue(ctx context.Context, tx pgx.Tx, crawl int64, cond string, args ...any) (int, error) {
	rows, err := tx.Query(ctx, `WITH r AS (
			UPDATE urls SET state = 0, holder = NULL WHERE crawl_id = $1 AND state = 1 AND (`+cond+`)
			RETURNING id, host, COALESCE(topic, '') AS topic, COALESCE(depth, 0) AS depth, COALESCE(score, 0) AS score),
		f AS (
			INSERT INTO frontier(crawl_id, topic, url_id, depth, score) SELECT $1, topic, id, depth, score FROM r ORDER BY id
			ON CONFLICT (crawl_id, topic, url_id) DO UPDATE SET seq = nextval('frontier_seq_seq'))
		SELECT host, count(*) FROM r GROUP BY host`, append([]any{crawl}, args...)...)
	if err != nil {
		return 0, fmt.Errorf("requeue leases: %w", err)
	}
	w := newWaitingCount(tx, crawl)
	n := 0
	for rows.Next() {
		var host string
		var k int
		if err := rows.Scan(&host, &k); err != nil {
			rows.Close()
			return 0, err
		}
		w.add(host, k)
		n += k
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("requeue leases: %w", err)
	}
	return n, w.save(ctx)
}

// expiredLeases is the condition of requeue for the leases of processes
// gone: their holder expired or is unknown.
const expiredLeases = `holder IS NULL OR holder NOT IN (SELECT id FROM holders WHERE crawl_id = $1 AND expires_at > now())`

// reapExpired gives the leases of the crawl's expired holders to the
// others; it costs one indexed read when no holder expired.
func (s *Store) reapExpired(ctx context.Context, crawl int64) error {
	var expired bool
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM holders WHERE crawl_id = $1 AND expires_at <= now())`, crawl).Scan(&expired)
	})
	if err != nil {
		return fmt.Errorf("expired leases: %w", err)
	}
	if !expired {
		return nil
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := requeue(ctx, tx, crawl, expiredLeases); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM holders WHERE crawl_id = $1 AND expires_at <= now()`, crawl)
		return err
	})
}

// urlState is a stored URL's id and state (0 waiting, 1 leased, 2
// fetched), or id -1 for a URL not stored; created: stored by the push
// that reads it.
type urlState struct {
	id      int64
	state   int
	created bool
}

// rowKey is a frontier row's stack and URL id.
type rowKey struct {
	topic string
	id    int64
}

// rowKeys reads the (topic, URL id) rows of a query.
func rowKeys(rows pgx.Rows, err error) (map[rowKey]bool, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := make(map[rowKey]bool)
	for rows.Next() {
		var k rowKey
		if err := rows.Scan(&k.topic, &k.id); err != nil {
			return nil, err
		}
		keys[k] = true
	}
	return keys, rows.Err()
}

// readURLStates sets in known the id and state of those of urls the
// crawl stores.
func readURLStates(ctx context.Context, tx pgx.Tx, crawl int64, urls []string, known map[string]urlState) error {
	rows, err := tx.Query(ctx, `SELECT url, id, state FROM urls WHERE crawl_id = $1 AND url = ANY($2)`, crawl, urls)
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u string
		var st urlState
		if err := rows.Scan(&u, &st.id, &st.state); err != nil {
			return fmt.Errorf("push: %w", err)
		}
		known[u] = st
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("push: %w", err)
	}
	return nil
}

// repairWaiting checks the crawl's counts of URLs waiting to be fetched,
// per host (hosts.waiting) and in all (crawls.waiting), against the URLs
// in state 0, and sets them right (telling Options.Log) when they are
// not. The counts are kept by every transaction that moves a URL in or
// out of state 0, for the frontier's bounds and the progress; a resume
// checks them, so that no drift (of a scent before markFetched read the
// state under the row's lock, or a database edited by hand) outlives it.
//
// The check is one statement, one snapshot, taking no lock: what
// committed agrees or not. Only counts found wrong are set, in a
// transaction of its own (see setWaiting).
func (s *Store) repairWaiting(ctx context.Context, name string, crawl int64) error {
	var ok bool
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `WITH c AS (SELECT host, count(*) AS n FROM urls WHERE crawl_id = $1 AND state = 0 GROUP BY host)
			SELECT w.waiting = COALESCE((SELECT sum(n) FROM c), 0)
				AND NOT EXISTS (SELECT 1 FROM hosts h LEFT JOIN c ON c.host = h.host WHERE h.crawl_id = $1 AND h.waiting <> COALESCE(c.n, 0))
				AND NOT EXISTS (SELECT 1 FROM c WHERE NOT EXISTS (SELECT 1 FROM hosts h WHERE h.crawl_id = $1 AND h.host = c.host))
			FROM crawls w WHERE w.id = $1`, crawl).Scan(&ok)
	})
	if err != nil {
		return fmt.Errorf("check waiting count: %w", err)
	}
	if ok {
		return nil
	}
	var was, is int64
	if err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		was, is, err = setWaiting(ctx, tx, crawl)
		return err
	}); err != nil {
		return err
	}
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "crawl %s: its counts of URLs waiting were wrong (%d in all, not %d); corrected\n", name, was, is)
	}
	return nil
}

// setWaiting sets the crawl's counts of URLs waiting, per host and in
// all, to the URLs in state 0, and returns the total count it found
// stored and the true one.
//
// It runs while other processes may be at work on the crawl: their
// transactions change urls first and add their changes to the counts as
// they end, host rows in name order, then the crawl's row. setWaiting
// locks those rows in the same order, then counts in a statement of its
// own, whose snapshot is taken once the locks are held: a transaction
// that added its changes to a count before committed before the count,
// and one that had not adds them after the repair, to its result.
func setWaiting(ctx context.Context, tx pgx.Tx, crawl int64) (stored, real int64, err error) {
	if _, err := tx.Exec(ctx, `SELECT count(*) FROM (SELECT 1 FROM hosts WHERE crawl_id = $1 ORDER BY host COLLATE "C" FOR UPDATE) h`, crawl); err != nil {
		return 0, 0, fmt.Errorf("repair waiting count: %w", err)
	}
	if err := tx.QueryRow(ctx, `SELECT waiting FROM crawls WHERE id = $1 FOR UPDATE`, crawl).Scan(&stored); err != nil {
		return 0, 0, fmt.Errorf("repair waiting count: %w", err)
	}
	if _, err := tx.Exec(ctx, `WITH c AS (SELECT host, count(*) AS n FROM urls WHERE crawl_id = $1 AND state = 0 GROUP BY host),
		fix AS (SELECT h.host, COALESCE(c.n, 0) AS n FROM hosts h LEFT JOIN c ON c.host = h.host
			WHERE h.crawl_id = $1 AND h.waiting <> COALESCE(c.n, 0))
		UPDATE hosts h SET waiting = fix.n FROM fix WHERE h.crawl_id = $1 AND h.host = fix.host`, crawl); err != nil {
		return 0, 0, fmt.Errorf("repair waiting count: %w", err)
	}
	// A host with waiting URLs and no row: only a count gone wrong
	// leaves one so; a row another process adds meanwhile wins.
	if _, err := tx.Exec(ctx, `INSERT INTO hosts(crawl_id, host, waiting)
		SELECT $1, host, count(*) FROM urls u WHERE crawl_id = $1 AND state = 0
			AND NOT EXISTS (SELECT 1 FROM hosts h WHERE h.crawl_id = $1 AND h.host = u.host)
		GROUP BY host ORDER BY host
		ON CONFLICT (crawl_id, host) DO NOTHING`, crawl); err != nil {
		return 0, 0, fmt.Errorf("repair waiting count: %w", err)
	}
	if err := tx.QueryRow(ctx, `UPDATE crawls SET waiting = (SELECT count(*) FROM urls WHERE crawl_id = $1 AND state = 0)
		WHERE id = $1 RETURNING waiting`, crawl).Scan(&real); err != nil {
		return 0, 0, fmt.Errorf("repair waiting count: %w", err)
	}
	return stored, real, nil
}
