//go:build race

package training

// raceEnabled reports that the race detector is on; it makes sync.Pool
// drop values at random, so allocation counts are not exact.
const raceEnabled = true
