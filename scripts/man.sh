#!/usr/bin/env bash
# man.sh SHT OUTDIR SRCDIR VERSION DOCDIR: write the man pages of the sht
# tool into OUTDIR, from the tool's own --help (one source: what `sht CMD
# --help` prints is what `man sht-CMD` shows), with GNU help2man:
#   sht.1             `sht --help`, plus docs/man/sht.h2m (TIMES, JSON
#                     OUTPUT, ENVIRONMENT, EXAMPLES, FILES) and SEE ALSO
#   sht-CMD.1         `sht CMD --help` for each command of the "Commands:"
#                     list of `sht --help` (but help), named after its line
#                     there; plus docs/man/command.h2m
#   sht-gen-kernel.1, sht-demo-staircase.1: the two subcommands with a help
#                     of their own, named after their description's first
#                     sentence
# DOCDIR (where the documentation is installed) replaces @DOCDIR@ in the
# .h2m files.  Run by the build (CMake target "man"); tests/cli/test-man.sh
# checks that every page agrees with its --help.
set -euo pipefail

sht=$1 out=$2 src=$3 version=$4 docdir=$5
mkdir -p "$out/bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The commands of `sht --help`: "NAME<TAB>summary", continuation lines
# joined.
"$sht" --help | awk '
	/^Commands:/ { on = 1; next }
	on && /^$/ { exit }
	on && /^  [a-z]/ { if (name) print name "\t" text; name = $1;
			   text = substr($0, index($0, $2)); next }
	on && /^   / { sub(/^ +/, ""); text = text " " $0 }
	END { if (name) print name "\t" text }' | grep -v '^help	' >"$tmp/commands"

# A wrapper named sht-CMD, so that help2man names the page after it.
wrapper() {  # wrapper NAME WORDS...
	local name=$1
	shift
	printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$sht" "$*" >"$out/bin/$name"
	chmod +x "$out/bin/$name"
}

# The first sentence of a help's description (the paragraph after the
# usage lines), lower-cased first letter, no final period.
first_sentence() {
	"$@" --help | awk 'p == 1 && NF { t = t " " $0 } p == 1 && !NF && t { exit }
			   !NF { p++ } END { print t }' |
		sed -E 's/^ +//; s/([^.])[.:;] .*$/\1/; s/[.:]$//; s/^(.)/\L\1/'
}

page() {  # page NAME SUMMARY INCLUDE
	local name=$1 summary=$2 include=$3
	sed "s|@DOCDIR@|$docdir|g" "$include" >"$tmp/$name.h2m"
	help2man --no-info --no-discard-stderr --version-string="$version" \
		--name="$summary" --section=1 --source="sht $version" \
		--manual="sht Manual" --include="$tmp/$name.h2m" \
		--output="$out/$name.1" "$out/bin/$name"
}

pages=()
while IFS=$'\t' read -r cmd summary; do
	wrapper "sht-$cmd" "$cmd"
	pages+=("sht-$cmd|$summary")
done <"$tmp/commands"
wrapper sht-gen-kernel gen kernel
pages+=("sht-gen-kernel|$(first_sentence "$sht" gen kernel)")
wrapper sht-demo-staircase demo staircase
pages+=("sht-demo-staircase|$(first_sentence "$sht" demo staircase)")

for p in "${pages[@]}"; do
	page "${p%%|*}" "${p#*|}" "$src/docs/man/command.h2m"
done

# sht(1): its own include, then SEE ALSO listing every page.
{
	cat "$src/docs/man/sht.h2m"
	printf '\n[SEE ALSO]\n'
	for p in "${pages[@]}"; do
		printf '.BR %s (1),\n' "${p%%|*}"
	done
	printf 'and the documentation in\n.IR @DOCDIR@ :\n'
	printf 'GUIDE.md (a task-oriented guide), STATE.md (the state system),\n'
	printf 'KERNEL-MODEL.md (the Linux kernel analysis), RULES.md (rules\n'
	printf 'files), LIBRARY.md (the C library), FORMAT.md (the file format).\n'
} >"$tmp/sht.in"
wrapper sht
page sht "build and query state histories of traces" "$tmp/sht.in"
ls "$out"/*.1 | wc -l >"$out/count"
