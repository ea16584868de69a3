# shellcheck shell=bash
# scrape_matches_workload NAME URL MNT DEV EXP_JSON: /metrics at URL must
# show, on the series of DEV, the figures of one workload run on a fresh
# 1 KiB-block XFS (EXP_JSON: the workload's own JSON) and the host's mount
# point MNT as `mountpoint`, whatever view of the mounts the exporter
# has (a container's, a private mount namespace's). Polls up to 20 s for
# writeback to reach the counters. Needs pass/fail/check (tests/cli/lib.sh).
# Used by tests/cli/rootfs.sh and tests/package/run.sh.
scrape_matches_workload() {
	local name=$1 url=$2 mnt=$3 dev=$4 exp=$5 body='' i want_app
	want_app=$(jq .app_bytes <<<"$exp")
	# no figures (the workload missing or failed) would compare empty with empty
	[[ $want_app =~ ^[1-9][0-9]*$ ]] || fail "$name.workload" "no figures: '${exp:0:100}'"
	for i in $(seq 40); do
		body=$(curl -sf --max-time 5 "$url")
		[[ $(_scrape_value "$body" app_bytes_total "$dev") == "$want_app" &&
		   $(_scrape_value "$body" folios_total "$dev") == $(jq .folios <<<"$exp") ]] && break
		sleep 0.5
	done
	check "$name.scraped" yes "$([[ -n $body ]] && echo yes || echo no)"
	check "$name.mountpoint_is_host_path" "$mnt" \
		"$(grep -m1 "^iomapdirty_app_bytes_total{dev=\"$dev\"" <<<"$body" |
			sed -n 's/.*mountpoint="\([^"]*\)".*/\1/p')"
	check "$name.fstype" xfs "$(grep -m1 "^iomapdirty_app_bytes_total{dev=\"$dev\"" <<<"$body" |
		sed -n 's/.*fstype="\([^"]*\)".*/\1/p')"
	check "$name.app_bytes" "$want_app" "$(_scrape_value "$body" app_bytes_total "$dev")"
	check "$name.write_calls" "$(jq .write_calls <<<"$exp")" \
		"$(_scrape_value "$body" write_calls_total "$dev")"
	check "$name.dirty_blocks" "$(jq .dirty_blocks <<<"$exp")" \
		"$(_scrape_value "$body" dirty_blocks_total "$dev")"
	check "$name.submitted_bytes" "$(($(jq .dirty_blocks <<<"$exp") * 1024))" \
		"$(_scrape_value "$body" submitted_bytes_total "$dev")"
	check "$name.folios" "$(jq .folios <<<"$exp")" "$(_scrape_value "$body" folios_total "$dev")"
	SCRAPE_BODY=$body
}

# _scrape_value BODY METRIC DEV: the sample of iomapdirty_METRIC{dev="DEV",...}
_scrape_value() {
	awk -v m="iomapdirty_$2{dev=\"$3\"," 'index($0, m) == 1 { print $NF; exit }' <<<"$1"
}
