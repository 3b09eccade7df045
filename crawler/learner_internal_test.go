package crawler

import (
	"testing"
	"time"
)

// memLearner is a Learner that remembers (Rememberer) and tells which
// state it was asked for.
type memLearner struct{}

func (memLearner) ScoreLink(l *LinkFeatures, dst []float64) []float64 { return dst }
func (memLearner) Observe(*Page, Entry, []Entry)                      {}
func (memLearner) Rescore() []Entry                                   { return nil }
func (memLearner) MarshalState() ([]byte, error)                      { return []byte("state"), nil }
func (memLearner) RestoreState([]byte) error                          { return nil }
func (memLearner) MarshalMemory() ([]byte, error)                     { return []byte("memory"), nil }

// TestLearning_savesMemoryEvery: a due periodic save holds the learner's
// memory once LearnerMemoryEvery has passed since the last one, the
// counts and models alone before; never with a negative interval.
func TestLearning_savesMemoryEvery(t *testing.T) {
	for _, tc := range []struct {
		every, since time.Duration
		want         string
	}{
		{time.Minute, 2 * time.Minute, "memory"},
		{time.Minute, 30 * time.Second, "state"},
		{-1, time.Hour, "state"},
	} {
		lg := &learning{l: memLearner{}, unsaved: learnSaveEvery, memEvery: tc.every, memSaved: time.Now().Add(-tc.since)}
		st := lg.step(nil, false)
		if string(st.state) != tc.want || st.memory != (tc.want == "memory") {
			t.Errorf("every %v, %v since the last memory: saved %q (memory %v), want %q", tc.every, tc.since, st.state, st.memory, tc.want)
		}
	}
	lg := &learning{l: memLearner{}, memEvery: time.Minute, memSaved: time.Now()}
	if st := lg.step(nil, false); st.state != nil {
		t.Errorf("saved %q before %d pages", st.state, learnSaveEvery)
	}
}
