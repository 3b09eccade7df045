# For each page fetched successfully, in fetch order: does it lie below the
# directory of a course page fetched before it ("any"), or below a course
# page that is a directory's index page ("index")?
FNR == NR { label[$1] = $2; next }
{
	if (!match($0, /"final_url":"[^"]*"/)) next
	u = substr($0, RSTART + 13, RLENGTH - 14)
	if (!match($0, /"status":200[,}]/) || $0 ~ /"failure":/) next
	pages++
	if (label[u] == topic) {
		d = u; sub(/[^\/]*$/, "", d); dir[d] = 1
		if (u ~ /^[a-z]+:\/\/[^\/]+\/.+/ && (u ~ /\/$/ || u ~ /\/(index|default|home|welcome)\.(s?html?|php|asp)$/)) index_dir[d] = 1
		next
	}
	for (d in dir) if (index(u, d) == 1) { any++; break }
	for (d in index_dir) if (index(u, d) == 1) { idx++; break }
}
END { printf "%d pages, %d below the directory of a %s page fetched before them, %d below one that is a directory index\n", pages, any, topic, idx }
