#!/usr/bin/env bash
# The three ways to install (docs/fleet.md), for real:
#  - the Debian package: dpkg-buildpackage in a copy of the tree (nothing
#    written outside debian/ and .output/), lintian clean, installed by apt
#    into a fresh Debian root (mmdebstrap minbase, a throwaway copy, chroot)
#    with its dependencies, reinstalled over itself, purged: no file left;
#  - the OCI image (scripts/build-image.sh), run by podman (runc) with the
#    capabilities, mounts and seccomp profile (deploy/seccomp) docs/fleet.md
#    lists, not privileged: /metrics scraped from the host equals the
#    workload's figures on a loop XFS and labels it with the host's mount
#    point; each capability necessary; the runtime's default profile
#    refused with a message that names seccomp;
#  - the DaemonSet's pod template (deploy/kubernetes) run by podman kube
#    play, scraped the same way; its hostPath /run/iomapdirty shares the
#    host's instance lock (a hist on the host exits 7).
# Cached, keyed on their inputs, under /var/cache/iomapdirty-image: the
# .deb (hash of the files the build reads; the newest 5 kept), the minbase root and
# the image's library root (apt's candidate versions of their packages).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=../cli/lib.sh
source "$top/tests/cli/lib.sh"
# shellcheck source=../lib/scrape.sh
source "$top/tests/lib/scrape.sh"
XFSLOOP_NO_TRAP=1
# shellcheck source=../lib/xfsloop.sh
source "$top/tests/lib/xfsloop.sh"
cache=/var/cache/iomapdirty-image
work=$(mktemp -d /tmp/iomapdirty-package.XXXXXX)
ctr=iomapdirty-pkgtest-$$
PODMAN=(podman --runtime runc)
profile=$top/deploy/seccomp/iomapdirty.json
cleanup() {
	"${PODMAN[@]}" rm -f -t 2 "$ctr" >/dev/null 2>&1
	"${PODMAN[@]}" pod rm -f -t 2 "$ctr-pod" >/dev/null 2>&1
	[[ -n ${IMAGE:-} ]] && podman rmi -f "$IMAGE" >/dev/null 2>&1
	mountpoint -q "$work/root/proc" && umount "$work/root/proc"
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for t in dpkg-buildpackage lintian mmdebstrap podman runc jq curl python3 setpriv; do
	command -v "$t" >/dev/null || { fail "package.tools" "$t missing (scripts/install-deps.sh)"; cli_finish; exit 1; }
done
mkdir -p "$cache"

# tree_files: the tree's files, tracked and new, not ignored (NUL-separated),
# also in a copy without .git (make mutants): .gitignore read by a
# throwaway repository whose work tree is the copy
tree_files() {
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard)
	else
		git init -q "$work/noindex" &&
			(cd "$top" && GIT_DIR=$work/noindex/.git GIT_WORK_TREE=. \
				git ls-files -z --others --exclude-standard)
	fi
}

# phase NAME: the time since the last phase, on an INFO line
t_phase=$SECONDS
phase() { echo "INFO package: $1 took $((SECONDS - t_phase)) s"; t_phase=$SECONDS; }

# --- the package, built in a copy of the tree ---------------------------
# keyed on what the build reads: every file but the tests (make all
# builds one of them, http_serve.c), so a commit of tests alone reuses it
(cd "$top" && tree_files | sort -z | xargs -0 sha256sum) |
	awk '$2 !~ /^tests\// || $2 == "tests/exporter/http_serve.c"' >"$work/tree.sums"
check_match package.tree_listed ' user/live/session\.c$' "$(cat "$work/tree.sums")"
key=$(sha256sum <"$work/tree.sums" | cut -c1-16)
debdir=$cache/deb-$key
if [[ -n $(compgen -G "$debdir/iomapdirty_*.deb") ]]; then
	echo "INFO package: the .deb of this tree is cached ($debdir)"
	pass package.dpkg_buildpackage
	pass package.build_writes_only_debian_and_output
