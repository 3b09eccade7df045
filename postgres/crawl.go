package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/urlnorm"
)

var (
	_ crawler.Store          = (*Store)(nil)
	_ crawler.URLLookup      = (*Store)(nil)
	_ crawler.SharedFrontier = (*Store)(nil)
)

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// OpenCrawl creates the crawl named spec.Name or joins it: many processes
// may run one crawl at once. URLs leased by processes that are gone
// (their leases expired) go back on top of their stacks; those of live
// processes stay theirs.
func (s *Store) OpenCrawl(ctx context.Context, spec crawler.CrawlSpec) (crawler.CrawlState, error) {
	if spec.Name == "" {
		return crawler.CrawlState{}, errors.New("open crawl: empty name")
	}
	var st crawler.CrawlState
	var holder string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		st = crawler.CrawlState{}
		// Processes starting at once create the crawl once.
		if err := lockAll(ctx, tx, []int64{lockKey("crawl", spec.Name)}); err != nil {
			return err
		}
		var strategy, stacks, topics string
		err := tx.QueryRow(ctx, `SELECT id, strategy, stacks, topics FROM crawls WHERE name = $1`, spec.Name).
			Scan(&st.ID, &strategy, &stacks, &topics)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if st.ID, err = s.createCrawl(ctx, tx, spec); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			st.Resumed = true
			if strategy != string(spec.Strategy) || stacks != jsonList(spec.Stacks) || topics != jsonList(spec.Topics) {
				return fmt.Errorf("crawl %q exists with strategy %s and topics %s; resume it with the same settings or choose another --crawl name", spec.Name, strategy, topics)
			}
			if _, err := tx.Exec(ctx, `UPDATE crawls SET finished_at = NULL, finish = NULL WHERE id = $1`, st.ID); err != nil {
				return err
			}
			if st.Requeue, err = requeue(ctx, tx, st.ID, expiredLeases); err != nil {
				return err
			}
			// This process running the crawl again: the fetches its
			// earlier run leased and never committed go back too.
			if prev := s.holderOf(st.ID); prev != "" {
				n, err := requeue(ctx, tx, st.ID, `holder = $2`, prev)
				if err != nil {
					return err
				}
				st.Requeue += n
			}
			if _, err := tx.Exec(ctx, `DELETE FROM holders WHERE crawl_id = $1 AND expires_at <= now()`, st.ID); err != nil {
				return err
			}
			var budget int
			if err := tx.QueryRow(ctx, `SELECT budget, (SELECT count(*) FROM holders WHERE crawl_id = $1 AND id <> $2)
				FROM crawls WHERE id = $1`, st.ID, s.id+"/"+strconv.FormatInt(st.ID, 10)).Scan(&budget, &st.Others); err != nil {
				return err
			}
			// The processes of a crawl share one budget: one joining them
			// with another would change theirs behind their back.
			if st.Others > 0 && budget != s.opts.Budget {
				return fmt.Errorf("crawl %q is run by %d other process(es) with a budget of %s; join it with the same budget (--max-pages %d), or stop them first", spec.Name, st.Others, budgetText(budget), budget)
			}
		}
		if s.opts.Budget > 0 {
			if _, err := tx.Exec(ctx, `UPDATE crawls SET budget = $1 WHERE id = $2`, s.opts.Budget, st.ID); err != nil {
				return err
			}
		}
		if holder, err = s.join(ctx, tx, st.ID); err != nil {
			return err
		}
		if _, err := ensureParams(ctx, tx, spec.MinHash); err != nil {
			return err
		}
		if len(spec.Learnt) > 0 {
			urls := make([]string, len(spec.Learnt))
			for i, u := range spec.Learnt {
				urls[i] = u.String()
			}
			if _, err := tx.Exec(ctx, `INSERT INTO learnt(crawl_id, url) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, st.ID, urls); err != nil {
				return fmt.Errorf("keep the pages learnt from: %w", err)
			}
		}
		if err := tx.QueryRow(ctx, `SELECT fetched, succeeded FROM crawls WHERE id = $1`, st.ID).Scan(&st.Fetched, &st.Succeeded); err != nil {
			return err
		}
		st.ByTopic, err = countsBy(tx.Query(ctx, `SELECT topic, count(*) FROM pages WHERE crawl_id = $1 GROUP BY topic`, st.ID))
		return err
	})
	if err != nil {
		return crawler.CrawlState{}, fmt.Errorf("open crawl %s: %w", spec.Name, err)
	}
	s.mu.Lock()
	s.caps[st.ID] = frontierCaps{perHost: spec.MaxWaitingPerHost, total: spec.MaxWaiting}
	s.mu.Unlock()
	if st.Resumed {
		if err := s.repairWaiting(ctx, spec.Name, st.ID); err != nil {
			return crawler.CrawlState{}, fmt.Errorf("open crawl %s: %w", spec.Name, err)
		}
	}
	s.started(st.ID, holder)
	if st.Resumed {
		err := s.retry(ctx, func() error {
			err := s.pool.QueryRow(ctx, `SELECT state FROM learners WHERE crawl_id = $1`, st.ID).Scan(&st.Learner)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			return err
		})
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return crawler.CrawlState{}, fmt.Errorf("open crawl %s: learner: %w", spec.Name, err)
		}
	}
	return st, nil
}

func (s *Store) createCrawl(ctx context.Context, tx pgx.Tx, spec crawler.CrawlSpec) (int64, error) {
	cfg := spec.Config
	if cfg == "" {
		cfg = "{}"
	}
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO crawls(name, strategy, stacks, topics, config) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		spec.Name, string(spec.Strategy), jsonList(spec.Stacks), jsonList(spec.Topics), cfg).Scan(&id); err != nil {
		return 0, fmt.Errorf("create crawl %s: %w", spec.Name, err)
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
	w := newWaitingCount(tx, id)
	if err := push(ctx, tx, id, seeds, frontierCaps{perHost: spec.MaxWaitingPerHost, total: spec.MaxWaiting}, w); err != nil {
		return 0, err
	}
	return id, w.save(ctx)
}

// orderBy is the ORDER BY of a stack's entries served in order; each has
// an index that yields them without sorting.
func orderBy(order crawler.Order) (string, error) {
	switch order {
	case crawler.LIFO:
		return "f.seq DESC", nil
	case crawler.FIFO:
		return "f.seq ASC", nil
	case crawler.BestFirst:
		return "f.score DESC, f.seq DESC", nil
	case crawler.Shallowest:
		return "f.depth ASC, f.score DESC, f.seq DESC", nil
	case crawler.SurveyFirst:
		return "f.score DESC, f.seq DESC", nil // in two parts, by popParts
	}
	return "", fmt.Errorf("pop: unknown order %d", order)
}

// budgetText says a crawl's budget of pages (0: none).
func budgetText(n int) string {
	if n == 0 {
		return "no limit of pages"
	}
	return strconv.Itoa(n) + " pages"
}

// popParts are the conditions of the parts of a stack served one after
// the other: crawler.SurveyFirst serves the entries within SurveyDepth
// before the others, each part in score order.
func popParts(order crawler.Order) []string {
	if order == crawler.SurveyFirst {
		d := strconv.Itoa(crawler.SurveyDepth)
		return []string{" AND f.depth <= " + d, " AND f.depth > " + d}
	}
	return []string{""}
}

// Pop leases up to n URLs from topic's stack to this process. Entries are
// claimed with FOR UPDATE SKIP LOCKED, so processes popping the same stack
// at once take different entries without waiting for each other. With
// Options.Budget, no more URLs are leased than the crawl's budget leaves;
// with Options.HostDelay, an entry whose host was leased less than that
// long ago (by any process) stays on the stack for later.
func (s *Store) Pop(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost int) ([]crawler.Entry, error) {
	out, _, _, err := s.pop(ctx, crawl, topic, order, n, maxPerHost, 0, nil)
	return out, err
}

var (
	_ crawler.Peeker      = (*Store)(nil)
	_ crawler.FloorPopper = (*Store)(nil)
)

// PopPeek implements crawler.Peeker: Pop, and up to peek of the entries
// that come next on the stack, read in the same transaction after those
// taken (peekNext) and not taken.
func (s *Store) PopPeek(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int) (taken, next []crawler.Entry, err error) {
	taken, next, _, err = s.pop(ctx, crawl, topic, order, n, maxPerHost, peek, nil)
	return taken, next, err
}

// PopFloor implements crawler.FloorPopper: PopPeek that stops at the
// first entry valued below floor (in SurveyFirst order, past the
// survey's shallow entries), taking none from there on; its peek stops
// there too.
func (s *Store) PopFloor(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int, floor float64) (taken, next []crawler.Entry, stopped bool, err error) {
	return s.pop(ctx, crawl, topic, order, n, maxPerHost, peek, &floor)
}

// pop is Pop, and it peeks at up to peek entries after those it takes;
// with a floor it stops at the first entry of the stack's order valued
// below it (stopped), except the survey's shallow entries in SurveyFirst
// order. The entry it stops at and those after it stay on the stack.
func (s *Store) pop(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int, floor *float64) ([]crawler.Entry, []crawler.Entry, bool, error) {
	if n <= 0 {
		return nil, nil, false, nil
	}
	ob, err := orderBy(order)
	if err != nil {
		return nil, nil, false, err
	}
	holder := s.holderOf(crawl)
	if holder == "" {
		return nil, nil, false, fmt.Errorf("pop: crawl %d was not opened by this store", crawl)
	}
	if err := s.reapExpired(ctx, crawl); err != nil {
		return nil, nil, false, fmt.Errorf("pop %q: %w", topic, err)
	}
	below := func(score float64, depth int) bool {
		return floor != nil && score < *floor && (order != crawler.SurveyFirst || depth > crawler.SurveyDepth)
	}
	hostGate := ""
	if s.opts.HostDelay > 0 {
		hostGate = ` AND NOT EXISTS (SELECT 1 FROM hosts h WHERE h.crawl_id = f.crawl_id AND h.host = u.host AND h.next_at > now())`
	}
	// A part's peek reads the rows its pop would read next: those of URLs
	// still waiting, and, with a floor, those below it, where the pop
	// would stop (below).
	waiting := `u.state = 0`
	if floor != nil {
		waiting = `(u.state = 0 OR f.score < $4)`
		if order == crawler.SurveyFirst {
			waiting = `(u.state = 0 OR (f.score < $4 AND f.depth > ` + strconv.Itoa(crawler.SurveyDepth) + `))`
		}
	}
	var queries, peeks []string
	for _, part := range popParts(order) {
		queries = append(queries, `SELECT f.seq, f.url_id, u.url, u.host, u.state, f.depth, f.score
		FROM frontier f JOIN urls u ON u.id = f.url_id
		WHERE f.crawl_id = $1 AND f.topic = $2`+part+hostGate+` ORDER BY `+ob+` LIMIT $3 FOR UPDATE OF f SKIP LOCKED`)
		peeks = append(peeks, `SELECT f.seq, u.url, u.state, f.depth, f.score
		FROM frontier f JOIN urls u ON u.id = f.url_id
		WHERE f.crawl_id = $1 AND f.topic = $2`+part+hostGate+` AND `+waiting+` ORDER BY `+ob+` LIMIT $3 FOR KEY SHARE OF f SKIP LOCKED`)
	}
	var out, next []crawler.Entry
	stopped := false
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		out, next, stopped = out[:0], nil, false
		want := n
		if s.opts.Budget > 0 {
			// The crawl's row orders the pops of a budgeted crawl.
			var budget, succeeded, leased int
			if err := tx.QueryRow(ctx, `SELECT budget, succeeded FROM crawls WHERE id = $1 FOR UPDATE`, crawl).Scan(&budget, &succeeded); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM urls WHERE crawl_id = $1 AND state = 1`, crawl).Scan(&leased); err != nil {
				return err
			}
			if budget > 0 {
				want = min(want, budget-succeeded-leased)
			}
		}
		w := newWaitingCount(tx, crawl)
		seen := make(map[int64]bool)
		kept := 0 // entries of seen left on the stack
		part := 0
		for part < len(queries) && len(out) < want && !stopped {
			var cands []takeCand
			rows, err := tx.Query(ctx, queries[part], crawl, topic, want-len(out))
			if err != nil {
				return err
			}
			for rows.Next() {
				var c takeCand
				if err := rows.Scan(&c.seq, &c.urlID, &c.url, &c.host, &c.state, &c.depth, &c.score); err != nil {
					rows.Close()
					return err
				}
				if !seen[c.seq] {
					cands = append(cands, c)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if len(cands) == 0 {
				part++ // this part is spent
				continue
			}
			if maxPerHost <= 0 {
				// Every entry read up to the floor whose host's slot is
				// free (Options.HostDelay; hostSlots) is taken off the
				// stack, and those still waiting are leased, in a round
				// trip or two for all of them (takeAll).
				var take []takeCand
				for _, c := range cands {
					if below(c.score, c.depth) {
						stopped = true
						break
					}
					seen[c.seq] = true
					take = append(take, c)
				}
				if s.opts.HostDelay > 0 {
					n := len(take)
					if take, err = s.hostSlots(ctx, tx, crawl, take); err != nil {
						return err
					}
					kept += n - len(take)
				}
				taken, err := takeAll(ctx, tx, take, topic, holder)
				if err != nil {
					return err
				}
				for _, c := range taken {
					u, err := urlnorm.Parse(c.url)
					if err != nil {
						continue // cannot happen for stored URLs
					}
					w.add(c.host, -1)
					out = append(out, crawler.Entry{Topic: topic, URL: u, Depth: c.depth, Score: c.score})
				}
				continue
			}
			for _, c := range cands {
				if below(c.score, c.depth) {
					stopped = true
					break
				}
				seen[c.seq] = true
				if s.opts.HostDelay > 0 {
					// The host's slot: taken here, or by another process
					// first, and then the entry waits on its stack.
					tag, err := tx.Exec(ctx, `INSERT INTO hosts(crawl_id, host, next_at) VALUES ($1, $2, now() + $3 * interval '1 microsecond')
						ON CONFLICT (crawl_id, host) DO UPDATE SET next_at = excluded.next_at
						WHERE hosts.next_at IS NULL OR hosts.next_at <= now()`, crawl, c.host, s.opts.HostDelay.Microseconds())
					if err != nil {
						return err
					}
					if tag.RowsAffected() == 0 {
						kept++
						continue
					}
				}
				if _, err := tx.Exec(ctx, `DELETE FROM frontier WHERE seq = $1`, c.seq); err != nil {
					return err
				}
				if c.state != 0 {
					continue // fetched or leased through another stack
				}
				if maxPerHost > 0 {
					tag, err := tx.Exec(ctx, `INSERT INTO hosts(crawl_id, host, pages) VALUES ($1, $2, 1)
						ON CONFLICT (crawl_id, host) DO UPDATE SET pages = hosts.pages + 1 WHERE hosts.pages < $3`, crawl, c.host, maxPerHost)
					if err != nil {
						return err
					}
					if tag.RowsAffected() == 0 {
						continue
					}
				}
				tag, err := tx.Exec(ctx, `UPDATE urls SET state = 1, topic = $1, depth = $2, score = $3, holder = $4 WHERE id = $5 AND state = 0`,
					topic, c.depth, c.score, holder, c.urlID)
				if err != nil {
					return err
				}
				if tag.RowsAffected() == 0 {
					continue // taken by another process since the read
				}
				w.add(c.host, -1)
				u, err := urlnorm.Parse(c.url)
				if err != nil {
					continue // cannot happen for stored URLs
				}
				out = append(out, crawler.Entry{Topic: topic, URL: u, Depth: c.depth, Score: c.score})
			}
		}
		// A pop that stopped at the floor or reached the stack's end
		// has nothing to peek at.
		if peek > 0 && !stopped && part < len(queries) {
			args := []any{crawl, topic, peek + kept}
			if floor != nil {
				args = append(args, *floor)
			}
			var err error
			if next, err = peekNext(ctx, tx, peeks[part:], args, topic, peek, seen, below); err != nil {
				return fmt.Errorf("peek: %w", err)
			}
		}
		return w.save(ctx)
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("pop %q: %w", topic, err)
	}
	return out, next, stopped, nil
}

