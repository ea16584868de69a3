#!/usr/bin/env python3
"""bench/report.py RAW_DIR OUT.json OUT.md

Reads the per-run files bench/run.sh left in RAW_DIR and writes the summary
(JSON and a Markdown table), and prints the table. Python standard library
only. Ratios are paired: each run against the fio-alone run of the same
round (A B C D E are run back to back), then the median over rounds, with the
smallest and largest ratio as the spread.
"""
import glob
import json
import os
import re
import statistics
import sys

RAW, OUT_JSON, OUT_MD = sys.argv[1:4]

# (hook, tracepoint, iomapdirty program name after tp_ / btf_, the peer's
# tracepoint): the peer counts writes at XFS's tracepoint (one event per
# write(2)), iomapdirty at iomap_iter (two or more per write(2))
HOOKS = [
    ("write", "iomap_iter", "iomap_iter_write", "xfs_file_buffered_write"),
    ("dirty_folio", "writeback_dirty_folio", "dirty_folio", "writeback_dirty_folio"),
    ("writeback_folio", "iomap_writeback_folio", "wb_folio", "iomap_writeback_folio"),
    ("add_to_ioend", "iomap_add_to_ioend", "submit_range", "iomap_add_to_ioend"),
    ("invalidate", "iomap_invalidate_folio", "invalidate", "iomap_invalidate_folio"),
]


def tool_prog(progs, base):
    """iomapdirty's program for a hook and its type: btf_BASE is tp_btf
    (btf_BASE_ld: with guarded loads), tp_BASE raw_tp (the kernel keeps 15
    characters of a name)."""
    for prefix, suffix, kind in (("btf_", "_ld", "tp_btf"), ("btf_", "", "tp_btf"),
                                 ("tp_", "", "raw_tp")):
        name = (prefix + base + suffix)[:15]
        p = next((p for p in progs if p["name"] == name), None)
        if p:
            return p, kind
    return None, None
VARIANTS = ["A-fio", "B-hist", "C-top", "D-bpftrace", "E-floor", "F-aon", "G-exporter"]
# the throughput table's columns after "fio alone": variant, heading
RATIO_COLUMNS = [("B-hist", "+ iomapdirty hist"), ("C-top", "+ iomapdirty top"),
                 ("D-bpftrace", "+ bpftrace peer"), ("E-floor", "+ empty programs"),
                 ("F-aon", "+ hist always-on"), ("G-exporter", "+ exporter (always-on)")]
# variants that are iomapdirty with a JSON summary; their observer kind
TOOL_VARIANTS = {"B-hist": "hist", "C-top": "top", "F-aon": "aon"}
KINDS = dict(TOOL_VARIANTS, **{"D-bpftrace": "peer", "E-floor": "floor",
                               "G-exporter": "exporter"})
WORKLOADS = ["hot", "seed", "many"]


def load(path, default=None):
    try:
        with open(path) as f:
            text = f.read().strip()
        return json.loads(text) if text else default
    except (OSError, ValueError):
        return default


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    return {"median": med(xs), "min": min(xs) if xs else None,
            "max": max(xs) if xs else None, "n": len(xs)}


def fio_metrics(path):
    j = load(path)
    if not j or not j.get("jobs"):
        return None
    job = j["jobs"][0]  # every workload reports its jobs as one group
    w = job["write"]
    sync = job.get("sync", {}).get("lat_ns", {})
    return {"iops": w["iops"], "bw_kib": w["bw"], "ios": w.get("total_ios"),
            "fsync_mean_us": (sync.get("mean") or 0) / 1e3 or None,
            "cpu_ns_per_io": fio_cpu_per_io(job)}


def fio_cpu_per_io(job):
    """fio's own CPU time (user + system, summed over the group's jobs:
    usr_cpu and sys_cpu are percentages of job_runtime, the jobs' summed
    run time) per write I/O, in ns."""
    try:
        ios = job["write"]["total_ios"]
        cpu_ns = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1e6
    except (KeyError, TypeError):
        return None
    return cpu_ns / ios if ios else None


def bpf_total_ns(progs):
    """Run time of every program an observer holds (kernel BPF stats)."""
    return sum(p.get("run_time_ns") or 0 for p in progs or [])


def losses_of(summary):
    if not summary:
        return None
    return sum(int(v) for v in (summary.get("losses") or {}).values())


def nonzero_losses(summary):
    return {k: v for k, v in (summary or {}).get("losses", {}).items() if v}


machine = load(os.path.join(RAW, "machine.json"), {})
end = load(os.path.join(RAW, "end.json"), {})
result = {"machine": machine, "end": end, "workloads": {}}

