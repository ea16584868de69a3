// SPDX-License-Identifier: GPL-2.0
/* Common start-up of the observing subcommands: see session.h. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include "lib/exitcodes.h"
#include "output/report.h"
#include "output/safetext.h"
#include "host/caps.h"
#include "host/cgroup.h"
#include "host/names.h"
#include "live/session.h"

volatile sig_atomic_t session_exiting;
volatile sig_atomic_t session_signal;
volatile sig_atomic_t session_signal_pid;
volatile sig_atomic_t session_signals;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	session_exiting = 1;
	session_signals++;
	session_signal = sig;
	/* 0 when the terminal sent it (to the whole process group) */
	session_signal_pid = info ? info->si_pid : 0;
}

void session_catch_signal(int sig)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void session_install_signals(void)
{
	session_catch_signal(SIGINT);
	session_catch_signal(SIGTERM);
}

void session_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	/* a signal interrupts nanosleep; the handler has set the flag */
	while (!session_exiting && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

int session_check_privileges(char *err, size_t len)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (geteuid() == 0)
		return 0;
	if (syscall(SYS_capget, &hdr, data) == 0 &&
	    (has_cap(data, 21 /* CAP_SYS_ADMIN */) ||
	     (has_cap(data, 39 /* CAP_BPF */) && has_cap(data, 38 /* CAP_PERFMON */))))
		return 0;
	snprintf(err, len, "loading BPF programs needs root, or CAP_BPF with "
		 "CAP_PERFMON (or CAP_SYS_ADMIN)");
	return -EPERM;
}

/* /proc/self/status's "Seccomp:" mode: 2 is a filter; -1 unknown. */
static int seccomp_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	int mode = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	if (f)
		fclose(f);
	return mode;
}

/*
 * bpf(2) itself refused before any program: a container runtime's
 * default seccomp profile answers EPERM for bpf without CAP_SYS_ADMIN
 * (podman's, Docker's), a profile that does not list it ENOSYS. The
 * kernel answers an unknown command with EINVAL, so under a filter an
 * EPERM or ENOSYS here is the filter's: said so, not a bare "loading
 * failed: Operation not permitted" later.
 */
static int check_bpf_syscall(char *err, size_t len)
{
	int e;

	if (syscall(SYS_bpf, 0x7fffffff /* no such command */, NULL, 0) >= 0)
		return 0;
	e = errno;
	if ((e != EPERM && e != ENOSYS) || seccomp_mode() != 2)
		return 0;
	snprintf(err, len, "the bpf(2) system call is refused (%s) by this process's "
		 "seccomp filter (Seccomp: 2 in /proc/self/status): a container runtime's "
		 "default profile allows bpf only with CAP_SYS_ADMIN; run the container "
		 "with the profile deploy/seccomp/iomapdirty.json (docs/fleet.md)",
		 strerror(e));
	return -EPERM;
}

static void print_plan_line(const struct plan *p)
{
	fprintf(stderr, "iomapdirty: kernel family %c (%s)\n", p->family, p->family_desc);
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct hook_plan *h = &p->hooks[i];

		if (!h->chosen)
			continue;
		fprintf(stderr, "iomapdirty: %-17s %-10s %s\n", hook_names[i],
			plan_mech_detail(h), h->target);
	}
}

/*
 * What needs the writers' cgroup ids is refused on a kernel that cannot
 * give them, rather than counted under "no cgroup" (plan.cgroup_ids).
 */
static int check_cgroup_ids(const struct session_opts *o, const struct plan *p)
{
	if (o->cgroup_id && !cgroup_ns_is_host()) {
		fprintf(stderr, "iomapdirty: %s: %s\n", o->cgroup_option ?
			o->cgroup_option : "--cgroup", cgroup_ns_refusal);
		return EXIT_UNSUPPORTED;
	}
	if (p->cgroup_ids > 0 || (!o->cgroup_id && !o->cgroup_sums))
		return EXIT_OK;
	fprintf(stderr, "iomapdirty: %s needs the writers' cgroups, which this kernel "
		"cannot give: %s\n", o->cgroup_sums ? "--collector.cgroup" :
		o->count_others ? "run (without --all)" : "--cgroup", p->cgroup_why);
	return EXIT_UNSUPPORTED;
}

/*
 * The lock lives in a directory only root can create entries in: /run
 * is root's, and /run/iomapdirty is made 0700 by us. /run/lock is
 * world-writable, so a file there could be planted by any user (a symlink
 * to a file root would then truncate, or a file root cannot lock).
 */
#define LOCK_DIR	"/run/iomapdirty"
#define LOCK_PATH	LOCK_DIR "/lock"

