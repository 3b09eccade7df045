# For each page fetched successfully, in fetch order: does it lie below the
# directory of a course page fetched before it ("any"), or in the section
# of one, the directory --sections gives its parts ("section": the page's
# own directory when it is the directory's page — "/", index.html and the
# like, a file named after the directory — else the folder named after it)?
FNR == NR { label[$1] = $2; next }
{
	if (!match($0, /"final_url":"[^"]*"/)) next
	u = substr($0, RSTART + 13, RLENGTH - 14)
	if (!match($0, /"status":200[,}]/) || $0 ~ /"failure":/) next
	pages++
	if (label[u] == topic) {
		d = u; sub(/[^\/]*$/, "", d); dir[d] = 1
		# Not at a host's root (as --sections), and no query.
		if (u ~ /^[a-z]+:\/\/[^\/]+\/[^?]*\// && u !~ /\?/) {
			name = tolower(substr(u, length(d) + 1))
			parent = d; sub(/\/$/, "", parent); sub(/.*\//, "", parent); sub(/^~/, "", parent); parent = tolower(parent)
			stem = name; sub(/\.[^.]*$/, "", stem)
			if (name == "" || name ~ /^(index|default|home|welcome)\.(s?html?|php|asp)$/ ||
				(stem != name && (parent == stem || index(parent, stem "-") == 1 || index(parent, stem "_") == 1)))
				section[d] = 1
			else if (stem != name && stem != "")
				section[d substr(u, length(d) + 1, length(stem)) "/"] = 1
		}
		next
	}
	for (d in dir) if (index(u, d) == 1) { any++; break }
	for (d in section) if (index(u, d) == 1) { sec++; break }
}
END { printf "%d pages, %d below the directory of a %s page fetched before them, %d in the section of one\n", pages, any, topic, sec }