# ------------------------------------------------------------ throughput
for wl in WORKLOADS:
    wdir = os.path.join(RAW, wl)
    if not os.path.isdir(wdir):
        continue
    runs = {}
    for d in sorted(glob.glob(os.path.join(wdir, "*-*"))):
        name = os.path.basename(d)
        m = re.match(r"(.+)-(\d+)$", name)
        if not m or m.group(1) == "stats":
            continue
        v, rep = m.group(1), int(m.group(2))
        kind = KINDS.get(v)
        r = {"fio": fio_metrics(os.path.join(d, "fio.json")),
             "env": load(os.path.join(d, "env.json"), {}),
             "failed": os.path.exists(os.path.join(d, "failed.json"))}
        if kind:
            ru = load(os.path.join(d, kind + ".rusage.json"), {})
            ready = load(os.path.join(d, kind + ".ready"))
            r["observer"] = {
                "ready_ms": ru.get("ready_ms"),
                "cpu_s": (ru.get("utime_s", 0) + ru.get("stime_s", 0)) if ru else None,
                "utime_s": ru.get("utime_s"), "stime_s": ru.get("stime_s"),
                "wall_s": ru.get("wall_s"), "maxrss_kb": ru.get("maxrss_kb"),
                "exit": ru.get("exit")}
            summ = load(os.path.join(d, kind + ".summary.json"))
            r["summary"] = summ
            bpf = load(os.path.join(d, kind + ".bpf.json"), {})
            maps = bpf.get("maps", [])
            r["bpf_memlock"] = sum(max(mp.get("memlock", 0), 0) for mp in maps)
            r["maps"] = {mp["name"]: {k: mp[k] for k in ("max_entries", "memlock", "entries")}
                         for mp in maps}
            if kind == "floor":
                # what floor attached ("ready (pid N, K programs)") and refused
                try:
                    err = open(os.path.join(d, "floor.err")).read()
                except OSError:
                    err = ""
                m = re.search(r"ready \(pid \d+, (\d+) programs\)", err)
                r["floor_programs"] = int(m.group(1)) if m else None
                r["floor_refused"] = re.findall(r"refused: (\S+)", err)
        runs.setdefault(v, {})[rep] = r
    variants = {}
    base = runs.get("A-fio", {})
    for v in VARIANTS:
        if v not in runs:
            continue
        rs = runs[v]
        ratios, bw_ratios = [], []
        for rep, r in rs.items():
            a = base.get(rep)
            if r["fio"] and a and a["fio"]:
                ratios.append(r["fio"]["iops"] / a["fio"]["iops"])
                bw_ratios.append(r["fio"]["bw_kib"] / a["fio"]["bw_kib"])
        entry = {
            "iops": spread([r["fio"]["iops"] for r in rs.values() if r["fio"]]),
            "bw_kib": spread([r["fio"]["bw_kib"] for r in rs.values() if r["fio"]]),
            "ratio": spread(ratios),
            "failed_runs": sum(1 for r in rs.values() if r["failed"]),
            "foreign_probes_max": max((r["env"].get("foreign_probes") or 0 for r in rs.values()),
                                      default=0),
            "states": [r["env"].get("state") for r in rs.values()],
        }
        entry["cpu_ns_per_io"] = spread([r["fio"]["cpu_ns_per_io"] for r in rs.values()
                                         if r["fio"]])
        if any(r["fio"] and r["fio"]["fsync_mean_us"] for r in rs.values()):
            entry["fsync_mean_us"] = spread([r["fio"]["fsync_mean_us"] for r in rs.values()
                                             if r["fio"]])
        obs = [r.get("observer") for r in rs.values() if r.get("observer")]
        if obs:
            entry["observer_runs"] = obs
            entry["observer"] = {
                "cpu_pct": spread([100 * o["cpu_s"] / o["wall_s"] for o in obs
                                   if o.get("wall_s")]),
                "cpu_s": spread([o["cpu_s"] for o in obs]),
                "maxrss_kb": spread([o["maxrss_kb"] for o in obs]),
                "ready_ms": spread([o["ready_ms"] for o in obs if o["ready_ms"] and o["ready_ms"] > 0]),
            }
        if v != "A-fio":
            entry["bpf_memlock"] = spread([r.get("bpf_memlock") for r in rs.values()])
        if v == "E-floor":
            entry["programs_attached"] = [r.get("floor_programs") for r in rs.values()]
            entry["programs_refused"] = sorted({p for r in rs.values()
                                                for p in r.get("floor_refused") or []})
        summs = [r.get("summary") for r in rs.values() if v in TOOL_VARIANTS]
        if summs:
            entry["losses_total"] = sum(losses_of(s) or 0 for s in summs)
            entry["losses_nonzero"] = [nonzero_losses(s) for s in summs if nonzero_losses(s)]
            entry["missing_summaries"] = sum(1 for s in summs if not s)
            entry["events"] = [s.get("events") for s in summs if s][:1]
            maps = [r.get("maps") for r in rs.values() if r.get("maps")]
            if maps:
                entry["maps_last_run"] = maps[-1]
            entry["files_in_summary"] = [s.get("nfiles_listed") for s in summs if s]
            if summs and summs[0]:
                ev = summs[0].get("events", {})
                secs = summs[0].get("seconds") or 0
                entry["event_rate_per_s"] = (sum(ev.get(k, 0) for k in (
                    "write_events", "dirty_folio_events", "writeback_begin_events",
                    "submit_events", "invalidate_events")) / secs) if secs else None
        variants[v] = entry
    result["workloads"][wl] = {"variants": variants}

# ------------------------------------------------------- building blocks
# bench/micro.bpf.c over one run of each workload (raw/micro-WL/): wb_* on
# iomap_writeback_folio, ioend_* on iomap_add_to_ioend, the rest on
# xfs_file_buffered_write; each hook's own empty program is its floor in
# the same events
def micro_hook(name):
    if name.startswith("wb_"):
        return "writeback_folio", "wb_empty"
    if name.startswith("ioend_"):
        return "add_to_ioend", "ioend_empty"
    return "write", "empty"


result["micro"] = {}
for wl in WORKLOADS:
    try:
        with open(os.path.join(RAW, f"micro-{wl}", "micro.out")) as f:
            progs = [json.loads(l) for l in f if l.strip()]
    except (OSError, ValueError):
        continue
    m = {p["program"]: {"events": p["run_cnt"],
                        "ns": p["run_time_ns"] / p["run_cnt"] if p["run_cnt"] else None}
         for p in progs}
    for k, v in m.items():
        hook, empty = micro_hook(k)
        floor = m.get(empty, {}).get("ns")
        v["hook"] = hook
        v["over_empty_ns"] = (v["ns"] - floor if k != empty and v["ns"] is not None
                              and floor is not None else None)
    result["micro"][wl] = m

# ---------------------------------------------- past the documented bound
od = os.path.join(RAW, "overflow")
if os.path.isdir(od):
    summ = load(os.path.join(od, "hist.summary.json"), {})
    bpf = load(os.path.join(od, "hist.bpf.json"), {})
    ru = load(os.path.join(od, "hist.rusage.json"), {})
    maps = {m["name"]: m for m in bpf.get("maps", [])}
    result["overflow"] = {
        "files_written": load(os.path.join(od, "nfiles"), None),
        "losses": nonzero_losses(summ),
        "files_entries": (maps.get("files") or {}).get("entries"),
        "files_max": (maps.get("files") or {}).get("max_entries"),
        "paths_entries": (maps.get("paths") or {}).get("entries"),
        "paths_max": (maps.get("paths") or {}).get("max_entries"),
        "files_in_summary": summ.get("nfiles_listed"),
        "files_evicted": (summ.get("events") or {}).get("file_entries_evicted"),
        "paths_evicted": (summ.get("events") or {}).get("path_entries_evicted"),
        "maxrss_kb": ru.get("maxrss_kb"), "exit": ru.get("exit"),
        "bpf_memlock": sum(max(m.get("memlock", 0), 0) for m in maps.values()),
    }

