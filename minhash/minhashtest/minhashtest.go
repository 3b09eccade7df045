package minhashtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/scent-crawler/scent/minhash"
)

// Run runs the behaviour suite against the indexes that newIndex returns.
// newIndex must return a new, empty index for every call, made for
// minhash.DefaultParams; it may register cleanups with t.
func Run(t *testing.T, newIndex func(t *testing.T) minhash.Index) {
	t.Helper()
	signer, err := minhash.NewSigner(minhash.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	s := &suite{newIndex: newIndex, signer: signer}
	t.Run("ExactDuplicate", s.exactDuplicate)
	t.Run("NearDuplicateText", s.nearDuplicateText)
	t.Run("TwoFeaturesAgree", s.twoFeaturesAgree)
	t.Run("OneFeatureAgrees", s.oneFeatureAgrees)
	t.Run("PositionsMatter", s.positionsMatter)
	t.Run("EarliestOriginal", s.earliestOriginal)
	t.Run("DuplicateNotIndexed", s.duplicateNotIndexed)
	t.Run("ShortTextExact", s.shortTextExact)
	t.Run("EmptyNeverDuplicate", s.emptyNeverDuplicate)
	t.Run("RetrySameID", s.retrySameID)
	t.Run("IDInUse", s.idInUse)
	t.Run("Lookup", s.lookup)
	t.Run("Remove", s.remove)
	t.Run("InvalidSignature", s.invalidSignature)
	t.Run("ManyDistinct", s.manyDistinct)
	t.Run("Concurrent", s.concurrent)
	t.Run("Canceled", s.canceled)
}

type suite struct {
	newIndex func(t *testing.T) minhash.Index
	signer   *minhash.Signer
}

// features returns a shingled signature with the given features. Its
// minima are zero, which the index does not look at.
func features(f ...uint64) minhash.Signature {
	var s minhash.Signature
	s.Kind = minhash.KindShingled
	copy(s.Features[:], f)
	return s
}

// randomSig returns a shingled signature of random features.
func randomSig(r *rand.Rand) minhash.Signature {
	var s minhash.Signature
	s.Kind = minhash.KindShingled
	for i := range s.Features {
		s.Features[i] = r.Uint64()
	}
	return s
}

// text returns n pseudo-random words drawn from a small vocabulary, the
// same for the same seed.
func text(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", r.IntN(5000))
	}
	return words
}

type result struct {
	orig int64
	dup  bool
}

func check(t *testing.T, idx minhash.Index, id int64, sig minhash.Signature, want result) {
	t.Helper()
	orig, dup, err := idx.CheckAndInsert(context.Background(), id, sig)
	if err != nil {
		t.Fatalf("CheckAndInsert(%d): %v", id, err)
	}
	if (result{orig, dup}) != want {
		t.Fatalf("CheckAndInsert(%d) = (%d, %t), want (%d, %t)", id, orig, dup, want.orig, want.dup)
	}
}

func lookup(t *testing.T, idx minhash.Index, sig minhash.Signature, want int64, wantFound bool) {
	t.Helper()
	orig, found, err := idx.Lookup(context.Background(), sig)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	if found != wantFound || (found && orig != want) {
		t.Fatalf("Lookup = (%d, %t), want (%d, %t)", orig, found, want, wantFound)
	}
}

func (s *suite) exactDuplicate(t *testing.T) {
	idx := s.newIndex(t)
	sig := s.signer.Sign(strings.Join(text(1, 300), " "))
	check(t, idx, 1, sig, result{1, false})
	check(t, idx, 2, sig, result{1, true})
	check(t, idx, 3, sig, result{1, true})
	other := s.signer.Sign(strings.Join(text(2, 300), " "))
	check(t, idx, 4, other, result{4, false})
}

func (s *suite) nearDuplicateText(t *testing.T) {
	idx := s.newIndex(t)
	words := text(3, 1200)
	orig := s.signer.Sign(strings.Join(words, " "))
	// Replacing one word changes 8 of 1193 shingles: resemblance 0.987.
	words[600] = "changed"
	near := s.signer.Sign(strings.Join(words, " "))
	if n := minhash.AgreeingFeatures(orig, near); n < minhash.MinAgreeing || n == minhash.NumFeatures {
		t.Fatalf("fixture: %d features agree, want a near but not exact duplicate", n)
	}
	check(t, idx, 10, orig, result{10, false})
	check(t, idx, 11, near, result{10, true})
}

