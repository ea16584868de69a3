#!/usr/bin/awk -f
# Turns docs/iomapdirty.md (the subset of Markdown it uses) into the
# iomapdirty(8) manual page, so that the page and the Markdown are one
# text: "# name(8)" title, "## SECTION", paragraphs, "- " bullet items,
# 4-space-indented literal blocks, **bold** and `code` (both bold).
# Usage: awk -v date=YYYY-MM-DD -v version=X -f scripts/md2man.awk docs/iomapdirty.md

function inline(s,    out, pre, mid) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	while (match(s, /\*\*[^*]+\*\*/)) {
		pre = substr(s, 1, RSTART - 1)
		mid = substr(s, RSTART + 2, RLENGTH - 4)
		s = pre "\\fB" mid "\\fR" substr(s, RSTART + RLENGTH)
	}
	while (match(s, /`[^`]+`/)) {
		pre = substr(s, 1, RSTART - 1)
		mid = substr(s, RSTART + 1, RLENGTH - 2)
		s = pre "\\fB" mid "\\fR" substr(s, RSTART + RLENGTH)
	}
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

# Paragraphs and list items are joined first: inline markup may span lines.
function flush() {
	if (buf == "")
		return
	if (kind == "item")
		print ".IP \\(bu 2"
	else if (started)
		print ".PP"
	started = 1
	print inline(buf)
	buf = ""
}

function end_literal() {
	if (literal) {
		print ".fi"
		print ".RE"
		literal = 0
	}
}

NR == 1 && /^# / {
	name = $2
	sub(/\(.*/, "", name)
	printf ".TH %s 8 \"%s\" \"iomapdirty %s\" \"System Administration\"\n",
	       toupper(name), date, version
	next
}
/^## / {
	flush()
	end_literal()
	sub(/^## /, "")
	print ".SH " toupper($0)
	started = 0
	next
}
/^    / {
	flush()
	if (!literal) {
		print ".RS 4"
		print ".nf"
		literal = 1
	}
	line = substr($0, 5)
	gsub(/\\/, "\\e", line)
	gsub(/-/, "\\-", line)
	if (line ~ /^[.']/)
		line = "\\&" line
	print line
	next
}
/^$/ {
	flush()
	next
}
{
	end_literal()
	if (/^- /) {
		flush()
		kind = "item"
		buf = substr($0, 3)
		next
	}
	line = $0
	sub(/^  */, "", line)
	if (buf == "")
		kind = "para"
	buf = buf == "" ? line : buf " " line
}
END { flush(); end_literal() }