/* The directory: ours (owner and no write bit for others), never a link. */
static int lock_dir_ok(void)
{
	struct stat st;

	if (mkdir(LOCK_DIR, 0700) && errno != EEXIST)
		return -1;
	if (lstat(LOCK_DIR, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* The holder's pid, as a number: the file's bytes never reach the terminal. */
static long lock_holder(int fd)
{
	char buf[32];
	long pid = 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9' && pid < 1 << 22; i++)
		pid = pid * 10 + (buf[i] - '0');
	return pid;
}

/*
 * One instance at a time unless --shared: a second set of probes doubles
 * the cost on the writes being measured and skews a benchmark.
 */
static int take_lock(struct session *s, bool shared)
{
	char buf[32];
	struct stat st;
	long pid;
	int fd, n;

	if (shared)
		return EXIT_OK;
	if (lock_dir_ok()) {
		/* not root (CAP_BPF only), or LOCK_DIR is not ours */
		fprintf(stderr, "iomapdirty: %s unusable (%s): running without the "
			"one-instance lock\n", LOCK_DIR, strerror(errno));
		return EXIT_OK;
	}
	fd = open(LOCK_PATH, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		fprintf(stderr, "iomapdirty: %s unusable: running without the "
			"one-instance lock\n", LOCK_PATH);
		if (fd >= 0)
			close(fd);
		return EXIT_OK;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		pid = lock_holder(fd);
		if (pid)
			snprintf(buf, sizeof(buf), "%ld", pid);
		fprintf(stderr, "iomapdirty: another instance is running (pid %s); its "
			"probes would add to this one's cost. Stop it, or pass --shared\n",
			pid ? buf : "unknown");
		close(fd);
		return EXIT_BUSY;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n)
		fprintf(stderr, "iomapdirty: cannot write %s\n", LOCK_PATH);
	s->lock_fd = fd;
	return EXIT_OK;
}

/*
 * A btrfs with blocks smaller than the page: which blocks of a folio are
 * dirty is in btrfs's own bitmap, which no hook reads (the kind `btrfs
 * subpage`, include/fs_kinds.h): refused, with why.
 */
static bool btrfs_subpage(const struct fsinfo *fs)
{
	long page = sysconf(_SC_PAGESIZE);
	char safe[512];

	if (!fs->btrfs || !fs->block_bytes || page <= 0 || fs->block_bytes >= (uint64_t)page)
		return false;
	text_sanitize(fs->mount, safe, sizeof(safe));
	fprintf(stderr, "iomapdirty: %s is a btrfs with %llu-byte blocks, smaller than the "
		"%ld-byte page: which blocks of a folio are dirty is in btrfs's own subpage "
		"bitmap, which the btrfs backend does not read; not counted\n", safe,
		(unsigned long long)fs->block_bytes, page);
	return true;
}

int session_start(struct session *s, const struct session_opts *o)
{
	struct engine_opts eo = {
		.tgid = o->tgid, .comm = o->comm, .max_pages = o->max_pages,
		.verify = o->verify,
		.simulate_clean_every = o->simulate_clean_every,
		.simulate_unseen_bios = o->simulate_unseen_bios,
		.cgroup_id = o->cgroup_id, .cgroup_level = o->cgroup_level,
		.count_others = o->count_others, .cgroup_sums = o->cgroup_sums,
	};
	char err[512], bh_err[512] = "";
	struct fsinfo btrfs_fs;
	int ret;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	if (session_check_privileges(err, sizeof(err)) ||
	    check_bpf_syscall(err, sizeof(err))) {
		fprintf(stderr, "iomapdirty: %s\n", err);
		return EXIT_PRIVILEGE;
	}
	if (o->accounting == ACCOUNTING_ALWAYS_ON &&
	    (o->tgid || o->comm || o->cgroup_id || o->verify || o->max_pages)) {
		/* whose data a folio holds, and which blocks writes dirtied, need
		 * the page records the always-on level does not keep */
		fprintf(stderr, "iomapdirty: %s needs --accounting full (the always-on "
			"level keeps no per-page records)\n",
			o->verify ? "verify" : o->tgid ? "--pid" : o->comm ? "--comm" :
			o->cgroup_id ? "run (without --all)" : "--max-pages");
		return EXIT_USAGE;
	}
	ret = take_lock(s, o->shared);
	if (ret)
		return ret;
	if (o->mount || o->dev) {
		ret = o->mount ? fsinfo_from_path(o->mount, &s->fs, err, sizeof(err)) :
				 fsinfo_from_dev(o->dev, &s->fs, err, sizeof(err));
		/* ext4, btrfs: counted where the plan attaches their backend */
		if (ret == -EOPNOTSUPP && (s->fs.buffer_heads || s->fs.btrfs)) {
			snprintf(bh_err, sizeof(bh_err), "%s", err);
			ret = 0;
		}
		if (ret) {
			fprintf(stderr, "iomapdirty: %s\n", err);
			return ret == -EINVAL ? EXIT_USAGE : EXIT_BAD_TARGET;
		}
		if (btrfs_subpage(&s->fs))
			return EXIT_BAD_TARGET;
		eo.dev = s->fs.dev;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "iomapdirty: this kernel has no BTF "
			"(/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF=y is needed)\n");
		return EXIT_UNSUPPORTED;
	}
	facts_gather(&s->facts, TRIALS_LAZY);
	ret = plan_build(&s->facts, o->mode, &s->plan);
	facts_release(&s->facts);
	plan_set_accounting(&s->plan, o->accounting);
	if (ret) {
		fprintf(stderr, "iomapdirty: %s\n", s->plan.error);
		fprintf(stderr, "iomapdirty: see `iomapdirty probes` for the full plan\n");
		return EXIT_UNSUPPORTED;
	}
	/*
	 * A session on one filesystem that is not ext4 has no use for the
	 * ext4 backend: its five programs (some 100,000 verified
	 * instructions) are not loaded.
	 */
	if ((o->mount || o->dev) && !s->fs.buffer_heads)
		plan_drop_bh_backend(&s->plan, "the session watches one filesystem, "
				     "not ext4 (--mount, --dev)");
	else if (o->verify && !o->mount && !o->dev)
		/*
		 * An ext4 folio dirtied before attach has no history of its
		 * buffers to check its blocks against: on a host whose root is
		 * ext4 every verdict would stay INCOMPLETE. Named, it is checked.
		 */
		plan_drop_bh_backend(&s->plan, "verify checks ext4 only where it is "
				     "named (--mount, --dev): its folios dirtied before "
				     "attach cannot be checked");
	if ((o->mount || o->dev) && !s->fs.btrfs)
		plan_drop_btrfs_backend(&s->plan, "the session watches one filesystem, "
					"not btrfs (--mount, --dev)");
	else if (o->verify)
		plan_drop_btrfs_backend(&s->plan, "verify does not check btrfs: its "
					"blocks are not matched to the block layer's yet");
	else if (!o->mount && !o->dev && !fsinfo_btrfs_mount(0, &btrfs_fs))
		/* its write hooks run at every syscall's entry and exit */
		plan_drop_btrfs_backend(&s->plan, "no btrfs is mounted as the session "
					"starts (one mounted later is named NOT WATCHED)");
	if (bh_err[0] && s->fs.buffer_heads && !plan_bh_backend(&s->plan)) {
		fprintf(stderr, "iomapdirty: %s; ext4 is counted by the buffer-head "
			"backend, which this plan does not attach (see `iomapdirty "
			"probes` with the same --mode and --accounting)\n", bh_err);
		return EXIT_BAD_TARGET;
	}
	if (bh_err[0] && s->fs.btrfs && !plan_btrfs_backend(&s->plan)) {
		fprintf(stderr, "iomapdirty: %s; btrfs is counted by the btrfs backend, "
			"which this %s does not attach (see `iomapdirty probes` with the "
			"same --mode and --accounting)\n", bh_err,
			o->verify ? "verify" : "plan");
		return EXIT_BAD_TARGET;
	}
	ret = check_cgroup_ids(o, &s->plan);
	if (ret)
		return ret;
	if (!o->quiet)
		print_plan_line(&s->plan);
	ret = engine_open(&s->engine, &s->plan, &eo, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iomapdirty: %s\n", err);
		/* EACCES from a load is the verifier refusing a program, not a
		 * missing capability (checked above): a runtime failure */
		if (ret == -E2BIG)	/* --max-pages more than the host has */
			return EXIT_USAGE;
		return ret == -EPERM ? EXIT_PRIVILEGE : EXIT_RUNTIME;
	}
	s->report = (struct report_ctx){
		.plan = &s->plan,
		.target_dev = s->fs.dev,
		.max_pages = engine_max_pages(s->engine),
		.host = &host_names,
	};
	return EXIT_OK;
}

void session_drop_caps(uint64_t keep)
{
	char err[256];

	if (caps_drop_except(keep, err, sizeof(err)))
		fprintf(stderr, "iomapdirty: warning: keeping all capabilities: %s\n", err);
}

void session_stop(struct session *s)
{
	engine_close(s->engine);
	s->engine = NULL;
	if (s->lock_fd >= 0)
		close(s->lock_fd);	/* releases the flock */
	s->lock_fd = -1;
}