func (s *suite) twoFeaturesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < minhash.NumFeatures; i++ {
		for j := i + 1; j < minhash.NumFeatures; j++ {
			t.Run(fmt.Sprintf("%d,%d", i, j), func(t *testing.T) {
				idx := s.newIndex(t)
				a, b := randomSig(r), randomSig(r)
				b.Features[i], b.Features[j] = a.Features[i], a.Features[j]
				check(t, idx, 1, a, result{1, false})
				check(t, idx, 2, b, result{1, true})
			})
		}
	}
}

func (s *suite) oneFeatureAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	idx := s.newIndex(t)
	a := randomSig(r)
	check(t, idx, 1, a, result{1, false})
	for k := 0; k < minhash.NumFeatures; k++ {
		b := randomSig(r)
		b.Features[k] = a.Features[k]
		id := int64(2 + k)
		check(t, idx, id, b, result{id, false})
		// b was indexed: its exact copy is its duplicate.
		check(t, idx, id+100, b, result{id, true})
	}
}

func (s *suite) positionsMatter(t *testing.T) {
	idx := s.newIndex(t)
	check(t, idx, 1, features(1, 2, 3, 4, 5, 6), result{1, false})
	// The same values at swapped positions.
	check(t, idx, 2, features(2, 1, 4, 3, 6, 5), result{2, false})
	// The pair (1, 2) of positions (0, 1) at positions (2, 3) and (4, 5).
	check(t, idx, 3, features(70, 80, 1, 2, 1, 2), result{3, false})
	// The pair (3, 5) of positions (2, 4) at positions (1, 3).
	check(t, idx, 4, features(90, 3, 91, 5, 92, 93), result{4, false})
	// Positions (2, 4) of page 1.
	check(t, idx, 5, features(100, 101, 3, 102, 5, 103), result{1, true})
}

func (s *suite) earliestOriginal(t *testing.T) {
	idx := s.newIndex(t)
	// Ids in the opposite order of insertion: insertion order decides.
	check(t, idx, 20, features(1, 2, 3, 4, 5, 6), result{20, false})
	check(t, idx, 10, features(11, 12, 13, 14, 15, 16), result{10, false})
	check(t, idx, 5, features(21, 22, 23, 24, 25, 26), result{5, false})
	// Matches 10 on (0, 1), 20 on (4, 5) and 5 on (2, 3).
	check(t, idx, 30, features(11, 12, 23, 24, 5, 6), result{20, true})
	// Matches 10 and 5 only.
	check(t, idx, 31, features(11, 12, 23, 24, 0, 0), result{10, true})
	lookup(t, idx, features(0, 22, 0, 24, 15, 16), 10, true)
}

func (s *suite) duplicateNotIndexed(t *testing.T) {
	idx := s.newIndex(t)
	check(t, idx, 1, features(1, 2, 3, 4, 5, 6), result{1, false})
	// Duplicate of 1 through (0, 1); its other features are new.
	check(t, idx, 2, features(1, 2, 33, 44, 55, 66), result{1, true})
	// Resembles only 2 (through (2, 3)), which was not indexed.
	check(t, idx, 3, features(0, 0, 33, 44, 0, 0), result{3, false})
}

func (s *suite) shortTextExact(t *testing.T) {
	idx := s.newIndex(t)
	short := s.signer.Sign("Hello, wide world!")
	if short.Kind != minhash.KindExact {
		t.Fatalf("fixture: kind %v, want exact", short.Kind)
	}
	check(t, idx, 1, short, result{1, false})
	check(t, idx, 2, s.signer.Sign("  hello WIDE\tworld "), result{1, true})
	check(t, idx, 3, s.signer.Sign("hello wide world again"), result{3, false})
	check(t, idx, 4, s.signer.Sign("hello wide"), result{4, false})
	check(t, idx, 5, s.signer.Sign("world wide hello"), result{5, false})
	// A long text that starts with the short one is not its duplicate.
	long := "hello wide world " + strings.Join(text(6, 50), " ")
	check(t, idx, 6, s.signer.Sign(long), result{6, false})
}