else
	mkdir -p "$work/src/tree"
	(cd "$top" && tree_files | tar --null -T - -cf -) | tar -xf - -C "$work/src/tree"
	(cd "$work/src/tree" && find . -type f | sort) >"$work/before"
	(cd "$work/src/tree" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b) \
		>"$work/build.log" 2>&1
	rc=$?
	check package.dpkg_buildpackage 0 "$rc"
	[[ $rc == 0 ]] || tail -5 "$work/build.log"
	(cd "$work/src/tree" && find . -type f | sort) >"$work/after"
	check package.build_writes_only_debian_and_output "" \
		"$(comm -13 "$work/before" "$work/after" | grep -v -e '^\./debian/' -e '^\./\.output/' |
			head -5 | tr '\n' ' ')"
	mkdir -p "$debdir.tmp" && mv "$work"/src/*.deb "$debdir.tmp/" && mv "$debdir.tmp" "$debdir"
fi
deb=$(ls "$debdir"/iomapdirty_*.deb 2>/dev/null | head -1)
[[ -f $deb ]] || { fail package.deb "no .deb"; cli_finish; exit 1; }
# the newest 5 packages are kept (one per tree, so per commit)
touch "$debdir"
ls -dt "$cache"/deb-* | tail -n +6 | xargs -r rm -rf
lintian --fail-on error,warning "$deb" >"$work/lintian.log" 2>&1
check package.lintian_clean "0:" "$?:$(grep -E '^[EW]:' "$work/lintian.log" | head -3)"
depends=$(dpkg-deb -f "$deb" Depends)
check_match package.depends_computed 'libbpf1 \(>= [^)]*\).*libmicrohttpd12' "$depends"
ver=$(sed -n 's/.*IOMAPDIRTY_VERSION[[:space:]]*"\(.*\)"/\1/p' "$top/user/lib/version.h")
check package.version "$ver" "$(dpkg-deb -f "$deb" Version)"
check package.conffile /etc/default/iomapdirty "$(dpkg-deb --ctrl-tarfile "$deb" |
	tar -xOf - ./conffiles)"

phase "the .deb and lintian"
# --- a fresh Debian root: apt installs it with its dependencies ---------
mb_key=$( { sed -n '/^# minbase:/,/^# end minbase/p' "$0"; apt-cache policy base-files libc6 apt dpkg |
	grep -E '^[a-z]|Candidate'; } | sha256sum | cut -c1-16)
# minbase:
minbase=$cache/minbase-$mb_key
if [[ ! -d $minbase ]]; then
	mmdebstrap --quiet --variant=minbase bookworm "$minbase.tmp" \
		"deb http://deb.debian.org/debian bookworm main" \
		"deb http://deb.debian.org/debian bookworm-updates main" \
		"deb http://deb.debian.org/debian-security bookworm-security main" \
		>"$work/mmdebstrap.log" 2>&1 && mv "$minbase.tmp" "$minbase"
	rm -rf "$minbase.tmp"
fi
# end minbase
check package.minbase_root yes "$([[ -x $minbase/usr/bin/apt-get ]] && echo yes || echo no)"
root=$work/root
cp -a "$minbase" "$root"
cp "$deb" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
(cd "$root" && find . -xdev | sort) >"$work/root.before"
inchroot() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
inchroot apt-get -qq update >"$work/apt.log" 2>&1
inchroot apt-get -y -qq install --no-install-recommends "/tmp/${deb##*/}" >>"$work/apt.log" 2>&1
check package.apt_install "0" "$?"
check_match package.version_in_fresh_root "^iomapdirty $ver" "$(inchroot iomapdirty --version 2>&1)"
check package.deps_installed ok "$(inchroot dpkg-query -W -f='${db:Status-Abbrev}\n' libbpf1 \
	libmicrohttpd12 libjson-c5 | grep -vc '^ii' | sed 's/^0$/ok/')"
for f in /usr/sbin/iomapdirty /usr/share/man/man8/iomapdirty.8.gz /etc/default/iomapdirty \
	 /lib/systemd/system/iomapdirty-exporter.service \
	 /usr/share/iomapdirty/prometheus/iomapdirty-rules.yml \
	 /usr/share/iomapdirty/grafana/iomapdirty-dashboard.json; do
	check "package.installed[$f]" yes "$([[ -s $root$f ]] && echo yes || echo no)"