# ------------------------------------------------------------ BPF stats
def prog_rows(bpf, names_by_id=None):
    rows = {}
    for p in (bpf or {}).get("progs", []):
        rows[p["id"]] = p
    return rows


for wl in WORKLOADS:
    sdirs = sorted(glob.glob(os.path.join(RAW, wl, "stats-*")))
    if not sdirs:
        continue
    per_hook = {h[0]: {"tool": [], "peer": [], "floor": [], "events": [], "type": None,
                       "floor_raw": [], "aon": [], "aon_events": [], "peer_events": []}
                for h in HOOKS}
    flush = []
    sanity = []
    losses = []
    per_io = []     # per stats run: each observer's BPF ns per write I/O
    for d in sdirs:
        hist = load(os.path.join(d, "hist.bpf.json"), {})
        aon = load(os.path.join(d, "aon.bpf.json"), {})
        peer = load(os.path.join(d, "peer.bpf.json"), {})
        perf = load(os.path.join(d, "peer.perf.json"), [])
        floor = []
        try:
            with open(os.path.join(d, "floor.out")) as f:
                floor = [json.loads(l) for l in f if l.strip()]
        except (OSError, ValueError):
            pass
        peer_by_tp = {}
        peer_progs = prog_rows(peer)
        for e in perf or []:
            p = peer_progs.get(e.get("prog_id"))
            if p:
                peer_by_tp[e["tracepoint"]] = p
        for hook, tp, base, peer_tp in HOOKS:
            t, kind = tool_prog(hist.get("progs", []), base)
            # the floor of the same program type on the same tracepoint
            fl = next((p for p in floor if p["tracepoint"] == tp and
                       p.get("type", "raw_tp") == (kind or "raw_tp")), None)
            if kind:
                per_hook[hook]["type"] = kind
            # the peer's programs are perf-event tracepoint programs: its
            # ratio stays against the raw_tp floor, as before
            fr = next((p for p in floor if p["tracepoint"] == tp and
                       p.get("type", "raw_tp") == "raw_tp"), None)
            if fr and fr["run_cnt"]:
                per_hook[hook]["floor_raw"].append(fr["run_time_ns"] / fr["run_cnt"])
            pe = peer_by_tp.get(peer_tp)
            if pe:
                per_hook[hook]["peer_events"].append(pe["run_cnt"])
            for key, p in (("tool", t), ("floor", fl), ("peer", pe)):
                if p and p["run_cnt"]:
                    per_hook[hook][key].append(p["run_time_ns"] / p["run_cnt"])
            if t:
                per_hook[hook]["events"].append(t["run_cnt"])
            # the always-on level (same program names, its own process)
            ta, _ = tool_prog(aon.get("progs", []), base)
            if ta and ta["run_cnt"]:
                per_hook[hook]["aon"].append(ta["run_time_ns"] / ta["run_cnt"])
                per_hook[hook]["aon_events"].append(ta["run_cnt"])
        fio = fio_metrics(os.path.join(d, "fio.json"))
        if fio and fio["ios"]:
            # the empty programs of the tool's type (tp_btf here) on its hooks
            per_io.append({k: v / fio["ios"] for k, v in (
                ("full", bpf_total_ns(hist.get("progs"))),
                ("aon", bpf_total_ns(aon.get("progs"))),
                ("peer", bpf_total_ns(peer.get("progs"))),
                ("floor", sum(p["run_time_ns"] for p in floor
                              if p.get("type") == "tp_btf")))})
        fp = next((p for p in hist.get("progs", []) if p["name"] == "flush_idle"), None)
        if fp and fp["run_cnt"]:
            flush.append({"runs": fp["run_cnt"], "ns_per_run": fp["run_time_ns"] / fp["run_cnt"]})
        # totals, per event, all hooks together
        summ = load(os.path.join(d, "hist.summary.json"))
        psum = load(os.path.join(d, "peer.summary.json"))
        losses.append(losses_of(summ))
        if summ and psum:
            t = summ.get("totals", {})
            sanity.append({
                "tool_app_bytes": t.get("app_bytes"), "peer_app_bytes": psum.get("app_bytes"),
                "tool_folios": t.get("folios"), "peer_folios": psum.get("folios"),
                "tool_submitted_bytes": t.get("submitted_bytes"),
                "peer_submitted_bytes": psum.get("submitted_bytes"),
                "tool_files": summ.get("nfiles_listed"), "peer_files": psum.get("files")})
    hooks = {}
    tot = {"tool": 0.0, "floor": 0.0, "peer": 0.0, "aon": 0.0, "aon_floor": 0.0,
           "floor_all": 0.0}
    for hook, tp, _, peer_tp in HOOKS:
        h = per_hook[hook]
        t, f, p = med(h["tool"]), med(h["floor"]), med(h["peer"])
        fraw = med(h["floor_raw"])
        a = med(h["aon"])
        hooks[hook] = {"tracepoint": tp, "program_type": h["type"],
                       "events": med(h["events"]),
                       "tool_ns": t, "floor_ns": f, "peer_ns": p,
                       "aon_ns": a, "aon_events": med(h["aon_events"]),
                       "ratio_aon_floor": (a / f) if a and f else None,
                       "tool_ns_spread": spread(h["tool"]),
                       "aon_ns_spread": spread(h["aon"]),
                       "peer_ns_spread": spread(h["peer"]),
                       "ratio_tool_floor": (t / f) if t and f else None,
                       "floor_raw_tp_ns": fraw, "peer_tracepoint": peer_tp,
                       "peer_events": med(h["peer_events"]),
                       # the floor is on the tool's tracepoint only
                       "ratio_peer_floor": (p / fraw) if p and fraw and peer_tp == tp
                       else None}
        n = med(h["events"]) or 0
        if t and f:
            tot["tool"] += t * n
            tot["floor"] += f * n
            if p:
                tot["peer"] += p * (med(h["peer_events"]) or 0)
        # always-on: its hooks only, against the floor on the same hooks;
        # and its whole cost against the floor on every hook the full level has
        na = med(h["aon_events"]) or 0
        if a and f:
            tot["aon"] += a * na
            tot["aon_floor"] += f * na
        if t and f:
            tot["floor_all"] += f * n
    # BPF CPU per I/O against the workload's own CPU per I/O (fio alone,
    # the throughput rounds' median): a fraction that holds where
    # throughput is noise; paired with the empty programs of the same run
    a_cpu = ((result["workloads"][wl]["variants"].get("A-fio") or {})
             .get("cpu_ns_per_io") or {}).get("median")
    overhead = {"workload_cpu_ns_per_io": a_cpu, "observers": {}}
    for k in ("full", "aon", "peer", "floor"):
        overhead["observers"][k] = {
            "bpf_ns_per_io": spread([r[k] for r in per_io]),
            "fraction_of_workload_cpu": spread([r[k] / a_cpu for r in per_io] if a_cpu else []),
            "x_floor": spread([r[k] / r["floor"] for r in per_io if r["floor"]])}
    result["workloads"][wl]["bpf_stats"] = {
        "hooks": hooks, "flush_idle": flush, "sanity_vs_peer": sanity,
        "overhead": overhead,
        "losses": losses,
        "weighted_ratio_tool_floor": tot["tool"] / tot["floor"] if tot["floor"] else None,
        "weighted_ratio_aon_floor": tot["aon"] / tot["aon_floor"] if tot["aon_floor"] else None,
        "aon_over_floor_all_hooks": tot["aon"] / tot["floor_all"] if tot["floor_all"] else None,
    }