// hostSlots returns the entries of cands, read by a pop in its
// transaction, whose host's slot the pop takes: with Options.HostDelay a
// host is leased at most once a delay, by any process, so of its entries
// only the first may go, and only when its slot is free (hosts.next_at
// passed); the others stay on their stack. The slots are taken in one
// statement, as the pop would take them one entry after the other.
func (s *Store) hostSlots(ctx context.Context, tx pgx.Tx, crawl int64, cands []takeCand) ([]takeCand, error) {
	var hosts []string
	first := make(map[string]int, len(cands)) // host → index of its first entry
	for i, c := range cands {
		if _, ok := first[c.host]; !ok {
			first[c.host] = i
			hosts = append(hosts, c.host)
		}
	}
	if len(hosts) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `INSERT INTO hosts(crawl_id, host, next_at) SELECT $1, h, now() + $3 * interval '1 microsecond' FROM unnest($2::text[]) AS h
		ON CONFLICT (crawl_id, host) DO UPDATE SET next_at = excluded.next_at
		WHERE hosts.next_at IS NULL OR hosts.next_at <= now() RETURNING host`, crawl, hosts, s.opts.HostDelay.Microseconds())
	if err != nil {
		return nil, err
	}
	slotted, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	var out []takeCand
	for i, c := range cands {
		if first[c.host] == i && slices.Contains(slotted, c.host) {
			out = append(out, c)
		}
	}
	return out, nil
}

