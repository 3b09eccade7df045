package crawler

import "time"

// SetPassAfter sets how long a crawl waits for a fetch that holds back
// the results sent after it (passAfter), until the returned func
// restores it.
func SetPassAfter(d time.Duration) (restore func()) {
	old := passAfter
	passAfter = d
	return func() { passAfter = old }
}