# ------------------------------------------------------- start-up, memory
sdir = os.path.join(RAW, "startup")
startup = {}
readies, cpus = [], []
for d in glob.glob(os.path.join(sdir, "[0-9]*")):
    ru = load(os.path.join(d, "hist.rusage.json"), {})
    if ru.get("ready_ms", -1) > 0:
        readies.append(ru["ready_ms"])
        cpus.append(1e3 * (ru["utime_s"] + ru["stime_s"]))
startup["ready_ms"] = spread(readies)
startup["cpu_ms_start_and_stop"] = spread(cpus)


def strace_breakdown(path):
    """Phases of one start from `strace -ttt -T` landmarks."""
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return None
    ev = []
    for l in lines:
        m = re.match(r"(\d+) +(\d+\.\d+) (\w+)\((.*?)\)? += .*<([\d.]+)>$", l)
        if m:
            ev.append((float(m.group(2)), m.group(3), m.group(4), float(m.group(5))))
    if not ev:
        return None
    t0 = ev[0][0]
    marks = {"exec": t0}
    btf_opens = [e for e in ev if e[1] == "openat" and "/sys/kernel/btf/vmlinux" in e[2]]
    ksym = next((e for e in ev if e[1] == "openat" and "/proc/kallsyms" in e[2]), None)
    ready = next((e for e in ev if e[1] == "write" and "ready" in e[2]), None)
    first_map = next((e for e in ev if e[1] == "bpf" and "BPF_MAP_CREATE" in e[2]
                      and "libbpf" not in e[2]), None)
    loads = [e for e in ev if e[1] == "bpf" and "BPF_PROG_LOAD" in e[2]
             and re.search(r'prog_name="(tp_|flush)', e[2])]
    attach = [e for e in ev if e[1] == "bpf" and "BPF_RAW_TRACEPOINT_OPEN" in e[2]
              and loads and e[0] > loads[-1][0]]
    if not ready:
        return None
    out = {"total_under_strace_ms": (ready[0] - t0) * 1e3}
    seq = [("exec", t0)]
    if btf_opens:
        seq.append(("facts: vmlinux BTF parse", btf_opens[0][0]))
    if ksym:
        seq.append(("facts: /proc/kallsyms scan", ksym[0]))
        nxt = next((e for e in ev if e[0] > ksym[0] and not (e[1] == "close")), None)
        if nxt:
            seq.append(("trial attaches, plan", nxt[0]))
    if len(btf_opens) > 1:
        seq.append(("libbpf open: BTF, CO-RE", btf_opens[-1][0]))
    if first_map:
        seq.append(("map creation (preallocation)", first_map[0]))
    if loads:
        seq.append(("program load + verification", loads[0][0]))
    if attach:
        seq.append(("attach", attach[0][0]))
    seq.append(("to ready", ready[0]))
    seq.sort(key=lambda x: x[1])
    phases = []
    for (name, t), (_, t2) in zip(seq[:-1], seq[1:]):
        phases.append({"phase": name if name != "exec" else "exec, options, mount lookup",
                       "ms": (t2 - t) * 1e3})
    out["phases"] = phases
    out["program_loads_ms"] = {re.search(r'prog_name="([^"]+)"', e[2]).group(1): e[3] * 1e3
                               for e in loads}
    out["map_creates_ms"] = {}
    for e in ev:
        if e[1] == "bpf" and "BPF_MAP_CREATE" in e[2]:
            m = re.search(r'map_name="([^"]+)"', e[2])
            if m and e[3] > 0.0005:
                out["map_creates_ms"][m.group(1)] = e[3] * 1e3
    out["raw_tracepoint_opens"] = sum(1 for e in ev if e[1] == "bpf" and
                                      "BPF_RAW_TRACEPOINT_OPEN" in e[2])
    out["raw_tracepoint_open_ms"] = sum(e[3] for e in ev if e[1] == "bpf" and
                                        "BPF_RAW_TRACEPOINT_OPEN" in e[2]) * 1e3
    out["prog_loads"] = sum(1 for e in ev if e[1] == "bpf" and "BPF_PROG_LOAD" in e[2])
    return out


startup["strace"] = strace_breakdown(os.path.join(sdir, "strace.txt"))
mem = []
for d in sorted(glob.glob(os.path.join(sdir, "maxpages-*"))):
    mp = int(d.rsplit("-", 1)[1])
    bpf = load(os.path.join(d, "hist.bpf.json"), {})
    maps = bpf.get("maps", [])
    if maps:
        mem.append({"max_pages": mp, "memlock": sum(max(m["memlock"], 0) for m in maps),
                    "maps": {m["name"]: m["memlock"] for m in maps}})
