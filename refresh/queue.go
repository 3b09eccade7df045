package refresh

import "time"

// Item is a page waiting in a Queue: its ID and when it is due.
type Item struct {
	Due time.Time
	ID  int64
}

type qitem struct {
	due int64 // Unix nanoseconds
	id  int64
}

// Queue holds pages by the time they are next due, earliest first. Its
// memory is 16 bytes a page; Push and each page popped cost O(log n). The
// zero Queue is empty and ready to use; it is not safe for concurrent use.
type Queue struct {
	h []qitem
}

// Len is the number of pages in the queue.
func (q *Queue) Len() int { return len(q.h) }

// Grow makes room for n more pages.
func (q *Queue) Grow(n int) {
	if cap(q.h)-len(q.h) < n {
		h := make([]qitem, len(q.h), len(q.h)+n)
		copy(h, q.h)
		q.h = h
	}
}

// Push adds page id, due at due.
func (q *Queue) Push(id int64, due time.Time) {
	q.h = append(q.h, qitem{due: due.UnixNano(), id: id})
	q.up(len(q.h) - 1)
}

// Next returns the earliest page without removing it; ok is false when
// the queue is empty.
func (q *Queue) Next() (it Item, ok bool) {
	if len(q.h) == 0 {
		return Item{}, false
	}
	return Item{Due: time.Unix(0, q.h[0].due).UTC(), ID: q.h[0].id}, true
}

// PopDue removes and appends to dst up to max pages due at or before now,
// earliest first, and returns dst.
func (q *Queue) PopDue(dst []Item, now time.Time, max int) []Item {
	t := now.UnixNano()
	for n := 0; n < max && len(q.h) > 0 && q.h[0].due <= t; n++ {
		top := q.h[0]
		last := len(q.h) - 1
		q.h[0] = q.h[last]
		q.h = q.h[:last]
		if last > 0 {
			q.down(0)
		}
		dst = append(dst, Item{Due: time.Unix(0, top.due).UTC(), ID: top.id})
	}
	return dst
}

func (q *Queue) less(i, j int) bool {
	a, b := q.h[i], q.h[j]
	return a.due < b.due || a.due == b.due && a.id < b.id
}

func (q *Queue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *Queue) down(i int) {
	n := len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
}