done
check package.unit_not_enabled no \
	"$(compgen -G "$root/etc/systemd/system/*/iomapdirty-exporter.service" >/dev/null && echo yes || echo no)"
inchroot apt-get -y -qq install --reinstall "/tmp/${deb##*/}" >>"$work/apt.log" 2>&1
check package.reinstall_over_itself 0 "$?"
echo 'IOMAPDIRTY_EXPORTER_ARGS="--listen 0.0.0.0:19110"' >>"$root/etc/default/iomapdirty"
inchroot dpkg --purge iomapdirty >>"$work/apt.log" 2>&1
check package.purge 0 "$?"
rm -f "$root/tmp/${deb##*/}"
(cd "$root" && find . -xdev | sort) >"$work/root.after"
# every file or directory left behind that has the name (the conffile,
# edited, included), and every file the package shipped
left=$( { grep -i iomapdirty "$work/root.after"
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $NF }' | while read -r f; do
		[[ -e $root/${f#./} ]] && echo "$f"; done; } | sort -u | head -5 | tr '\n' ' ')
check package.purge_leaves_nothing "" "$left"
umount "$root/proc"
# what is new in the root after install and purge: apt's and the
# dependencies' files, listed; none of them the package's (checked above)
echo "INFO package: new paths after install and purge, outside /usr/lib, docs, apt's lists," \
	"caches and logs: $(comm -13 "$work/root.before" "$work/root.after" |
	grep -v -e '^./var/lib/apt/lists' -e '^./var/cache/apt' -e '^./var/log' -e '^./usr/lib' \
	-e '^./usr/share/doc' -e '^./var/lib/dpkg/info' | tr '\n' ' ')"

phase "the fresh root (install, reinstall, purge)"
# --- the image and the pod: both scraped from the host -----------------
IMAGE=localhost/iomapdirty-pkgtest:$ver-$$
"$top/scripts/build-image.sh" "$deb" "$IMAGE" >"$work/image.log" 2>&1
check package.image_built 0 "$?"
size=$(podman image inspect -f '{{.Size}}' "$IMAGE")
echo "INFO package: image $IMAGE: $((size / 1000000)) MB ($size bytes)"
check package.image_under_40MB yes "$( ((size > 0 && size < 40000000)) && echo yes || echo no)"
check package.image_no_compiler "" "$(podman image mount "$IMAGE" 2>/dev/null |
	xargs -I{} sh -c 'ls {}/usr/bin/cc {}/usr/bin/clang {}/bin/sh 2>/dev/null'; podman image unmount "$IMAGE" >/dev/null 2>&1)"
mnt=$(xfsloop_make 1024 512) || { fail package.fixture "no loop XFS"; cli_finish; exit 1; }
dev=$(xfsloop_dev "$mnt")
"$WORKLOAD" prep "$mnt/f" 1048576 >/dev/null
"$WORKLOAD" prep "$mnt/g" 1048576 >/dev/null
free_port() {
	local p
	p=$((20000 + RANDOM % 10000))
	while ss -Hltn "sport = :$p" | grep -q .; do p=$((20000 + RANDOM % 10000)); done
	echo "$p"
}
# wait_ready NAME: the container's log says ready (30 s at most)
wait_ready() {
	local i
	for i in $(seq 150); do
		podman logs "$1" 2>&1 | grep -q 'ready (pid' && return 0
		sleep 0.2
	done
	echo "# $1: $(podman logs "$1" 2>&1 | tail -3)"
	return 1
}
# seccomp_of CONTAINER: its process's seccomp mode (2: a filter)
seccomp_of() {
	awk '/^Seccomp:/ { print $2 }' "/proc/$(podman inspect -f '{{.State.Pid}}' "$1")/status"
}
# The profile is the runtime's default with bpf and perf_event_open
# allowed, rule for rule (scripts/seccomp-profile.sh from this host's)
check package.seccomp_profile_derived "" "$(diff <("$top/scripts/seccomp-profile.sh" | jq -S .) \
	<(jq -S . "$profile") | head -3)"
CAPS=(--cap-drop all --cap-add BPF --cap-add PERFMON --cap-add SETUID --cap-add SETGID)
# capped_run [PODMAN RUN ARGS...]: the image's exporter in the foreground
# with the documented mounts, exit status (60 s at most: one that runs is
# killed, 137); output in cap.log. A free port above 1024: binding below
# it needs CAP_NET_BIND_SERVICE, a refusal that would end every run with
# exit 4 whatever else it lacked.
capped_run() {
	timeout -s KILL 60 "${PODMAN[@]}" run --rm --ulimit nofile=1024:1024 \
		--ulimit nproc=1024:1024 --network host --read-only -v /:/host:ro,rslave "$@" \
		"$IMAGE" exporter --path.rootfs /host --listen "127.0.0.1:$(free_port)" \
		>"$work/cap.log" 2>&1
}
# The runtime's default profile refuses bpf(2) without CAP_SYS_ADMIN: exit 4
# before anything else, and the message says why
capped_run "${CAPS[@]}"
check package.image_default_seccomp_exit 4 "$?"
check_match package.image_default_seccomp_says \
	'bpf\(2\) system call is refused .*seccomp filter.*deploy/seccomp/iomapdirty.json' \
	"$(cat "$work/cap.log")"
# Each capability necessary: without any one of the four, exit 4 and
# nothing attached (no "ready")
for cap in BPF PERFMON SETUID SETGID; do
	# shellcheck disable=SC2046 # the three other --cap-add options
	capped_run --security-opt seccomp="$profile" --cap-drop all \
		$(printf -- '--cap-add %s ' BPF PERFMON SETUID SETGID | sed "s/--cap-add $cap //")
	check "package.image_needs[CAP_$cap]" "4:" "$?:$(grep -m1 'ready (pid' "$work/cap.log")"
done
# The documented run (docs/fleet.md, "2. The image"), with the test's port.
port=$(free_port)
"${PODMAN[@]}" run -d --name "$ctr" --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
	--network host --read-only "${CAPS[@]}" --security-opt seccomp="$profile" \
	-v /:/host:ro,rslave "$IMAGE" \
	exporter --path.rootfs /host --listen "127.0.0.1:$port" >"$work/run.log" 2>&1
check package.podman_run 0 "$?"
wait_ready "$ctr" && pass package.image_ready || fail package.image_ready "not ready"
check package.image_not_privileged false "$(podman inspect -f '{{.HostConfig.Privileged}}' "$ctr")"
check package.image_seccomp_filtered 2 "$(seccomp_of "$ctr")"
exp=$("$WORKLOAD" scatter "$mnt/f" --count 8 --len 100 --stride 20000)
scrape_matches_workload package.image "http://127.0.0.1:$port/metrics" "$mnt" "$dev" "$exp"
check package.image_no_container_path "" "$(grep -F 'mountpoint="/host' <<<"$SCRAPE_BODY" | head -1)"
"${PODMAN[@]}" stop -t 10 "$ctr" >/dev/null 2>&1
check package.image_exit 0 "$(podman inspect -f '{{.State.ExitCode}}' "$ctr")"
"${PODMAN[@]}" rm -f "$ctr" >/dev/null 2>&1

# The DaemonSet's pod template as a Pod: its image, its args but the port.
# Podman 4.3's kube play reads a container's seccomp profile from the
# annotation Kubernetes had before the field (the same value), and finds
# localhost/NAME under --seccomp-profile-root (kubelet's
# /var/lib/kubelet/seccomp, where docs/fleet.md installs it)
port=$(free_port)
python3 - "$top/deploy/kubernetes/daemonset.yaml" "$ctr-pod" "$IMAGE" "$port" \
	>"$work/pod.yaml" <<'PY'
import sys, yaml
ds = yaml.safe_load(open(sys.argv[1]))
tpl = ds["spec"]["template"]
c = tpl["spec"]["containers"][0]
c["image"] = sys.argv[3]
c["args"] = [a.replace("0.0.0.0:19110", "127.0.0.1:" + sys.argv[4]) for a in c["args"]]
c["ports"] = []
sp = c["securityContext"]["seccompProfile"]
ann = {"container.seccomp.security.alpha.kubernetes.io/" + c["name"]:
       "localhost/" + sp["localhostProfile"]} if sp["type"] == "Localhost" else {}
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": sys.argv[2], "labels": tpl["metadata"]["labels"],
                    "annotations": ann},
       "spec": tpl["spec"]}
