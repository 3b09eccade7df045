// Package classify is scent's topic classifier: Naive Bayes over terms
// selected by the χ² statistic, with θ estimated by Mitchell's m-estimate.
//
// Data flows in three stages.
//
// Training. Train takes labelled documents (Example: a class name and the
// document's lower-cased tokens; a document is a whole page or a link-context
// segment). It counts, for every term, the documents of each class that
// contain it, scores each term by χ²max(t) = max over classes of
// Chi2(A, B, C, D), keeps the K best terms (ties broken by term, so the
// result is deterministic) less those below Options.MinChi2, when one
// reaches it (SignificantChi2: the terms whose tie to a class chance would
// give less than once in twenty), and estimates
//
//	θ_kc = (n_c + m·p) / (n + m)
//
// where n is the number of training documents of class c, n_c those
// containing term k, p = df_k / N is term k's document frequency over all
// classes and m is the equivalent sample size. θ is clamped strictly inside
// (0, 1). Class priors are the fractions of training documents. The
// multinomial event model (Options.Event = EventMultinomial) counts every
// occurrence instead: θ_kc = (cnt_kc + m·p_k) / (tot_c + m), where cnt_kc is
// the number of occurrences of term k in documents of class c, tot_c the
// number of occurrences of all selected terms in class c and p_k = cnt_k /
// Σ_j cnt_j the term's share of all selected-term occurrences, so that θ_·c
// sums to one over the selected terms.
//
// Scoring. Model.Posterior maps a token list to the normalized posterior
// P(c|d) of every class, aligned with Model.Classes. Under the binary event
// model a document is the set of selected terms it contains (repeated tokens
// count once) and
//
//	log P(c|d) ∝ log P(c) + Σ_k [x_k·log θ_kc + (1−x_k)·log(1−θ_kc)].
//
// Options.PriorMix mixes P(c) with the uniform prior, and
// Options.AbsentDiscount d weighs each absent term (1−d)·log(1−θ_kc), for
// documents from other sites than the training documents' (both 0 by
// default: the formula above). The all-absent sum is precomputed per
// class and each present term adds log θ_kc − (1−d)·log(1−θ_kc), so a
// document costs one map look-up per token plus
// one addition per present term and class. The log scores are normalized
// with a max-shifted softmax, which cannot underflow however long the
// document. Posterior allocates nothing when given a destination slice and
// is safe for concurrent use. Model.Relevant turns a posterior into the
// topics that pass their thresholds (default 0.76, settable per topic).
//
// Persistence and evaluation. Model.Save writes the model as indented,
// versioned JSON (format "scent-model", version 1) that a person can read:
// parameters, classes with priors and thresholds, selected terms with their
// χ² scores, document frequency and θ per class, and the SHA-256 of the
// training set. Load checks every field and reports what is wrong. A loaded
// model gives bit-identical posteriors. CrossValidate measures precision and
// recall per topic with stratified k-fold cross-validation.
//
// The package imports nothing else of scent's: tokens arrive as strings,
// already lower-cased by the caller.
package classify
