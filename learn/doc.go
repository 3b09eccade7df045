// Package learn is a link model that learns during a crawl where its
// topic lives.
//
// The base model (package classify, trained on example pages) judges
// every fetched page; the crawler gives each judged page to a Learner,
// which turns the link that led to the page into a training document of
// the topic's link model: "leads to relevant pages" when the page is
// relevant, "does not" otherwise. A relevant page also moves the link
// before it to a third class, "leads to a page that leads", worth the
// discount Gamma (the value of a link is the discounted reward found
// beyond it: a people list is worth following for the pages it lists).
// The link two before is not credited: doing so (with Gamma²) was
// measured worse on faculty.
//
// A link's features are the words of its context segment (±n words and
// the anchor), the words of its anchor once more as features of their own
// (a listing's link says "Faculty" or "People" in its anchor, while its
// context holds its neighbours' anchors too), the words of its target's
// path,
// whether it leaves its page's host, its depth, the base model's score
// of it and whether its page was relevant. Each topic's link model is a
// binary Naive Bayes model with m-estimate smoothing over the K features
// of highest χ², built from incremental counts (classify.Counts): the
// counts add, so the model equals a batch retrain on the same evidence.
// Once the evidence has grown enough the models are rebuilt and every
// remembered link still waiting on the stacks is rescored.
//
// Before the crawl, the learner is primed with the links between the
// training pages (TrainingLinks, Learner.Prime): a link to an example
// counts as leading to the topic, a link to a training page that links to
// an example as leading on, a link to another training page as leading
// nowhere, each as one document (DefaultPrior) — the first
// layers of a context graph around the examples (Diligenti et al. 2000).
// So the crawl's first links are valued by what the training sites' own
// listings teach ("people" lists lead to faculty pages) before the crawl
// has found where its own listings lead; the crawl's own evidence,
// counted in full, adds to it.
//
//	crawler ─ScoreLink─► Learner (current models, lock-free)
//	crawler ─Observe(page)─► counts ─Rescore─► rebuilt models ─► new scores ─► store
//
// When a crawl ends, the learner's state is saved with its memory of the
// links it found (MarshalMemory), so that a resumed crawl goes on
// learning from the pages of the links that were waiting and rescoring
// them. The state saved every few hundred pages holds the counts and
// models (MarshalState), and the memory too once a minute
// (crawler.Config.LearnerMemoryEvery): a crawl killed before its end
// resumes with the latest.
//
// Memory is bounded: at most Options.Memory links are remembered and at
// most Options.Terms features counted per topic.
package learn
