// Package sitenorm measures which extended URL normalizations (urlnorm's
// EN1–EN6) a web site tolerates and keeps, per host, the ones a crawl may
// apply: site-based normalization (SPEC §5, paper 003).
//
// Data flows in one direction:
//
//	pairs (u1 as fetched, u2 = u1.Extend(EN)) ─► Classify ─► Rules.Observe
//	   ─► per host and EN: Counts (loss, gain, change, non-loss) ─► decision
//	Rules.Canonical(u) ─► u with the host's adopted ENs applied
//
// Classify follows the paper's Table 1: with p1 and p2 the documents at u1
// and u2, and "known" meaning u2 is already in the crawl's database,
//
//	p1 present, p2 the same document        non-loss
//	p1 present, p2 absent                   loss
//	p1 present, p2 another document, known  loss
//	p1 present, p2 another document, new    change (loss + gain)
//	p1 absent, u2 known                     non-loss
//	p1 absent, u2 new, p2 present           gain
//	p1 absent, u2 new, p2 absent            non-loss
//
// Counts gives the rates LR, GR, CR, NR and the analogy A_i; Table the
// paper's Table 2 (E, min A_i, sites, mean URLs per site) per EN.
//
// Rules decides per host and EN once Policy.Sample pairs with p1 present
// are measured: the EN is adopted when none of them is a loss or a change,
// A_i ≥ Policy.MinAnalogy with NR_i the dominant rate, and every u2 was
// served directly (not through a redirect, which a crawl would pay as an
// extra fetch each time). A later loss (Policy.VerifyEvery) drops the rule.
// Rules is safe for concurrent use; it does no I/O: the crawler fetches
// the pairs and the store keeps them. It holds at most Policy.MaxHosts
// hosts' rules, forgetting first the hosts seen longest ago that adopted
// nothing.
package sitenorm
