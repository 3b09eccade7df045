// Package refresh keeps a collection fresh: it learns how often each page
// changes from its check history and decides when to fetch it again.
//
// # Data flow
//
// A page's history is a list of checks (Check: the time since the previous
// check and whether the page had changed). From it come two rate
// estimates, both in changes per week: WeeklyRate, the paper's ratio of
// changes to weeks observed, and Estimator.Rate, Cho and Garcia-Molina's
// maximum-likelihood estimate for a Poisson process observed at irregular
// checks (a change is only known to have happened somewhere in the
// interval, and several changes look like one), with a gamma prior so that
// a page never seen to change still gets a small rate. Obs.Forget makes
// older checks count less (DefaultForget for the default policy).
//
// A rate gives a page its group (GroupOf: G14 … G1, 2G1, 4G1, or the
// six-group variant), and the group its revisit interval. The hours of the
// observed changes give the hour of day to collect at (PaperHour, the
// paper's 00:00/12:00 rule, or BestHour, just after the changes). Allocate
// turns the rates of all pages and a capacity (fetches per day) into one
// revisit interval per page under a Policy: uniform, the paper's groups
// scaled to the capacity, proportional to the rate, or Cho and
// Garcia-Molina's optimal allocation for freshness. Load is the paper's
// load figure: fetches per day over the number of pages.
//
// Queue orders pages by their next due time for a scheduler that runs by
// itself; popping the due pages costs O(k log n).
//
// ReadHistory parses a change history file (JSON lines of page versions);
// Simulate replays it against policies with a simulated clock, learning
// rates only from the past (a training period, then each policy's own
// checks) and scoring freshness, age, fetches and missed changes on the
// rest; beside them the multiplicative policy (a page's interval halved
// after a fetch that finds a change, 1.2 times longer after one that
// does not: MultiplicativeInterval), which sets its own load.
//
// Everything here is a pure function of its inputs and of the clock it is
// given; the package does no I/O besides reading the history it is handed
// and imports nothing else of scent's.
package refresh