// takeCand is an entry a pop read from a stack: its frontier row (seq),
// its URL and the URL's state when read.
type takeCand struct {
	seq, urlID int64
	url, host  string
	state      int
	depth      int
	score      float64
}

// takeAll deletes the frontier rows of cands, read by a pop in its
// transaction, and leases to holder the URLs among them still waiting,
// each under the topic, depth and score of its first entry; another
// process may have leased or fetched one since the read. Both statements
// go to the server in one round trip. It returns the entries leased, in
// the order of cands.
func takeAll(ctx context.Context, tx pgx.Tx, cands []takeCand, topic, holder string) ([]takeCand, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	seqs := make([]int64, len(cands))
	var ids []int64
	var depths []int32
	var scores []float64
	first := make(map[int64]bool, len(cands))
	for i, c := range cands {
		seqs[i] = c.seq
		if c.state != 0 || first[c.urlID] {
			continue // fetched or leased through another stack, or a second entry of one URL
		}
		first[c.urlID] = true
		ids = append(ids, c.urlID)
		depths = append(depths, int32(c.depth))
		scores = append(scores, c.score)
	}
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM frontier WHERE seq = ANY($1)`, seqs)
	b.Queue(`UPDATE urls u SET state = 1, topic = $1, depth = v.depth, score = v.score, holder = $2
		FROM unnest($3::bigint[], $4::int[], $5::float8[]) AS v(id, depth, score)
		WHERE u.id = v.id AND u.state = 0 RETURNING u.id`, topic, holder, ids, depths, scores)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	leased := make(map[int64]bool, len(got))
	for _, id := range got {
		leased[id] = true
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	var out []takeCand
	for _, c := range cands {
		if c.state == 0 && leased[c.urlID] {
			out = append(out, c)
			delete(leased, c.urlID)
		}
	}
	return out, nil
}

// peekNext reads, in a pop's transaction after the entries it took, up
// to peek entries still waiting on topic's stack that come next in its
// order: the rows of queries (pop's peeks, with args), one query after
// the other, up to the first row below the floor, where the pop would
// stop. The rows the pop saw (seen) are passed over, and so are the
// entries another process is taking (SKIP LOCKED); none is locked: the
// read's row locks are given back (ROLLBACK TO SAVEPOINT) before the pop
// goes on. All queries go to the server in one round trip.
func peekNext(ctx context.Context, tx pgx.Tx, queries []string, args []any, topic string, peek int, seen map[int64]bool, below func(score float64, depth int) bool) ([]crawler.Entry, error) {
	b := &pgx.Batch{}
	b.Queue(`SAVEPOINT peek`)
	for _, q := range queries {
		b.Queue(q, args...)
	}
	b.Queue(`ROLLBACK TO SAVEPOINT peek`)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	var next []crawler.Entry
	done := false
	for range queries {
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		for !done && rows.Next() {
			var seq int64
			var url string
			var state, depth int
			var score float64
			if err := rows.Scan(&seq, &url, &state, &depth, &score); err != nil {
				rows.Close()
				return nil, err
			}
			switch {
			case seen[seq]:
			case below(score, depth):
				done = true
			case state == 0:
				if u, err := urlnorm.Parse(url); err == nil {
					next = append(next, crawler.Entry{Topic: topic, URL: u, Depth: depth, Score: score})
				}
				done = len(next) >= peek
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	return next, br.Close()
}

// storedLink is a link as kept in pages.links, one JSON object a link,
// its target as text; a read turns it into a crawler.Link (link).
type storedLink struct {
	Target  string    `json:"t"`
	Anchor  string    `json:"a,omitempty"`
	Context string    `json:"c,omitempty"`
	Scores  []float64 `json:"s,omitempty"`
}

// link turns a stored link back into the link the crawler committed, for
// a crawl of n topics (crawler.Link.ParseTarget).
func (sl storedLink) link(n int) (crawler.Link, error) {
	l := crawler.Link{Anchor: sl.Anchor, Context: sl.Context, Scores: sl.Scores}
	err := l.ParseTarget(sl.Target, n)
	return l, err
}

// Commit stores pages with their links and pushes entries in one
// transaction. It first takes advisory locks on what decides whether a
// page is new — its final URL, its near-duplicate keys or, for a page
// without a word to sign, its body's hash — so that two processes
// committing the same or near-duplicate pages at once decide one after
// the other, as one process would. Pages keep their order in the crawl
// (pages.ord), which is global across processes.
//
// Run again (a deadlock, a lost connection), the transaction starts from
// the pages as given: a page made an alias by an attempt that did not
// commit is restored first. Whether an attempt whose COMMIT got no
// answer committed is told by inTx's token; besides, a page whose URL
// holds a stored page already is not stored again nor counted
// (crawls.fetched, succeeded), URLs known already are not counted as
// waiting again, and frontier rows are upserts.
func (s *Store) Commit(ctx context.Context, crawl int64, pages []*crawler.Page, entries []crawler.Entry) error {
	holder := s.holderOf(crawl)
	s.mu.Lock()
	caps := s.caps[crawl]
	s.mu.Unlock()
	given := make([]crawler.Page, len(pages))
	for i, p := range pages {
		given[i] = *p
	}
	newURLs := 0
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for i, p := range pages {
			*p = given[i]
		}
		w := newWaitingCount(tx, crawl)
		defer func() { newURLs = w.stored }()
		var stored []int64
		var searchable []bool
		succeeded := 0
		if len(pages) > 0 {
			var err error
			if stored, searchable, succeeded, err = insertPages(ctx, tx, crawl, holder, pages, w); err != nil {
				return err
			}
		}
		if err := push(ctx, tx, crawl, entries, caps, w); err != nil {
			return err
		}
		if err := w.save(ctx); err != nil {
			return err
		}
		if len(stored) > 0 {
			var last int64
			if err := tx.QueryRow(ctx, `UPDATE crawls SET fetched = fetched + $1, succeeded = succeeded + $2 WHERE id = $3 RETURNING fetched`,
				len(stored), succeeded, crawl).Scan(&last); err != nil {
				return err
			}
			// Each page's place in the crawl, and the search vector of
			// those dedup found to be originals, in one write of their rows.
			if _, err := tx.Exec(ctx, `UPDATE pages p SET ord = $1 + t.i,
				search = CASE WHEN t.s THEN setweight(to_tsvector('english', p.title), 'A') || to_tsvector('english', p.text) ELSE p.search END
				FROM unnest($2::bigint[], $3::bool[]) WITH ORDINALITY AS t(id, s, i) WHERE p.id = t.id`,
				last-int64(len(stored)), stored, searchable); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.keepStatistics(ctx, newURLs)
	return nil
}

// commitLocks are the advisory lock keys of a commit's pages.
func commitLocks(crawl int64, pages []*crawler.Page, sigs []minhash.Signature) []int64 {
	var keys []int64
	c := fmt.Sprint(crawl)
	for i, p := range pages {
		if p.Failure != "" {
			continue
		}
		final := p.FinalURL
		if final.IsZero() {
			final = p.URL
		}
		keys = append(keys, lockKey("final", c, final.String()))
		if sigs[i].Indexable() {
			for _, k := range sigs[i].Keys() {
				keys = append(keys, int64(k.Hash()))
			}
		} else if p.ContentHash != "" {
			keys = append(keys, lockKey("body", p.ContentHash))
		}
	}
	return keys
}

// insertPages stores pages; it returns the ids of the pages stored in
// order (a page whose URL another process committed first is not stored
// again), whether each is to be made searchable (dedup) and how many of
// them succeeded.
func insertPages(ctx context.Context, tx pgx.Tx, crawl int64, holder string, pages []*crawler.Page, w *waitingCount) (stored []int64, searchable []bool, succeeded int, err error) {
	var topicsJSON string
	if err := tx.QueryRow(ctx, `SELECT topics FROM crawls WHERE id = $1`, crawl).Scan(&topicsJSON); err != nil {
		return nil, nil, 0, fmt.Errorf("crawl %d: %w", crawl, err)
	}
	var topics []string
	if err := json.Unmarshal([]byte(topicsJSON), &topics); err != nil {
		return nil, nil, 0, fmt.Errorf("crawl %d topics: %w", crawl, err)
	}
	params, err := ensureParams(ctx, tx, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	sigs := make([]minhash.Signature, len(pages))
	blobs := make([][]byte, len(pages))
	for i, p := range pages {
		if sigs[i], blobs[i], err = signature(params, p); err != nil {
			return nil, nil, 0, fmt.Errorf("store page %s: %w", p.URL, err)
		}
	}
	if err := lockAll(ctx, tx, commitLocks(crawl, pages, sigs)); err != nil {
		return nil, nil, 0, err
	}
	for i, p := range pages {
		urlID, err := markFetched(ctx, tx, crawl, p.URL, true, w)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("store page %s: %w", p.URL, err)
		}
		final := p.FinalURL
		if final.IsZero() {
			final = p.URL
		}
		if final != p.URL {
			if _, err := markFetched(ctx, tx, crawl, final, false, w); err != nil {
				return nil, nil, 0, fmt.Errorf("store page %s: %w", p.URL, err)
			}
		}
		// Stored already: by another process whose lease this one
		// outlived. The URL's row lock, held since markFetched, orders
		// the two commits.
		var done bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pages WHERE url_id = $1)`, urlID).Scan(&done); err != nil {
			return nil, nil, 0, fmt.Errorf("store page %s: %w", p.URL, err)
		}
		if done {
			continue
		}
		if err := aliasIfStored(ctx, tx, crawl, p, final); err != nil {
			return nil, nil, 0, err
		}
		if p.Failure != "" {
			blobs[i], sigs[i] = nil, minhash.Signature{}
		}
		links := make([]storedLink, len(p.Links))
		for j, l := range p.Links {
			links[j] = storedLink{Target: l.Target.String(), Anchor: l.Anchor, Context: l.Context, Scores: l.Scores}
		}
		lj, err := json.Marshal(links)
		if err != nil {
			return nil, nil, 0, err
		}
		var pageID int64
		err = tx.QueryRow(ctx, `INSERT INTO pages(crawl_id, url_id, url, final_url, topic, depth, status,
			fetched_at, duration_ms, size, content_type, etag, modified, content_hash, title, text, failure, signature, links, holder)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::jsonb, $20)
			ON CONFLICT (url_id) DO NOTHING RETURNING id`,
			crawl, urlID, p.URL.String(), final.String(), p.Topic, p.Depth, p.Status,
			p.FetchedAt.UTC(), float64(p.Duration)/float64(time.Millisecond), p.Size, p.ContentType,
			p.ETag, p.Modified, p.ContentHash, p.Title, p.Text, p.Failure, blobs[i], string(lj), nullable(holder)).Scan(&pageID)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // committed by another process whose lease this one outlived
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("store page %s: %w", p.URL, err)
		}
		stored = append(stored, pageID)
		if p.Failure == "" {
			succeeded++
		}
		for _, r := range p.Redirects {
			if _, err := tx.Exec(ctx, `INSERT INTO aliases(crawl_id, url, target, status, page_id) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (crawl_id, url) DO UPDATE SET target = excluded.target, status = excluded.status, page_id = excluded.page_id`,
				crawl, r.URL.String(), r.Target.String(), r.Status, pageID); err != nil {
				return nil, nil, 0, fmt.Errorf("store alias %s: %w", r.URL, err)
			}
		}
		search, err := dedup(ctx, tx, pageID, p, sigs[i])
		if err != nil {
			return nil, nil, 0, fmt.Errorf("store page %s: %w", p.URL, err)
		}
		searchable = append(searchable, search)
		if err := insertScores(ctx, tx, pageID, p, topics); err != nil {
			return nil, nil, 0, err
		}
	}
	return stored, searchable, succeeded, nil
}