fit = None
if len(mem) >= 2:
    xs = [m["max_pages"] for m in mem]
    ys = [m["memlock"] for m in mem]
    xbar, ybar = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - xbar) * (y - ybar) for x, y in zip(xs, ys)) / \
        sum((x - xbar) ** 2 for x in xs)
    fit = {"bytes_per_page_record": slope, "fixed_bytes": ybar - slope * xbar,
           "max_residual_bytes": max(abs(y - (ybar + slope * (x - xbar))) for x, y in zip(xs, ys))}
startup["map_memory"] = mem
startup["map_memory_fit"] = fit
result["startup"] = startup

# steady-state CPU of the observers: the run minus one start+stop measured alone
start_cpu_s = (startup["cpu_ms_start_and_stop"]["median"] or 0) / 1e3
for wl, w in result["workloads"].items():
    for v, e in w["variants"].items():
        obs = e.pop("observer_runs", None)
        if not obs or v not in TOOL_VARIANTS:
            continue
        steady = []
        for o in obs:
            if o.get("wall_s") and o.get("ready_ms") and o["ready_ms"] > 0:
                run_s = o["wall_s"] - o["ready_ms"] / 1e3
                if run_s > 0:
                    steady.append(100 * max(o["cpu_s"] - start_cpu_s, 0) / run_s)
        e["observer"]["steady_cpu_pct"] = spread(steady)

# ------------------------------------------------------------- targets
W = result["workloads"]


def ratio(wl, v):
    return (((W.get(wl) or {}).get("variants") or {}).get(v) or {}).get("ratio", {}).get("median")


targets = []


def loss_vs(wl, v, ref, limit, what):
    """v's throughput loss (1 - median ratio) at most limit x ref's loss."""
    x, r = ratio(wl, v), ratio(wl, ref)
    if x is None or r is None:
        return
    lx, lr = 1 - x, 1 - r
    rs = (((W.get(wl) or {}).get("variants") or {}).get(v) or {}).get("ratio", {})
    targets.append({"target": f"{wl}: {what}",
                    "value": {"loss": lx, "reference_loss": lr,
                              "loss_ratio": (lx / lr) if lr > 0 else None,
                              "spread": [rs.get("min"), rs.get("max")]},
                    "met": lx <= limit * lr if lr > 0 else lx <= 0})


# issue 13: full accounting within 2x the empty programs' loss and half the
# peer's; always-on within 1.3x the empty programs' loss
loss_vs("hot", "B-hist", "E-floor", 2, "full accounting (hist): loss <= 2x the "
        "empty-program loss")
loss_vs("hot", "C-top", "E-floor", 2, "full accounting (top): loss <= 2x the "
        "empty-program loss")
loss_vs("hot", "B-hist", "D-bpftrace", 0.5, "full accounting (hist): loss <= 1/2 of "
        "the bpftrace peer's")
loss_vs("hot", "F-aon", "E-floor", 1.3, "always-on accounting (hist): loss <= 1.3x "
        "the empty-program loss")
loss_vs("hot", "G-exporter", "E-floor", 1.3, "always-on accounting (exporter): loss "
        "<= 1.3x the empty-program loss")
# seed and many: within noise of the floor: the median inside or above the
# floor variant's own [min, max]
for wl in ("seed", "many"):
    fv = (((W.get(wl) or {}).get("variants") or {}).get("E-floor") or {}).get("ratio", {})
    for v, level in (("B-hist", "full"), ("F-aon", "always-on")):
        x = ratio(wl, v)
        if x is None or fv.get("min") is None:
            continue
        targets.append({"target": f"{wl}: {level} accounting within noise of the "
                                  "empty programs (median >= their smallest ratio)",
                        "value": {"median": x, "floor_median": fv.get("median"),
                                  "floor_spread": [fv.get("min"), fv.get("max")]},
                        "met": x >= fv["min"]})
st = (W.get("hot") or {}).get("bpf_stats")
if st:
    worst = max(((h, v["ratio_tool_floor"]) for h, v in st["hooks"].items()
                 if v["ratio_tool_floor"]), key=lambda x: x[1], default=(None, None))
    meds = [v["ratio_tool_floor"] for v in st["hooks"].values() if v["ratio_tool_floor"]]
    targets.append({"target": "hot: full accounting per event, event-weighted, within 3x "
                              "of the empty program of the same type",
                    "value": {"per_hook": {h: v["ratio_tool_floor"] for h, v in st["hooks"].items()
                                           if v["ratio_tool_floor"]},
                              "worst": worst, "event_weighted": st["weighted_ratio_tool_floor"]},
                    "met": (st["weighted_ratio_tool_floor"] or 99) <= 3})
    if st.get("weighted_ratio_aon_floor"):
        targets.append({"target": "hot: always-on accounting per event, event-weighted, "
                                  "within 1.5x of the empty program (its hooks)",
                        "value": {"per_hook": {h: v["ratio_aon_floor"]
                                               for h, v in st["hooks"].items()
                                               if v["ratio_aon_floor"]},
                                  "event_weighted": st["weighted_ratio_aon_floor"],
                                  "over_floor_on_all_full_hooks":
                                      st["aon_over_floor_all_hooks"]},
                        "met": st["weighted_ratio_aon_floor"] <= 1.5})
# issue 29: large folios and many files against the peer, the always-on
# overhead against the empty programs', no regression of hot full


def hook_ns(wl, hook, key):
    return ((((W.get(wl) or {}).get("bpf_stats") or {}).get("hooks") or {})
            .get(hook) or {}).get(key)


def target(what, value, met):
    if met is not None:
        targets.append({"target": what, "value": value, "met": met})


# The floor of any design, per hook, from bench/micro's run of the same
# workload: the least an always-on tool must do there, over the empty
# program of that hook in the same events. write: the write's facts read
# (reads_btf: a per-CPU sum is a few ns more; a lower bound where each
# write is another file's, many); writeback: wb_floor (the folio and its
# whole dirty bitmap, the file's entry when it changes); submit: the
# thread's folio context (ioend_ctx).
FLOOR_BLOCKS = {"write": ("reads_btf", "empty"), "writeback_folio": ("wb_floor", "wb_empty"),
                "add_to_ioend": ("ioend_ctx", "ioend_empty")}