func (s *suite) emptyNeverDuplicate(t *testing.T) {
	idx := s.newIndex(t)
	for id, text := range []string{"", "  ", "!!! ---", "\x00\xff"} {
		sig := s.signer.Sign(text)
		if sig.Indexable() {
			t.Fatalf("fixture: Sign(%q) is indexable", text)
		}
		check(t, idx, int64(id+1), sig, result{int64(id + 1), false})
		lookup(t, idx, sig, 0, false)
	}
}

func (s *suite) retrySameID(t *testing.T) {
	idx := s.newIndex(t)
	sig := features(1, 2, 3, 4, 5, 6)
	check(t, idx, 7, sig, result{7, false})
	check(t, idx, 7, sig, result{7, false})
	// A near-duplicate signature under the same id is the same page.
	check(t, idx, 7, features(1, 2, 0, 0, 0, 0), result{7, false})
	check(t, idx, 8, sig, result{7, true})
}

func (s *suite) idInUse(t *testing.T) {
	idx := s.newIndex(t)
	check(t, idx, 7, features(1, 2, 3, 4, 5, 6), result{7, false})
	_, _, err := idx.CheckAndInsert(context.Background(), 7, features(11, 12, 13, 14, 15, 16))
	if !errors.Is(err, minhash.ErrIDInUse) {
		t.Fatalf("CheckAndInsert of a used id = %v, want ErrIDInUse", err)
	}
	lookup(t, idx, features(11, 12, 13, 14, 15, 16), 0, false)
}

func (s *suite) lookup(t *testing.T) {
	idx := s.newIndex(t)
	sig := features(1, 2, 3, 4, 5, 6)
	lookup(t, idx, sig, 0, false)
	lookup(t, idx, sig, 0, false) // Lookup indexed nothing.
	check(t, idx, 3, sig, result{3, false})
	lookup(t, idx, features(0, 2, 0, 4, 0, 0), 3, true)
	lookup(t, idx, features(0, 2, 0, 0, 0, 0), 0, false)
}

func (s *suite) remove(t *testing.T) {
	ctx := context.Background()
	idx := s.newIndex(t)
	a, b := features(1, 2, 3, 4, 5, 6), features(11, 12, 13, 14, 15, 16)
	check(t, idx, 1, a, result{1, false})
	check(t, idx, 2, b, result{2, false})
	if err := idx.Remove(ctx, 1); err != nil {
		t.Fatalf("Remove(1): %v", err)
	}
	if err := idx.Remove(ctx, 1); err != nil {
		t.Fatalf("Remove(1) again: %v", err)
	}
	if err := idx.Remove(ctx, 99); err != nil {
		t.Fatalf("Remove(99) of an unknown id: %v", err)
	}
	lookup(t, idx, a, 0, false)
	lookup(t, idx, b, 2, true)
	// The content of a removed page is new again, and its id is free.
	check(t, idx, 3, a, result{3, false})
	check(t, idx, 1, features(21, 22, 23, 24, 25, 26), result{1, false})
	check(t, idx, 4, features(21, 22, 0, 0, 0, 0), result{1, true})
	// Page 3, indexed after page 2, is not earlier than it.
	check(t, idx, 5, features(1, 2, 13, 14, 0, 0), result{2, true})
}

func (s *suite) invalidSignature(t *testing.T) {
	idx := s.newIndex(t)
	ctx := context.Background()
	bad := features(1, 2, 3, 4, 5, 6)
	bad.Kind = 9
	if _, _, err := idx.CheckAndInsert(ctx, 1, bad); !errors.Is(err, minhash.ErrSignature) {
		t.Errorf("CheckAndInsert(kind 9) = %v, want ErrSignature", err)
	}
	if _, _, err := idx.Lookup(ctx, bad); !errors.Is(err, minhash.ErrSignature) {
		t.Errorf("Lookup(kind 9) = %v, want ErrSignature", err)
	}
	bad.Kind = minhash.KindShingled
	bad.Mins[3] = minhash.Prime
	if _, _, err := idx.CheckAndInsert(ctx, 1, bad); !errors.Is(err, minhash.ErrSignature) {
		t.Errorf("CheckAndInsert(minimum ≥ p) = %v, want ErrSignature", err)
	}
	check(t, idx, 1, features(1, 2, 3, 4, 5, 6), result{1, false})
}