// markFetched moves u to fetched (urls.state 2), adding it when the crawl
// does not know it yet, and returns its id. A URL waiting (state 0)
// leaves the waiting counts; a URL leased (state 1) is taken only when
// lease is set (u is the page's own URL: its lease, or a lease that
// expired and was given to another process, ends here), not as a
// redirect's target that another process is fetching.
//
// The state is read under the row's lock, so that the counts change by
// exactly the URLs that were waiting: a process putting an expired lease
// of u back on its stack (state 1 to 0, one more waiting) at the same
// time either commits first, and u is then seen waiting, or waits for
// this transaction and finds u fetched.
func markFetched(ctx context.Context, tx pgx.Tx, crawl int64, u urlnorm.URL, lease bool, w *waitingCount) (int64, error) {
	for {
		var id int64
		var state int
		var host string
		err := tx.QueryRow(ctx, `SELECT id, state, host FROM urls WHERE crawl_id = $1 AND url = $2 FOR UPDATE`, crawl, u.String()).Scan(&id, &state, &host)
		if errors.Is(err, pgx.ErrNoRows) {
			err = tx.QueryRow(ctx, `INSERT INTO urls(crawl_id, url, host, state) VALUES ($1, $2, $3, 2)
				ON CONFLICT (crawl_id, url) DO NOTHING RETURNING id`, crawl, u.String(), u.Host()).Scan(&id)
			if errors.Is(err, pgx.ErrNoRows) {
				continue // inserted by another process since: read it again
			}
			return id, err
		}
		if err != nil {
			return 0, err
		}
		if state == 0 || state == 1 && lease {
			if _, err := tx.Exec(ctx, `UPDATE urls SET state = 2, holder = NULL WHERE id = $1`, id); err != nil {
				return 0, err
			}
		}
		if state == 0 {
			w.add(host, -1)
		}
		return id, nil
	}
}