def micro_ns(wl, block):
    return ((result["micro"].get(wl) or {}).get(block) or {}).get("ns")


def floor_ratio(wl, hook):
    """The floor block's ns over its hook's empty program (bench/micro)."""
    b, e = FLOOR_BLOCKS[hook]
    nb, ne = micro_ns(wl, b), micro_ns(wl, e)
    return nb / ne if nb and ne else None


def floor_weighted(wl, per_io):
    """The floor design's event-weighted ratio to the empty programs: over
    its own hooks, or (per_io) over every hook the empty programs hold."""
    hooks = ((W.get(wl) or {}).get("bpf_stats") or {}).get("hooks") or {}
    num_, den = 0.0, 0.0
    for hook, h in hooks.items():
        n, f = h.get("events") or 0, h.get("floor_ns")
        if not f:
            continue
        if hook in FLOOR_BLOCKS:
            r = floor_ratio(wl, hook)
            if r is None:
                return None
            num_ += n * f * r
            den += n * f
        elif per_io:
            den += n * f
    return num_ / den if den else None


seed_wb, hot_wb = hook_ns("seed", "writeback_folio", "aon_ns"), hook_ns("hot", "writeback_folio", "aon_ns")
seed_fl, hot_fl = micro_ns("seed", "wb_floor"), micro_ns("hot", "wb_floor")
target("seed vs hot: always-on writeback per event on large folios with one dirty block "
       "(seed: 1 KiB writes + fdatasync into folios up to 2 MiB) <= 3x order-0's (hot)",
       {"seed_ns": seed_wb, "hot_ns": hot_wb,
        "ratio": seed_wb / hot_wb if seed_wb and hot_wb else None,
        "floor_ratio": seed_fl / hot_fl if seed_fl and hot_fl else None},
       seed_wb / hot_wb <= 3 if seed_wb and hot_wb else None)
for wl in ("seed", "many"):
    for key, level, limit in (("aon_ns", "always-on", 1), ("tool_ns", "full", 1.5)):
        t, p = hook_ns(wl, "writeback_folio", key), hook_ns(wl, "writeback_folio", "peer_ns")
        # full accounting also takes the first page's record: one access
        # of the page table (table_miss over the write hook's empty)
        fl = micro_ns(wl, "wb_floor")
        if fl and level == "full":
            tm, te = micro_ns(wl, "table_miss"), micro_ns(wl, "empty")
            fl = fl + tm - te if tm and te else None
        target(f"{wl}: {level} writeback per event <= {limit}x the bpftrace peer's "
               "(same hook)", {"tool_ns": t, "peer_ns": p, "ratio": t / p if t and p else None,
                               "tool_spread": hook_ns(wl, "writeback_folio", key + "_spread"),
                               "peer_spread": hook_ns(wl, "writeback_folio", "peer_ns_spread"),
                               "floor_ns": fl, "floor_over_peer": fl / p if fl and p else None},
               t <= limit * p if t and p else None)
# the floor of any design on each workload's folios (bench/micro wb_floor,
# its own run): what the always-on writeback program and the peer are
# against it (context, not a target: measured in another run)
for wl in WORKLOADS:
    fl = ((result["micro"].get(wl) or {}).get("wb_floor") or {}).get("ns")
    a, p = hook_ns(wl, "writeback_folio", "aon_ns"), hook_ns(wl, "writeback_folio", "peer_ns")
    if fl:
        targets.append({"target": f"{wl}: always-on writeback per event against the floor of "
                                  "any design keeping per-file figures from the dirty bitmap "
                                  "(bench/micro wb_floor, its own run)",
                        "value": {"aon_ns": a, "floor_ns": fl, "peer_ns": p,
                                  "aon_over_floor": a / fl if a else None},
                        "met": None})
st_hot = (W.get("hot") or {}).get("bpf_stats") or {}
target("hot: always-on per event, event-weighted, <= 1.8x the empty programs (its hooks)",
       {"event_weighted": st_hot.get("weighted_ratio_aon_floor"),
        "floor_design": floor_weighted("hot", False)},
       st_hot["weighted_ratio_aon_floor"] <= 1.8 if st_hot.get("weighted_ratio_aon_floor")
       else None)
target("hot: full per event, event-weighted, no regression (<= 4.6x the empty programs)",
       {"event_weighted": st_hot.get("weighted_ratio_tool_floor")},
       st_hot["weighted_ratio_tool_floor"] <= 4.6 if st_hot.get("weighted_ratio_tool_floor")
       else None)
for wl in WORKLOADS:
    o = ((((W.get(wl) or {}).get("bpf_stats") or {}).get("overhead") or {})
         .get("observers") or {}).get("aon")
    if o and o["x_floor"].get("median") is not None:
        target(f"{wl}: always-on BPF CPU per I/O (as a fraction of the workload's CPU per "
               "I/O) <= 1.3x the empty programs'",
               dict(o["x_floor"], floor_design=floor_weighted(wl, True)),
               o["x_floor"]["median"] <= 1.3)
hv = ((W.get("hot") or {}).get("variants") or {})
hot_losses = sum((hv.get(v) or {}).get("losses_total", 0) for v in TOOL_VARIANTS)
hot_losses += sum(x or 0 for x in (st or {}).get("losses", []))
missing = sum((hv.get(v) or {}).get("missing_summaries", 0) for v in TOOL_VARIANTS)
targets.append({"target": "hot: no lost events (losses all 0 in every summary)",
                "value": {"losses": hot_losses, "missing_summaries": missing,
                          "event_rate_per_s": (hv.get("B-hist") or {}).get("event_rate_per_s")},
                "met": hot_losses == 0 and missing == 0 and "B-hist" in hv})
all_losses, all_missing = {}, 0
for wl, w in W.items():
    for v in TOOL_VARIANTS:
        e = (w.get("variants") or {}).get(v)
        if not e:
            continue
        all_losses[f"{wl}/{v}"] = e.get("losses_total")
        all_missing += e.get("missing_summaries", 0)
    st_ = w.get("bpf_stats") or {}
    all_losses[f"{wl}/stats"] = sum(x or 0 for x in st_.get("losses", []))
