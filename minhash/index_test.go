package minhash

import (
	"context"
	"errors"
	"testing"
)

// keyRows serves rows of a key table from memory, as a store's query
// would.
type keyRows struct {
	rows [][]int64 // hash, seq, id, features
	i    int
	err  error
}

func (r *keyRows) Next() bool { r.i++; return r.i <= len(r.rows) }

func (r *keyRows) Scan(dest ...any) error {
	row := r.rows[r.i-1]
	if len(dest) != len(row) {
		return errors.New("scan: wrong number of columns")
	}
	for j, d := range dest {
		*d.(*int64) = row[j]
	}
	return nil
}

func (r *keyRows) Err() error { return r.err }

// row is the key table's row of key k of a page stored with features f.
func row(k Key, seq, id int64, f [NumFeatures]uint64) []int64 {
	out := []int64{int64(k.Hash()), seq, id}
	for _, v := range f {
		out = append(out, int64(v))
	}
	return out
}

func TestFirstConfirmed(t *testing.T) {
	sig := Signature{Kind: KindShingled, Features: [NumFeatures]uint64{1, 2, 3, 4, 5, 6}}
	keys := sig.Keys()
	// Stored page 7 agrees with sig at positions 0 and 1 only; page 5's
	// row carries the same hash, but its features differ there: a hash
	// collision, which must not count.
	agree := [NumFeatures]uint64{1, 2, 30, 40, 50, 60}
	other := [NumFeatures]uint64{10, 20, 30, 40, 50, 60}
	rows := &keyRows{rows: [][]int64{
		row(keys[0], 1, 5, other),
		row(keys[0], 2, 7, agree),
		row(keys[0], 3, 9, agree),
	}}
	id, seq, found, err := FirstConfirmed(rows, keys)
	if err != nil || !found || id != 7 || seq != 2 {
		t.Fatalf("FirstConfirmed = %d, %d, %v, %v; want page 7, seq 2", id, seq, found, err)
	}

	_, _, found, err = FirstConfirmed(&keyRows{rows: [][]int64{row(keys[0], 1, 5, other)}}, keys)
	if err != nil || found {
		t.Fatalf("a hash collision alone: found %v, err %v; want no match", found, err)
	}

	fail := errors.New("connection lost")
	_, _, found, err = FirstConfirmed(&keyRows{err: fail}, keys)
	if !errors.Is(err, fail) || found {
		t.Fatalf("rows failing: found %v, err %v; want the rows' error", found, err)
	}
}

func TestAdmit(t *testing.T) {
	live, done := context.Background(), canceled()
	shingled := Signature{Kind: KindShingled}
	shingled.Features[0] = 1
	tests := []struct {
		name      string
		ctx       context.Context
		sig       Signature
		indexable bool
		err       error
	}{
		{"shingled", live, shingled, true, nil},
		{"empty", live, Signature{}, false, nil},
		{"invalid", live, Signature{Kind: 7}, false, ErrSignature},
		{"context done", done, shingled, false, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			indexable, err := Admit(tt.ctx, tt.sig)
			if indexable != tt.indexable || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Errorf("Admit = %v, %v; want %v, %v", indexable, err, tt.indexable, tt.err)
			}
		})
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
