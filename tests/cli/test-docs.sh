# test-docs.sh: the documentation stands alone: nothing in docs/, the
# public headers, the sources, the completion script or the man pages
# refers to files beside the repository (../shared, KERNEL_MODEL.md), and
# every relative link between the documents leads to a file that exists.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

src=${SHT_SRCDIR:?}
man_dir=$(dirname "$SHT")/man
where=("$src/docs" "$src/include" "$src/src" "$src/completion" "$src/README.md")
[ -d "$man_dir" ] && where+=("$man_dir")
bad=$(grep -rIlE '\.\./shared|KERNEL_MODEL\.md' "${where[@]}" || true)
is "$bad" "" "no reference to ../shared or KERNEL_MODEL.md"

missing=
for f in "$src"/docs/*.md "$src/README.md"; do
	dir=$(dirname "$f")
	for link in $(grep -oE '\]\([A-Za-z0-9_./-]+\.md(#[^)]*)?\)' "$f" |
			sed -E 's/^\]\(//; s/[#)].*$//'); do
		[ -f "$dir/$link" ] || missing="$missing ${f#"$src"/}:$link"
	done
done
is "$missing" "" "every link between the documents leads to a file"
for d in GUIDE STATE KERNEL-MODEL; do
	[ -s "$src/docs/$d.md" ]
	ok $? "docs/$d.md exists"
done

done_testing
