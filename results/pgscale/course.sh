#!/usr/bin/env bash
# Pages labelled LABEL among the successful pages of a crawl database
# (their final URLs), from the labels file of scent labels.
#
# usage: results/pgscale/course.sh LABELS LABEL DB…
#   DB is a SQLite file or a postgres://… URL.
set -euo pipefail
labels=$1 label=$2
shift 2
for db in "$@"; do
	case $db in
	postgres://* | postgresql://*) psql -qAt "$db" -c "SELECT final_url FROM pages WHERE failure = ''" ;;
	# SQLite keeps final_url empty when it is the page's URL (schema 14
	# on), and the page's URL in urls only (schema 16 on).
	*) sqlite3 "$db" "SELECT iif(p.final_url = '', u.url, p.final_url) FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.failure = ''" ;;
	esac | awk -F'\t' -v l="$label" -v db="$db" 'NR == FNR { if ($2 == l) want[$1] = 1; next }
		{ pages++ } ($1 in want) { n++ } END { printf "%s: %d of %d pages labelled %s\n", db, n, pages, l }' "$labels" -
done
