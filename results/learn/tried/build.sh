#!/usr/bin/env bash
# Builds scent with one of the variants tried and not adopted (results/learn,
# "Tried after the discount"), from the commit they were measured at. Run
# from the repository root:
#
#     bash results/learn/tried/build.sh learner-discount|judge-pairs|judge-em|link-mix|judge-lr|behind|no-memory|judge-terms|crawl-weight|primed-mix|cv-split|dead-host|judge-and-order|bandit|expect|apprentice|neg-trust|conf|title|ahead|ignorant
#
# learner-discount, judge-pairs, link-mix, behind, no-memory, judge-terms, crawl-weight, primed-mix, cv-split, dead-host, judge-and-order, bandit, expect, apprentice, neg-trust, conf, title, ahead and ignorant leave the binary out/try-NAME, whose
# variant is switched on by the environment:
#
#     SCENT_TRY_LEARN_DISCOUNT=D out/try-learner-discount experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#     SCENT_TRY_JUDGE_PAIRS=1 [SCENT_TRY_JUDGE_K=500] out/try-judge-pairs experiment …   (and scent judge with the same variables)
#
# link-mix with one of SCENT_TRY_MIX=A, SCENT_TRY_TRUST=1 or
# SCENT_TRY_ONLINE=1 (the patch's header says what each does):
#
#     SCENT_TRY_MIX=0.7 out/try-link-mix experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#     SCENT_TRY_MIX=0.7 out/try-link-mix experiment ../shared/corpus/webkb.tgz --group G --topic T --budget 4000 --baseline=false --out DIR
#
# behind too, with SCENT_TRY_BEHIND=1 (a crawl not in lockstep, which is
# a new draw at each run):
#
#     SCENT_TRY_BEHIND=1 out/try-behind experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --lockstep=false --out DIR
#
# judge-terms with SCENT_TRY_TERMS=mindf3 or roundrobin (in scent judge too):
#
#     SCENT_TRY_TERMS=mindf3 out/try-judge-terms experiment ../shared/corpus/webkb.tgz --topic T --budget 20 --baseline=false --out DIR
#     SCENT_TRY_TERMS=mindf3 out/try-judge-terms judge ../shared/corpus/webkb.tgz --model DIR/page-model.json --topic T
#
# crawl-weight with SCENT_TRY_CRAWLW=C and SCENT_TRY_NEGW=N:
#
#     SCENT_TRY_CRAWLW=0.01 out/try-crawl-weight experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# primed-mix with SCENT_TRY_PRIMEDMIX=A:
#
#     SCENT_TRY_PRIMEDMIX=0.5 out/try-primed-mix experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# cv-split with SCENT_TRY_CVSEED=S [SCENT_TRY_CVREP=R] (the thresholds are
# printed by an experiment of any budget); dead-host with
# SCENT_TRY_DEADHOST=N [SCENT_TRY_DEADF=F]:
#
#     SCENT_TRY_CVSEED=3 SCENT_TRY_CVREP=5 out/try-cv-split experiment ../shared/corpus/webkb.tgz --topic T --budget 1 --baseline=false --out DIR
#     SCENT_TRY_DEADHOST=2 out/try-dead-host experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# judge-and-order (applied to 0487c98, its "Base:") with the variables its
# header lists, e.g.:
#
#     SCENT_TRY_TEMP=2 out/try-judge-and-order experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#     SCENT_TRY_EXPLORE=4 out/try-judge-and-order experiment ../shared/corpus/webkb.tgz --group G --topic T --budget 4000 --baseline=false --out DIR
#
# bandit (applied to 2598b6a) with SCENT_TRY_BANDIT=W [SCENT_TRY_BANDIT_FAIL=1]:
#
#     SCENT_TRY_BANDIT=1 SCENT_TRY_BANDIT_FAIL=1 out/try-bandit experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# ignorant (the bandit build with one more mode, applied to 2598b6a) with
# SCENT_TRY_IGNORANT=C [SCENT_TRY_IGNORANT_MAX=M]:
#
#     SCENT_TRY_IGNORANT=8 out/try-ignorant experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# expect (applied to fffd5cd) with SCENT_TRY_EXPECT=1|pos|neg [SCENT_TRY_EXPECT_NEGSCALE=S] [SCENT_TRY_EXPECT_MISS=1]:
#
#     SCENT_TRY_EXPECT=neg SCENT_TRY_EXPECT_NEGSCALE=0.5 out/try-expect experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# apprentice (applied to dfe833e) with SCENT_TRY_APPR=near|side|dist [SCENT_TRY_APPR_NEAR=N]:
#
#     SCENT_TRY_APPR=near out/try-apprentice experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# neg-trust (applied to e8a7990) with SCENT_TRY_P0=P0 [SCENT_TRY_NEGFLOOR=F] [SCENT_TRY_S0=S]:
#
#     SCENT_TRY_P0=20 SCENT_TRY_S0=1000 out/try-neg-trust experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# conf (applied to d5016ca) with SCENT_TRY_CONF=post|ratio|lift|postlift [SCENT_TRY_CONF_SCALE=S]:
#
#     SCENT_TRY_CONF=post SCENT_TRY_CONF_SCALE=0.5 out/try-conf experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#
# title (applied to d5a2fb3) with SCENT_TRY_TITLE=judge|all|text:
#
#     SCENT_TRY_TITLE=all out/try-title experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#     SCENT_TRY_TITLE=all out/try-title judge ../shared/corpus/webkb.tgz --model DIR/page-model.json --topic T
#
# ahead (applied to d077ff0) with SCENT_TRY_AHEAD=N (a free crawl's batch: Workers/N entries):
#
#     SCENT_TRY_AHEAD=1 out/try-ahead experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --lockstep=false --out DIR
#
# no-memory with SCENT_TRY_NO_MEMORY=1, through resume.sh:
#
#     SCENT_TRY_NO_MEMORY=1 SCENT=out/try-no-memory bash results/learn/resume.sh
#
# judge-lr leaves the binary out/try-judge-lr.bin and the worktree
# out/try-judge-lr, whose test trylr prints the judges' AUC:
#
#     SCENT_TRY_LR=1 out/try-judge-lr.bin experiment ../shared/corpus/webkb.tgz --topic T --budget 2000 --baseline=false --workers W --out DIR
#     cd out/try-judge-lr && SCENT_ARCHIVE=$PWD/../../../shared/corpus/webkb.tgz SCENT_TRY_LR_VOCAB=nb SCENT_TRY_LR_RATE=0.1 go test ./trylr -run TestLR -v
#
# (unset, each is the build of that commit). judge-em leaves the worktree
# out/try-judge-em, whose test prints the judge's AUC after each round:
#
#     cd out/try-judge-em && SCENT_ARCHIVE=$PWD/../../../shared/corpus/webkb.tgz SCENT_TRY_EM_LAMBDA=1 SCENT_TRY_EM_ROUNDS=3 go test ./tryem -run TestEM -v
#
# (SCENT_TRY_EM_LAMBDA defaults to 1, SCENT_TRY_EM_ROUNDS to 3;
# SCENT_TRY_EM_TERMS sets the judge's terms, 1,000 by default.)
set -euo pipefail
name=${1:?usage: build.sh learner-discount|judge-pairs|judge-em|link-mix|judge-lr|behind|no-memory|judge-terms|crawl-weight|primed-mix|cv-split|dead-host|judge-and-order|bandit|expect|apprentice|neg-trust|conf|title|ahead|ignorant}
patch=results/learn/tried/$name.patch
[ -f "$patch" ] || { echo "build.sh: no $patch" >&2; exit 2; }
# the commit the variants were measured at: the patch's "Base:" line, or e05f918
base=$(sed -n 's/^Base: \([0-9a-f]*\)$/\1/p' "$patch" | head -1)
base=${base:-e05f918}
dir=out/try-$name
mkdir -p out
rm -rf "$dir"
git worktree prune
git worktree add --detach "$dir" "$base" >/dev/null
git -C "$dir" apply "$PWD/$patch"
case $name in
judge-em)
	echo "$dir"
	;;
judge-lr)
	(cd "$dir" && go build -o "../try-$name.bin" ./cmd/scent)
	echo "out/try-$name.bin $dir"
	;;
*)
	(cd "$dir" && go build -o "../try-$name.bin" ./cmd/scent)
	git worktree remove --force "$dir"
	mv "out/try-$name.bin" "out/try-$name"
	echo "out/try-$name"
	;;
esac