targets.append({"target": "every workload: losses all 0 in every iomapdirty summary",
                "value": all_losses,
                "met": all_missing == 0 and all(v == 0 for v in all_losses.values())})
mv = ((W.get("many") or {}).get("variants") or {}).get("B-hist")
if mv:
    maps = mv.get("maps_last_run", {})
    full = mv.get("losses_total", 0)
    within = all((m.get("entries", -1) or 0) <= m["max_entries"] for m in maps.values())
    targets.append({"target": "many files: memory bounded (no map full, entries within bounds, "
                              "kernel memory fixed at load)",
                    "value": {"losses": full, "files_entries": (maps.get("files") or {}).get("entries"),
                              "paths_entries": (maps.get("paths") or {}).get("entries"),
                              "bpf_memlock": mv.get("bpf_memlock", {}).get("median"),
                              "maxrss_kb": (mv.get("observer") or {}).get("maxrss_kb", {}).get("max"),
                              "fit": fit},
                    "met": full == 0 and within and bool(maps)})
ov = result.get("overflow")
if ov:
    # LRU maps (bpf/sums.bpf.h): full, they evict the least recently used
    # file, counted, and lose nothing
    evicted = (ov.get("files_evicted") or 0) > 0 and (ov.get("paths_evicted") or 0) > 0
    targets.append({"target": "past the bound (more files than the maps hold): entries stop at "
                              "max_entries, the oldest files evicted and counted, nothing lost, "
                              "memory unchanged",
                    "value": {k: ov.get(k) for k in ("files_written", "files_entries",
                                                      "paths_entries", "files_evicted",
                                                      "paths_evicted", "losses", "maxrss_kb")},
                    "met": bool(evicted and not ov["losses"]
                                and ov["files_entries"] <= ov["files_max"]
                                and ov["paths_entries"] <= ov["paths_max"])})
rm = startup["ready_ms"]["median"]
targets.append({"target": "load and attach < 300 ms (median exec -> ready)",
                "value": rm, "met": rm is not None and rm < 300})
av = ((W.get("hot") or {}).get("variants") or {}).get("F-aon")
if av:
    ra = ((av.get("observer") or {}).get("ready_ms") or {}).get("median")
    targets.append({"target": "always-on: load and attach < 300 ms (median exec -> ready "
                              "over its hot runs)",
                    "value": ra, "met": ra is not None and ra < 300})
    mem_full = (hv.get("B-hist") or {}).get("bpf_memlock", {}).get("median")
    mem_aon = (av.get("bpf_memlock") or {}).get("median")
    if mem_full and mem_aon:
        targets.append({"target": "always-on: map memory a fraction of the full level's "
                                  "default (fixed at load)",
                        "value": {"always_on_mib": mem_aon / 1048576,
                                  "full_mib": mem_full / 1048576,
                                  "fraction": mem_aon / mem_full},
                        "met": mem_aon < mem_full})
result["targets"] = targets

with open(OUT_JSON, "w") as f:
    json.dump(result, f, indent=1, sort_keys=False)

# ------------------------------------------------------------- markdown
def pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def num(x, fmt="{:.0f}"):
    return "-" if x is None else fmt.format(x)


md = []
m = machine
md.append(f"Machine: {m.get('nproc')} CPUs ({m.get('cpu')}), "
          f"{(m.get('mem_total_kb') or 0) / 1048576:.1f} GiB, Linux {m.get('kernel')}; "
          f"busy state at start {m.get('start_state')}, at end {end.get('end_state')}; "
          f"iomapdirty {m.get('git')} (binary {m.get('tool_sha256')}); "
          f"{m.get('fio')}, {m.get('bpftrace')}; run took {end.get('seconds')} s"
          f"{' (--quick)' if m.get('quick') else ''}.")
md.append("")
md.append("### Throughput (median of paired ratios to fio alone, [min, max])")
md.append("")
md.append("| workload | fio alone | " + " | ".join(h for _, h in RATIO_COLUMNS) +
          " | hist CPU | hist peak RSS |")
md.append("|---|---|" + "---|" * len(RATIO_COLUMNS) + "---|---|")
for wl in WORKLOADS:
    v = (W.get(wl) or {}).get("variants")
    if not v:
        continue
    a = v.get("A-fio", {})
    cells = [f"{wl}", f"{num(a.get('iops', {}).get('median'))} IOPS"
             f" [{num(a.get('iops', {}).get('min'))}, {num(a.get('iops', {}).get('max'))}]"]
    for k, _ in RATIO_COLUMNS:
        r = (v.get(k) or {}).get("ratio")
        if k == "C-top" and not v.get(k):
            cells.append("not available yet")
        elif not r or r.get("median") is None:
            cells.append("-")
        else:
            cells.append(f"{pct(r['median'])} [{pct(r['min'])}, {pct(r['max'])}] (n={r['n']})")
    o = (v.get("B-hist") or {}).get("observer") or {}
    cells.append(f"{num(o.get('cpu_pct', {}).get('median'), '{:.1f}')}% of a CPU")
    cells.append(f"{num((o.get('maxrss_kb') or {}).get('max'))} KiB")
    md.append("| " + " | ".join(cells) + " |")
md.append("")
md.append("### Observers (median over the throughput runs)")
md.append("")
md.append("| workload | observer | CPU over the run | CPU after start-up | peak RSS | BPF map memory | losses |")
md.append("|---|---|---|---|---|---|---|")
for wl in WORKLOADS:
    v = (W.get(wl) or {}).get("variants")
    if not v:
        continue
    for k, label in (("B-hist", "iomapdirty hist"), ("C-top", "iomapdirty top"),
                     ("D-bpftrace", "bpftrace peer"), ("F-aon", "hist always-on"),
                     ("G-exporter", "exporter (always-on)")):
        e = v.get(k)
        if not e or not e.get("observer"):
            continue
        o = e["observer"]
        steady = (o.get("steady_cpu_pct") or {}).get("median")
        mem = (e.get("bpf_memlock") or {}).get("median")
        md.append(f"| {wl} | {label} | {num(o['cpu_s']['median'], '{:.2f}')} s "
                  f"({num(o['cpu_pct']['median'], '{:.1f}')}% of a CPU) | "
                  f"{num(steady, '{:.1f}') + '% of a CPU' if steady is not None else '-'} | "
                  f"{num(o['maxrss_kb']['max'])} KiB | "
                  f"{num(mem / 1048576, '{:.1f}') + ' MiB' if mem else '-'} | "
                  f"{e.get('losses_total', '-')} |")
