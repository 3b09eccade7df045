//go:build !race

package training

const raceEnabled = false