func (s *suite) manyDistinct(t *testing.T) {
	const n = 5000
	idx := s.newIndex(t)
	r := rand.New(rand.NewPCG(7, 7))
	sigs := make([]minhash.Signature, n)
	for i := range sigs {
		sigs[i] = randomSig(r)
		check(t, idx, int64(i+1), sigs[i], result{int64(i + 1), false})
	}
	for i, sig := range sigs {
		lookup(t, idx, sig, int64(i+1), true)
		// Sharing one pair with page i+1 and nothing else.
		near := randomSig(r)
		near.Features[1], near.Features[4] = sig.Features[1], sig.Features[4]
		lookup(t, idx, near, int64(i+1), true)
	}
}

func (s *suite) concurrent(t *testing.T) {
	const workers, perWorker = 8, 40
	idx := s.newIndex(t)
	r := rand.New(rand.NewPCG(8, 8))
	// Every signature agrees with every other on positions (0, 5) and
	// differs elsewhere; ids are distinct.
	sigs := make([]minhash.Signature, workers*perWorker)
	for i := range sigs {
		sigs[i] = randomSig(r)
		sigs[i].Features[0], sigs[i].Features[5] = 42, 43
	}
	// Signatures unrelated to each other and to the ones above.
	distinct := make([]minhash.Signature, workers*perWorker)
	for i := range distinct {
		distinct[i] = randomSig(r)
	}
	results := make([]result, len(sigs))
	distinctResults := make([]result, len(distinct))
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			<-start
			for k := range perWorker {
				i := w*perWorker + k
				orig, dup, err := idx.CheckAndInsert(context.Background(), int64(1000+i), sigs[i])
				if err != nil {
					errs <- err
					return
				}
				results[i] = result{orig, dup}
				orig, dup, err = idx.CheckAndInsert(context.Background(), int64(5000+i), distinct[i])
				if err != nil {
					errs <- err
					return
				}
				distinctResults[i] = result{orig, dup}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("CheckAndInsert: %v", err)
	}
	var originals []int64
	for i, res := range results {
		if !res.dup {
			originals = append(originals, int64(1000+i))
			if res.orig != int64(1000+i) {
				t.Errorf("page %d: not a duplicate but original %d", 1000+i, res.orig)
			}
		}
	}
	if len(originals) != 1 {
		t.Fatalf("%d originals among near-identical pages inserted concurrently, want 1: %v", len(originals), originals)
	}
	for i, res := range results {
		if res.orig != originals[0] {
			t.Errorf("page %d: original %d, want %d", 1000+i, res.orig, originals[0])
		}
	}
	for i, res := range distinctResults {
		if res != (result{int64(5000 + i), false}) {
			t.Errorf("distinct page %d: (%d, %t), want an original", 5000+i, res.orig, res.dup)
		}
	}
}

func (s *suite) canceled(t *testing.T) {
	idx := s.newIndex(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sig := features(1, 2, 3, 4, 5, 6)
	if _, _, err := idx.CheckAndInsert(ctx, 1, sig); !errors.Is(err, context.Canceled) {
		t.Fatalf("CheckAndInsert with a canceled context = %v, want context.Canceled", err)
	}
	lookup(t, idx, sig, 0, false) // nothing was indexed
	if _, _, err := idx.Lookup(ctx, sig); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lookup with a canceled context = %v, want context.Canceled", err)
	}
	check(t, idx, 2, sig, result{2, false})
	if err := idx.Remove(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("Remove with a canceled context = %v, want context.Canceled", err)
	}
	lookup(t, idx, sig, 2, true) // nothing was removed
}