// insertScores stores the scores and verdicts of p (checked against
// topics), if it has any, one row a topic.
func insertScores(ctx context.Context, tx pgx.Tx, pageID int64, p *crawler.Page, topics []string) error {
	if err := p.CheckScores(topics); err != nil {
		return fmt.Errorf("store %w", err)
	}
	if len(p.Scores) == 0 {
		return nil
	}
	scores, rel := make([]float64, len(topics)), make([]bool, len(topics))
	for i, t := range topics {
		scores[i], rel[i] = p.Scores[t], p.Relevant[t]
	}
	if _, err := tx.Exec(ctx, `INSERT INTO page_scores(page_id, topic, score, relevant)
		SELECT $1, t, s, r FROM unnest($2::text[], $3::float8[], $4::bool[]) AS x(t, s, r)`,
		pageID, topics, scores, rel); err != nil {
		return fmt.Errorf("store page %s: %w", p.URL, err)
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// aliasIfStored turns successful page p, whose final URL is final, into
// an alias when another page of the crawl is already stored with that
// final URL: exactly one page is stored per final URL, the first
// committed.
func aliasIfStored(ctx context.Context, tx pgx.Tx, crawl int64, p *crawler.Page, final urlnorm.URL) error {
	if p.Failure != "" {
		return nil
	}
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM pages WHERE crawl_id = $1 AND final_url = $2 AND failure = '' LIMIT 1`, crawl, final.String()).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
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
	var m map[string]int
	err := s.retry(ctx, func() error {
		var err error
		m, err = countsBy(s.pool.Query(ctx, `SELECT f.topic, count(*) FROM frontier f JOIN urls u ON u.id = f.url_id
			WHERE f.crawl_id = $1 AND u.state = 0 GROUP BY f.topic`, crawl))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("frontier sizes: %w", err)
	}
	return m, nil
}

// FinishCrawl records the end of a crawl (by its last process to end).
func (s *Store) FinishCrawl(ctx context.Context, crawl int64, reason string) error {
	err := s.retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, `UPDATE crawls SET finished_at = now(), finish = $1 WHERE id = $2`, reason, crawl)
		return err
	})
	if err != nil {
		return fmt.Errorf("finish crawl %d: %w", crawl, err)
	}
	return nil
}

// Rescore implements crawler.Store: it sets the score of each entry still
// waiting on its stack (the last given for an entry given twice).
func (s *Store) Rescore(ctx context.Context, crawl int64, entries []crawler.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	type key struct{ topic, url string }
	last := make(map[key]float64, len(entries))
	for _, e := range entries {
		last[key{e.Topic, e.URL.String()}] = e.Score
	}
	keys := make([]key, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].url < keys[j].url || keys[i].url == keys[j].url && keys[i].topic < keys[j].topic
	})
	topics, urls, scores := make([]string, len(keys)), make([]string, len(keys)), make([]float64, len(keys))
	for i, k := range keys {
		topics[i], urls[i], scores[i] = k.topic, k.url, last[k]
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The rows are locked in one order (URL id, then stack; Push
		// locks the rows it updates in the same) before they are
		// updated: an UPDATE … FROM locks them in whatever order its join
		// gives, and two processes rescoring at once deadlocked (a second
		// lost each time, and the transaction run again).
		_, err := tx.Exec(ctx, `WITH x AS (
				SELECT f.topic, f.url_id, x.s FROM unnest($2::text[], $3::text[], $4::float8[]) AS x(t, u, s)
				JOIN urls u ON u.crawl_id = $1 AND u.url = x.u
				JOIN frontier f ON f.crawl_id = $1 AND f.topic = x.t AND f.url_id = u.id
				ORDER BY f.url_id, f.topic FOR UPDATE OF f)
			UPDATE frontier f SET score = x.s FROM x WHERE f.crawl_id = $1 AND f.topic = x.topic AND f.url_id = x.url_id`,
			crawl, topics, urls, scores)
		return err
	})
	if err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	return nil
}

// SaveLearner implements crawler.Store.
func (s *Store) SaveLearner(ctx context.Context, crawl int64, state []byte) error {
	err := s.retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, `INSERT INTO learners(crawl_id, state, saved_at) VALUES ($1, $2, now())
			ON CONFLICT (crawl_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at`, crawl, state)
		return err
	})
	if err != nil {
		return fmt.Errorf("save learner: %w", err)
	}
	return nil
}

// KnownURL implements crawler.URLLookup; it is safe from any goroutine.
func (s *Store) KnownURL(ctx context.Context, crawl int64, u urlnorm.URL) (known, taken bool, err error) {
	var state int
	err = s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT state FROM urls WHERE crawl_id = $1 AND url = $2`, crawl, u.String()).Scan(&state)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("known %s: %w", u, err)
	}
	return true, state != 0, nil
}

// AwaitWork implements crawler.SharedFrontier: while the crawl's frontier
// holds no entry this process may lease now but other processes hold
// leases (whose pages may push new entries, or whose processes may die
// and give them back), it waits; it returns true as soon as there is work,
// false when the crawl is done for every process.
func (s *Store) AwaitWork(ctx context.Context, crawl int64) (bool, error) {
	holder := s.holderOf(crawl)
	for {
		if err := s.reapExpired(ctx, crawl); err != nil {
			return false, err
		}
		var waiting, budgetLeft, others bool
		var nextAt *time.Time
		err := s.retry(ctx, func() error {
			return s.pool.QueryRow(ctx, `SELECT
				EXISTS (SELECT 1 FROM frontier f JOIN urls u ON u.id = f.url_id WHERE f.crawl_id = $1 AND u.state = 0
					AND NOT EXISTS (SELECT 1 FROM hosts h WHERE h.crawl_id = $1 AND h.host = u.host AND h.next_at > now())),
				(SELECT budget = 0 OR succeeded + (SELECT count(*) FROM urls WHERE crawl_id = $1 AND state = 1) < budget FROM crawls WHERE id = $1),
				EXISTS (SELECT 1 FROM urls WHERE crawl_id = $1 AND state = 1 AND holder IS DISTINCT FROM $2),
				(SELECT min(h.next_at) FROM hosts h WHERE h.crawl_id = $1 AND h.next_at > now())`,
				crawl, holder).Scan(&waiting, &budgetLeft, &others, &nextAt)
		})
		if err != nil {
			return false, fmt.Errorf("await work: %w", err)
		}
		if waiting && budgetLeft {
			return true, nil
		}
		if !others && !budgetLeft {
			return false, crawler.ErrSharedBudgetSpent
		}
		if !others && nextAt == nil {
			return false, s.sweepFrontier(ctx, crawl)
		}
		pause := 100 * time.Millisecond
		if nextAt != nil && time.Until(*nextAt) < pause {
			pause = max(time.Until(*nextAt), time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// sweepFrontier deletes the crawl's frontier rows whose URL no longer
// waits, once the crawl is done. A URL pushed on several stacks keeps
// its rows on the others when one of them leases it, and a push leaves
// a row of a leased URL that another pop holds to that pop (push). A
// pop deletes such a row when it comes to it, and nothing is fetched
// twice; this deletes the last of them, when no pop will come.
func (s *Store) sweepFrontier(ctx context.Context, crawl int64) error {
	err := s.retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, `DELETE FROM frontier f USING urls u
			WHERE f.crawl_id = $1 AND u.id = f.url_id AND u.state <> 0`, crawl)
		return err
	})
	if err != nil {
		return fmt.Errorf("await work: sweep the frontier: %w", err)
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

// FrontierDropped reads what the crawl's frontier bounds dropped.
func (s *Store) FrontierDropped(ctx context.Context, crawl int64) (Dropped, error) {
	var d Dropped
	err := s.retry(ctx, func() error {
		d = Dropped{}
		err := s.pool.QueryRow(ctx, `SELECT COALESCE(SUM(dropped), 0), count(*) FILTER (WHERE dropped > 0) FROM hosts WHERE crawl_id = $1`, crawl).Scan(&d.URLs, &d.Hosts)
		if err != nil || d.URLs == 0 {
			return err
		}
		return s.pool.QueryRow(ctx, `SELECT host, dropped FROM hosts WHERE crawl_id = $1 ORDER BY dropped DESC, host LIMIT 1`, crawl).Scan(&d.Top, &d.TopURLs)
	})
	return d, err
}

// Progress is a crawl's totals across its processes and this process's
// share.
type Progress struct {
	Fetched, Succeeded int // pages committed by all processes
	Mine               int // of Fetched, by this process
	Processes          int // processes holding the crawl now
	Waiting, Leased    int
}

// CrawlProgress reads the crawl's totals.
func (s *Store) CrawlProgress(ctx context.Context, crawl int64) (Progress, error) {
	var p Progress
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT c.fetched, c.succeeded,
			(SELECT count(*) FROM pages WHERE crawl_id = $1 AND holder = $2),
			(SELECT count(*) FROM holders WHERE crawl_id = $1 AND expires_at > now()),
			c.waiting, (SELECT count(*) FROM urls WHERE crawl_id = $1 AND state = 1)
		FROM crawls c WHERE c.id = $1`, crawl, s.holderOf(crawl)).Scan(&p.Fetched, &p.Succeeded, &p.Mine, &p.Processes, &p.Waiting, &p.Leased)
	})
	if err != nil {
		return p, fmt.Errorf("crawl progress: %w", err)
	}
	return p, nil
}

var _ crawler.CrawlCounter = (*Store)(nil)

// CrawlCounts implements crawler.CrawlCounter: the crawl's committed
// fetches and pages, all its processes together, and its pages found
// on-topic per topic.
func (s *Store) CrawlCounts(ctx context.Context, crawl int64) (crawler.CrawlCounts, error) {
	var c crawler.CrawlCounts
	err := s.retry(ctx, func() error {
		if err := s.pool.QueryRow(ctx, `SELECT fetched, succeeded FROM crawls WHERE id = $1`, crawl).Scan(&c.Fetched, &c.Succeeded); err != nil {
			return err
		}
		var err error
		c.Relevant, err = countsBy(s.pool.Query(ctx, `SELECT ps.topic, count(*) FROM page_scores ps JOIN pages p ON p.id = ps.page_id
			WHERE p.crawl_id = $1 AND ps.relevant GROUP BY ps.topic`, crawl))
		return err
	})
	if err != nil {
		return c, fmt.Errorf("crawl counts: %w", err)
	}
	return c, nil
}

// countsBy reads the rows of a query of (key, count) into a map.
func countsBy(rows pgx.Rows, err error) (map[string]int, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := make(map[string]int)
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		m[k] = n
	}
	return m, rows.Err()
}
