// Package changeeval reproduces the evaluation of the IED paper: how well
// each change metric of package change follows the six change criteria.
//
// # Data flow
//
// Synthesize builds, for one change type (add, drop, copy, shrink,
// replace, move), an n-word document and a copy with x words changed in one
// cluster. Criterion gives the paper's expected change degree for it.
// ChangedWords (the paper's Fig. 7: 1,000 words, 5 %…95 % changed) and
// DocumentSizes (Fig. 8: 2²…2¹³ words, a quarter changed) measure every
// such pair with change.CompareWords and return Points: criterion, the six
// metrics (BW, COS, WD, ED, 10SH, IED) and IED's operation counts.
//
// RealChanges (Fig. 5) reads a change history (JSON lines, one version of
// a page per line, gzip optional), pairs consecutive versions of each page
// that both carry text, and averages every metric over the pairs; the
// per-pair values also give Fig. 6.
//
// Run ties them together and writes CSV, SVG (gonum/plot) and a
// summary.json into a directory.
//
// # Where the reproduction departs from the paper
//
//   - Synthetic documents are made of distinct words, except where a kind
//     needs repeats (copy, shrink). The paper does not say how it built
//     its documents; distinct words make every change exactly of its kind
//     (a replaced word is unique and its replacement new, a dropped word
//     occurred once), which the criteria assume.
//   - Moves cut a cluster and put it back reversed at another place. A
//     cluster moved in order past fewer words than it holds is, to any
//     LCS-based measure, the smaller block moving the other way, so only
//     reversed (or scattered) moves can reach the paper's range up to n−1
//     moved words; this also gives the oversensitive 10-SH the paper shows.
//   - COS weights words with an IDF over the two versions (see
//     change.Cosine). On distinct-word documents that makes COS more
//     sensitive than the criterion for replacements, where the paper found
//     COS insensitive for every kind; its copy/shrink blindness, its zero
//     for moves and its low values for adds and drops are reproduced.
//   - Fig. 5 uses the project's change history: every line is a version
//     that differed from the previous check, so BW is 1 for all pairs and
//     the means are those of changed pages, while the paper's 30 % BW
//     included pages that did not change between its two downloads.
package changeeval