md.append("")
md.append("### BPF CPU per I/O, as a fraction of the workload's own CPU per I/O")
md.append("")
md.append("BPF run time of every program of the observer (kernel BPF stats, stats runs) "
          "per write I/O, over fio's own CPU time (user + system) per write I/O when it "
          "runs alone (median of the throughput rounds); x floor: against the empty "
          "programs of the same run. Median [min, max] over the stats runs.")
md.append("")
md.append("| workload | fio CPU per I/O | observer | BPF ns per I/O | fraction of fio's CPU "
          "| x empty programs |")
md.append("|---|---|---|---|---|---|")
OBS_LABELS = [("full", "iomapdirty hist"), ("aon", "hist always-on"),
              ("peer", "bpftrace peer"), ("floor", "empty programs")]


def spread_md(sp, fmt):
    if not sp or sp.get("median") is None:
        return "-"
    return (f"{fmt.format(sp['median'])} [{fmt.format(sp['min'])}, "
            f"{fmt.format(sp['max'])}] (n={sp['n']})")


for wl in WORKLOADS:
    ov = ((W.get(wl) or {}).get("bpf_stats") or {}).get("overhead")
    if not ov:
        continue
    for k, label in OBS_LABELS:
        o = ov["observers"][k]
        md.append(f"| {wl} | {num(ov['workload_cpu_ns_per_io'])} ns | {label} | "
                  f"{spread_md(o['bpf_ns_per_io'], '{:.0f}')} | "
                  f"{spread_md(o['fraction_of_workload_cpu'], '{:.1%}')} | "
                  f"{spread_md(o['x_floor'], '{:.2f}x') if k != 'floor' else '-'} |")
md.append("")
md.append("### BPF run time per event (kernel BPF stats, median over stats runs)")
md.append("")
md.append("| workload | hook | events | iomapdirty ns | floor ns | ratio | always-on ns | ratio "
          "| bpftrace ns | ratio |")
md.append("|---|---|---|---|---|---|---|---|---|---|")
for wl in WORKLOADS:
    st = (W.get(wl) or {}).get("bpf_stats")
    if not st:
        continue
    for hook, h in st["hooks"].items():
        if not h["events"]:
            continue
        aon_ns = num(h.get('aon_ns')) if h.get('aon_ns') else "not attached"
        md.append(f"| {wl} | {hook} | {num(h['events'])} | {num(h['tool_ns'])} | "
                  f"{num(h['floor_ns'])} | {num(h['ratio_tool_floor'], '{:.1f}x')} | "
                  f"{aon_ns} | {num(h.get('ratio_aon_floor'), '{:.2f}x')} | "
                  f"{num(h['peer_ns'])} | {num(h['ratio_peer_floor'], '{:.1f}x')} |")
    md.append(f"| {wl} | all, event-weighted | | | | "
              f"{num(st['weighted_ratio_tool_floor'], '{:.2f}x')} | | "
              f"{num(st.get('weighted_ratio_aon_floor'), '{:.2f}x')} (all hooks: "
              f"{num(st.get('aon_over_floor_all_hooks'), '{:.2f}x')}) | | |")
md.append("")
if result["micro"]:
    mwls = [wl for wl in WORKLOADS if wl in result["micro"]]
    md.append("Building blocks, each its own program on the same events of one run of each "
              "workload (bench/micro; ns per event, and over the empty program of its hook):")
    md.append("")
    md.append("| hook | building block | " + " | ".join(mwls) + " |")
    md.append("|---|---|" + "---|" * len(mwls))
    names = list(dict.fromkeys(k for wl in mwls for k in result["micro"][wl]))
    for k in names:
        cells = []
        for wl in mwls:
            v = result["micro"][wl].get(k)
            if not v or v["ns"] is None or not v["events"]:
                cells.append("-")
                continue
            over = v["over_empty_ns"]
            cells.append(num(v["ns"]) + ("" if over is None else f" ({over:+.0f})"))
        hook = micro_hook(k)[0]
        md.append(f"| {hook} | {k} | " + " | ".join(cells) + " |")
    md.append("")
su = startup
md.append(f"Load and attach (exec -> \"ready\", {su['ready_ms']['n']} starts): median "
          f"{num(su['ready_ms']['median'])} ms [{num(su['ready_ms']['min'])}, "
          f"{num(su['ready_ms']['max'])}]; CPU per start+stop {num(su['cpu_ms_start_and_stop']['median'])} ms.")
if su.get("strace"):
    md.append("")
    md.append(f"Start-up under strace ({num(su['strace']['total_under_strace_ms'])} ms): " +
              "; ".join(f"{p['phase']} {p['ms']:.0f} ms" for p in su["strace"]["phases"]) + ".")
    md.append("Program load+verify: " + ", ".join(
        f"{k} {v:.1f} ms" for k, v in su["strace"]["program_loads_ms"].items()) + ".")
if fit:
    md.append("")
    md.append(f"Kernel memory of the maps (memlock): {fit['fixed_bytes'] / 1048576:.1f} MiB + "
              f"{fit['bytes_per_page_record']:.0f} B x --max-pages "
              f"(default 131072: {(fit['fixed_bytes'] + 131072 * fit['bytes_per_page_record']) / 1048576:.1f} MiB).")
md.append("")
md.append("### Targets")
md.append("")
md.append("| target | value | met |")
md.append("|---|---|---|")
for t in targets:
    val = t["value"]
    if isinstance(val, float):
        val = f"{val:.3f}" if val < 10 else f"{val:.0f}"
    elif isinstance(val, dict):
        val = json.dumps(val, default=lambda o: round(o, 3) if isinstance(o, float) else str(o))
        val = re.sub(r"(\d+\.\d{3})\d+", r"\1", val)
    met = "context" if t["met"] is None else "met" if t["met"] else "**missed**"
    md.append(f"| {t['target']} | {val} | {met} |")
text = "\n".join(md) + "\n"
with open(OUT_MD, "w") as f:
    f.write(text)
print(text)
