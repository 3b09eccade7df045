// Package change measures how much a web page changed between two
// versions, as word sequences: the Improved Edit Distance (IED) and the
// five baseline metrics it is judged against.
//
// # Data flow
//
// A caller splits each version into words (Words: white space separates
// words) and calls IED, or Compare for IED and every baseline at once.
// Words are first interned into dense integer ids. IED then
//
//  1. finds a longest common subsequence (LCS) with Myers' O((m+n)·D)
//     linear-space algorithm, after trimming the common prefix and suffix
//     and setting aside words that occur on one side only;
//  2. counts moves among the words outside the LCS;
//  3. counts copies and shrinks (insertions and deletions of words that
//     occur more than once);
//  4. pairs the remaining words at equal positions as replacements and
//     counts the rest as adds and drops;
//  5. weighs the six counts (add, drop, replace cost 1, copy and shrink
//     cost s, move costs t) into δ_E and divides by the longer length.
//
// Memory is linear in the two inputs; time is O((m+n)·min(D, limit))
// for the LCS and linear for the other steps. A middle-snake search that
// exceeds the limit (ExactCost, or more for inputs under 262,144 words)
// is cut off and the inputs are split at the
// furthest points it reached: the subsequence is still common, may be
// shorter than the longest, and Comparison.Approximate says so.
// CompareContext stops when its context ends.
//
// # Baselines
//
// Bytewise (BW, 1 if any byte differs), Cosine (COS, 1 − cosine of TF·IDF
// vectors, IDF over the two documents), WordDistance (WD, multiset word
// overlap), EditDistance (ED, insert/delete distance over m+n) and
// Shingling (k-SH, Jaccard distance of wrapped k-word shingles; the paper
// uses k = 10). All of them lie in [0, 1] and are symmetric.
//
// # Properties of IED worth knowing
//
//   - D_IED(A, A) = 0 and D_IED ≥ 0.
//   - D_IED can exceed 1. Every word outside the LCS costs at most 1 and a
//     replacement or move covers two words, so D_IED ≤ (m+n−2·|LCS|)/max(m,n)
//     ≤ 2, but the bound 1 does not hold: from ⟨a a⟩ to ⟨b c⟩ one a is
//     shrunk (s), the other replaced by c, and b added, so with s = 0.75
//     D_IED = 2.75/2 = 1.375.
//   - D_IED is not symmetric. Step 1 takes "an" LCS, and different LCSs of
//     the same pair can give different scripts: from ⟨w1 w0 w0⟩ to
//     ⟨w0 w2 w1 w2⟩ (s = t = 0.75), matching the first w0 gives 0.8125 and
//     matching the second gives 0.6875; the search picks the first from A
//     to B and the equivalent of the second from B to A. Op counts mirror
//     (add↔drop, copy↔shrink) whenever both directions use mirrored LCSs.
//   - The five steps are a greedy procedure, not the minimum over all
//     scripts of the paper's equation (5): with t > 2s a word that occurs
//     twice in both versions is never moved, even where two moves would be
//     cheaper than a shrink, a copy, a drop and an add.
//   - On the six synthetic change types of the paper (one type at a time,
//     words changed in one cluster, see package changeeval) IED with s = α
//     and t = β equals the paper's criterion exactly.
package change