yaml.safe_dump(pod, sys.stdout)
PY
printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n' >"$work/containers.conf"
check package.pod_seccomp_localhost "Localhost iomapdirty.json" "$(python3 -c '
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]["containers"][0]
p = c["securityContext"]["seccompProfile"]
print(p["type"], p.get("localhostProfile"))' "$top/deploy/kubernetes/daemonset.yaml")"
CONTAINERS_CONF=$work/containers.conf "${PODMAN[@]}" kube play \
	--seccomp-profile-root "$(dirname "$profile")" "$work/pod.yaml" >"$work/kube.log" 2>&1
check package.kube_play "0:" "$?:$(grep -i error "$work/kube.log" | head -2)"
kctr=$ctr-pod-exporter
wait_ready "$kctr" && pass package.pod_ready || fail package.pod_ready "not ready"
check package.pod_caps "CAP_BPF,CAP_PERFMON,CAP_SETGID,CAP_SETUID" \
	"$(podman inspect -f '{{join .EffectiveCaps ","}}' "$kctr" | tr ',' '\n' | sort | paste -sd,)"
check package.pod_read_only_root true "$(podman inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$kctr")"
check package.pod_seccomp_filtered 2 "$(seccomp_of "$kctr")"
check package.pod_path_rootfs "--path.rootfs /host" \
	"$(tr '\0' ' ' <"/proc/$(podman inspect -f '{{.State.Pid}}' "$kctr")/cmdline" |
		grep -o -- '--path.rootfs /host')"
# the hostPath /run/iomapdirty: the pod's exporter holds the host's lock
timeout -s KILL 20 "$IOMAPDIRTY" hist -i 1 -c 1 --mount "$mnt" >/dev/null 2>"$work/hist.err"
check package.pod_holds_host_lock 7 "$?"
# no write across a 4 KiB folio boundary: the exporter's always-on level
# counts a write call once per write(2), the workload's figure once per
# folio it copies into (docs/metrics.md)
exp=$("$WORKLOAD" scatter "$mnt/g" --count 6 --len 300 --stride 32768)
# the pod's exporter attached after the image's writes: only its own are counted
scrape_matches_workload package.pod "http://127.0.0.1:$port/metrics" "$mnt" "$dev" "$exp"
"${PODMAN[@]}" pod stop -t 10 "$ctr-pod" >/dev/null 2>&1
check package.pod_exit 0 "$(podman inspect -f '{{.State.ExitCode}}' "$kctr")"
phase "the image and the pod"
cli_finish
