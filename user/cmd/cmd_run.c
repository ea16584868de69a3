// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * iomapdirty run [options] -- CMD [ARGS...]: attach, run the command (a
 * fio job, typically), and when it exits wait for the writeback of what it
 * wrote (syncfs of those filesystems; --no-sync: not), then print the
 * summary and histograms of exactly that run on stderr, so that CMD's own
 * output stays alone on stdout; exit with the command's own status.
 * "That run" is the writes of a cgroup v2 made for CMD (user/host/cgroup.h): CMD
 * and everything it starts; what other processes write meanwhile is shown
 * apart (--all: every process's writes, as one run).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/clock.h"
#include "host/caps.h"
#include "host/cgroup.h"
#include "cmd/commands.h"
#include "output/escape.h"
#include "lib/exitcodes.h"
#include "runs/fio_results.h"
#include "host/fsinfo.h"
#include "output/outfile.h"
#include "output/report.h"
#include "runs/run_meta.h"

#define RUN_MAX_GROUPS	256

/* --user: whom CMD runs as (uid, gid and supplementary groups). */
struct run_user {
	bool set;
	uid_t uid;
	gid_t gid;
	gid_t groups[RUN_MAX_GROUPS];
	int ngroups;
};

#define RUN_MAX_FS	256

struct run_args {
	struct session_opts so;
	const char *json_file;
	const char *fio_json;
	bool quiet;
	struct run_user user;
	bool no_sync;
	bool all;		/* --all: no cgroup for CMD, every writer counts */
	char **cmd;
};

/* CMD's cgroup: removed at the end of run, and at exit on every other path */
static struct run_cgroup run_cg;

enum { OPT_JSON = 0x400, OPT_FIO_JSON, OPT_NO_SYNC, OPT_ALL, OPT_QUIET = 'q',
	OPT_USER = 'u' };

static const struct argp_option run_options[] = {
	{ "json", OPT_JSON, "FILE", 0,
	  "Also write the summary as JSON to FILE (written whole, or not at all)", 0 },
	{ "fio-json", OPT_FIO_JSON, "FILE", 0,
	  "CMD is fio writing --output-format=json to FILE: keep its bandwidth "
	  "and IOPS in the summary and the JSON", 0 },
	{ "quiet", OPT_QUIET, NULL, 0, "No text summary (on stderr)", 0 },
	{ "user", OPT_USER, "USER", 0,
	  "Run CMD as USER (its uid, gid and supplementary groups), not as root", 0 },
	{ "no-sync", OPT_NO_SYNC, NULL, 0,
	  "Do not wait for the writeback of what CMD wrote; what is still dirty "
	  "is shown as such", 0 },
	{ "all", OPT_ALL, NULL, 0,
	  "Count every process's writes, not only those of CMD's own cgroup "
	  "(CMD and what it starts)", 0 },
	{},
};

static int user_resolve(const char *name, struct run_user *u)
{
	struct passwd *pw = getpwnam(name);

	if (!pw)
		return -1;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->ngroups = RUN_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, pw->pw_gid, u->groups, &u->ngroups) < 0)
		return -1;
	u->set = true;
	return 0;
}

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_args *a = state->input;

	switch (key) {
	case OPT_JSON:
		a->json_file = arg;
		break;
	case OPT_FIO_JSON:
		a->fio_json = arg;
		break;
	case OPT_QUIET:
		a->quiet = true;
		break;
	case OPT_USER:
		if (user_resolve(arg, &a->user))
			argp_error(state, "--user: no such user '%s' (or more than %d "
				   "groups)", arg, RUN_MAX_GROUPS);
		break;
	case OPT_NO_SYNC:
		a->no_sync = true;
		break;
	case OPT_ALL:
		a->all = true;
		break;
	case ARGP_KEY_ARGS:
		a->cmd = state->argv + state->next;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "no command given: iomapdirty run [OPTIONS] -- CMD [ARGS...]");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Credentials of --user, then no way back: groups first, uid last. */
static int drop_to_user(const struct run_user *u)
{
	if (!u->set)
		return 0;
	if (setgroups(u->ngroups, u->groups) || setgid(u->gid) || setuid(u->uid))
		return -1;
	return 0;
}

/*
 * The child: default signal handling, --user's credentials, death with
 * the parent, then exec; errno goes back through the close-on-exec pipe.
 * SIGINT and SIGTERM stay blocked until the handlers are reset, so one
 * sent meanwhile is delivered after, to the default action, and not lost.
 */
static void exec_child(char **cmd, const struct run_user *u, pid_t parent,
		       const sigset_t *mask, int err_fd)
{
	int e;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	/*
	 * --user: a session of its own, with no controlling terminal, so the
	 * user's command cannot push input into root's (TIOCSTI needs the
	 * terminal to be the caller's controlling one) nor take it over.
	 */
	if (u->set && setsid() < 0)
		goto fail;
	/* into CMD's cgroup before exec: none of CMD's writes precede it */
	if ((run_cg.made && run_cgroup_enter(&run_cg)) || drop_to_user(u))
		goto fail;
	/* after the uid change, which clears it; CMD never outlives us */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(EXIT_NOEXEC);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(cmd[0], cmd);
fail:
	e = errno;
	if (write(err_fd, &e, sizeof(e)) != sizeof(e))
		_exit(EXIT_NOEXEC);
	_exit(EXIT_NOEXEC);
}

static void on_child(int sig)
{
}

/*
 * Waits for the child with SIGINT, SIGTERM and SIGCHLD blocked except in
 * sigsuspend(), so no signal slips in between a check and the wait. A
 * first SIGINT or SIGTERM sent by another process is passed on; one from
 * the terminal already reached the child (same process group), except
 * under --user (own_session: a session of its own), where it is passed on. A second
 * one kills CMD: its summary follows.
 */
static int wait_child(pid_t pid, int *status, const sigset_t *unblocked,
		      bool own_session)
{
	int handled = 0;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		for (; handled < session_signals; handled++) {
			if (handled == 0 && (session_signal_pid || own_session)) {
				kill(pid, session_signal);
			} else if (handled > 0) {
				fprintf(stderr, "iomapdirty: signalled again: "
					"killing the command\n");
				kill(pid, SIGKILL);
			}
		}
		sigsuspend(unblocked);
	}
}

/*
 * The output file is checked before CMD starts (a typo must not lose a
 * long benchmark's results, and a device or a link is refused now, not
 * after the run): outfile.c's one routine for every file written.
 */
static int json_out_open(struct out_file *o, const char *path)
{
	char err[1024], safe[1024];

	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	if (!path)
		return 0;
	if (out_file_open(o, path, err, sizeof(err)))
		return 0;
	text_sanitize(err, safe, sizeof(safe));
	fprintf(stderr, "iomapdirty: --json %s\n", safe);
	return -1;
}

/* The run file, written whole: readers never see a partial file. */
static int write_json_file(struct out_file *o, struct session *s, const struct snapshot *d,
			   const struct run_meta *meta)
{
	struct report_ctx rc = s->report;
	struct file_lookup files = engine_file_lookup(s->engine);
	char err[1024], safe[1024];

	rc.files = &files;	/* the run file names its files */
	rc.extra_json = run_meta_write_json;
	rc.extra_arg = meta;
	report_json(o->f, "run", 0, d, &rc);
	if (out_file_commit(o, err, sizeof(err))) {
		text_sanitize(err, safe, sizeof(safe));
		fprintf(stderr, "iomapdirty: %s\n", safe);
		return -1;
	}
	return 0;
}

/*
 * syncfs of the filesystem on dev: its mount point (from mountinfo) is
 * opened as a directory, not through a symlink, and must be that device.
 */
/*
 * A btrfs subvolume no mount shows by itself (an anonymous device, major
 * 0, that no mount has): syncfs of every btrfs mounted, one of which holds
 * it (syncfs writes a whole btrfs back, every subvolume). 0 if one was
 * synced.
 */
static int sync_btrfs_subvolume(void)
{
	struct fsinfo fi;
	int fd, synced = 0;

	for (int k = 0; fsinfo_btrfs_mount(k, &fi); k++) {
		fd = fsinfo_open(fi.mount, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (!syncfs(fd))
			synced++;
		close(fd);
	}
	if (!synced)
		errno = ENOENT;
	return synced ? 0 : -1;
}

static int sync_dev(uint32_t dev)
{
	struct fsinfo fi = {};
	struct stat st;
	int fd, ret;

	if (!fsinfo_lookup_dev(dev, &fi)) {
		if (!kdev_major(dev))
			return sync_btrfs_subvolume();
		errno = ENOENT;
		return -1;
	}
	fd = fsinfo_open(fi.mount, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || kdev_make(major(st.st_dev), minor(st.st_dev)) != dev) {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	ret = syncfs(fd);
	close(fd);
	return ret;
}

/* Pages written since attach that writeback has not taken, summed. */
static int unwritten_total(struct session *s, struct unwritten_entry *u,
			   struct run_writeback *w)
{
	int n = engine_unwritten(s->engine, u, RUN_MAX_FS);

	w->unwritten_pages = 0;
	w->unwritten_app_bytes = 0;
	if (n < 0) {
		fprintf(stderr, "iomapdirty: counting the pages still dirty failed: %s\n",
			strerror(-n));
		return n;
	}
	for (int i = 0; i < n; i++) {
		w->unwritten_pages += u[i].u.pages;
		w->unwritten_app_bytes += u[i].u.app_bytes;
	}
	return n;
}

/*
 * The writeback of what the command wrote: syncfs of every filesystem
 * with pages it wrote still dirty (and of --mount/--dev's), so that the
 * summary counts them; then what is still dirty, which is what the
 * summary cannot count.
 */
static void writeback(struct session *s, bool wait, struct run_writeback *w,
		      sig_atomic_t signals_seen)
{
	static struct unwritten_entry u[RUN_MAX_FS];
	double t0 = mono_seconds();
	int n;

	w->synced = wait;
	if (wait) {
		n = unwritten_total(s, u, w);
		for (int i = -1; i < n; i++) {
			uint32_t dev = i < 0 ? s->fs.dev : u[i].dev;

			if (!dev || (i >= 0 && dev == s->fs.dev))
				continue;
			if (session_signals != signals_seen)
				break;	/* a SIGINT/SIGTERM now: stop waiting */
			if (sync_dev(dev)) {
				fprintf(stderr, "iomapdirty: syncfs of %u:%u failed: %s\n",
					kdev_major(dev), kdev_minor(dev), strerror(errno));
				w->sync_failures++;
			} else {
				w->filesystems_synced++;
			}
		}
		w->sync_seconds = mono_seconds() - t0;
	}
	unwritten_total(s, u, w);
}

/* Whose writes were counted, and what the others wrote meanwhile. */
static void run_scope_gather(struct session *s, struct run_meta *m)
{
	struct other_total o;

	m->scoped = run_cg.made;
	if (!m->scoped)
		return;
	m->cgroup = run_cg.rel;
	m->cgroup_id = run_cg.id;
	engine_other_writes(s->engine, &o);
	m->other_app_bytes = o.app_bytes;
	m->other_write_calls = o.write_calls;
	m->other_files = o.files;
}

static int child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUNTIME;
}

/* Starts CMD; its pid, or -1 with the reason said and *ret set. */
static pid_t start_child(const struct run_args *a, int *ret)
{
	struct sigaction sa = { .sa_handler = on_child };
	sigset_t block, old;
	int pipefd[2], child_errno = 0;
	ssize_t n;
	pid_t pid, parent = getpid();

	*ret = EXIT_RUNTIME;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);	/* wakes sigsuspend() in wait_child() */
	if (pipe2(pipefd, O_CLOEXEC)) {
		perror("iomapdirty: pipe");
		return -1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exec_child(a->cmd, &a->user, parent, &old, pipefd[1]);
	close(pipefd[1]);
	if (pid < 0) {
		perror("iomapdirty: fork");
		close(pipefd[0]);
		return -1;
	}
	do
		n = read(pipefd[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(child_errno) && child_errno) {
		waitpid(pid, NULL, 0);
		fprintf(stderr, "iomapdirty: cannot run '%s'%s: %s\n", a->cmd[0],
			a->user.set ? " as --user" : "", strerror(child_errno));
		*ret = EXIT_NOEXEC;
		return -1;
	}
	return pid;
}

static int run_and_measure(struct session *s, void *args)
{
	const struct run_args *a = args;
	struct out_file jo;
	struct run_meta meta;
	struct run_writeback wb = {};
	double t0;
	struct snapshot d;
	sigset_t unblocked;
	int status = 0, ret, waited;
	sig_atomic_t signals_seen;
	time_t started = time(NULL);
	char err[512];
	pid_t pid;

	/* before CMD starts: a typo must not lose a long run's results */
	if (json_out_open(&jo, a->json_file))
		return EXIT_USAGE;
	sigprocmask(SIG_SETMASK, NULL, &unblocked);
	if (session_exiting) {	/* signalled while attaching: CMD never starts */
		out_file_abort(&jo);
		return 128 + session_signal;
	}
	t0 = mono_seconds();
	pid = start_child(a, &ret);
	/*
	 * CMD has started with every capability; this process keeps what it
	 * still needs: CAP_KILL to forward signals to a CMD that runs as
	 * another user (--user, or a setuid CMD), and for --json FILE the
	 * rights to rename the result into a directory root may not write
	 * without them (CAP_DAC_OVERRIDE; CAP_FOWNER for a sticky one); and
	 * CAP_DAC_OVERRIDE to remove CMD's cgroup where its parent is not
	 * writable even by its owner (a cgroup v2 root is r-x).
	 */
	if (pid >= 0)
		session_drop_caps(CAPS_AFTER_ATTACH | CAP_MASK(CAP_KILL) |
				  (jo.dirfd >= 0 ? CAP_MASK(CAP_DAC_OVERRIDE) |
					     CAP_MASK(CAP_FOWNER) : 0) |
				  (run_cg.made ? CAP_MASK(CAP_DAC_OVERRIDE) : 0));
	waited = pid >= 0 ? wait_child(pid, &status, &unblocked, a->user.set) : -1;
	/* CMD is gone: a SIGINT or SIGTERM from now on is ours again */
	signals_seen = session_signals;
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	if (waited) {
		if (pid >= 0) {
			perror("iomapdirty: waitpid");
			ret = EXIT_RUNTIME;
		}
		out_file_abort(&jo);
		return ret;
	}
	ret = child_exit_code(status);
	wb.command_seconds = mono_seconds() - t0;
	writeback(s, !a->no_sync, &wb, signals_seen);
	if (session_signals != signals_seen) {
		/* signalled during the wait: the summary so far, and the signal's status */
		fprintf(stderr, "iomapdirty: signal %d after the command exited: the "
			"wait for writeback was cut short\n", session_signal);
		ret = 128 + session_signal;
	}
	run_meta_gather(&meta);
	run_scope_gather(s, &meta);
	if (a->fio_json && fio_summary_load(a->fio_json, started, &meta.fio, err,
					    sizeof(err))) {
		char safe[512];

		text_sanitize(err, safe, sizeof(safe));
		fprintf(stderr, "iomapdirty: --fio-json %s\n", safe);
		ret = ret ? ret : EXIT_RUNTIME;
	}

	if (engine_summary(s->engine, &d)) {
		fprintf(stderr, "iomapdirty: reading the counters failed\n");
		out_file_abort(&jo);
		return EXIT_RUNTIME;
	}
	s->report.run = &wb;	/* the summary says what was waited for */
	if (!a->quiet) {
		report_header_text(stderr, &s->report);
		report_text(stderr, "run summary", &d, &s->report);
		run_scope_print(stderr, &meta);
		fio_summary_print(stderr, &meta.fio);
		fprintf(stderr, "\ncommand exited with status %d\n", child_exit_code(status));
		if (report_flush(stderr))
			ret = ret ? ret : EXIT_RUNTIME;
	}
	if (jo.f && write_json_file(&jo, s, &d, &meta))
		ret = ret ? ret : EXIT_RUNTIME;
	s->report.run = NULL;
	out_file_abort(&jo);
	snapshot_free(&d);
	run_cgroup_remove(&run_cg);
	return ret;
}

static void run_cgroup_at_exit(void)
{
	run_cgroup_remove(&run_cg);
}

/*
 * Before attach (the programs are loaded with the cgroup's id): CMD's
 * cgroup, a child of ours in the v2 hierarchy. Without one, exactness is
 * refused rather than faked: --all says that every writer is counted.
 */
static int run_prepare(void *args)
{
	struct run_args *a = args;
	char err[512];
	int ret;

	if (a->so.cgroup_id) {
		fprintf(stderr, "iomapdirty: run: %s is not taken: CMD gets its own "
			"cgroup (--all: every process's writes)\n", a->so.cgroup_option);
		return EXIT_USAGE;
	}
	if (a->all)
		return EXIT_OK;
	/* before CMD's cgroup is made: where the kernel says no, the reason why */
	if (facts_cgroup_ids_live(err, sizeof(err)) == 0) {
		fprintf(stderr, "iomapdirty: run cannot tell CMD's writes from other "
			"processes': %s; --all counts every process's\n", err);
		return EXIT_UNSUPPORTED;
	}
	if (!cgroup_ns_is_host()) {
		fprintf(stderr, "iomapdirty: run: %s, or run --all\n", cgroup_ns_refusal);
		return EXIT_UNSUPPORTED;
	}
	ret = run_cgroup_make(&run_cg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iomapdirty: %s\n", err);
		return ret == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_RUNTIME;
	}
	atexit(run_cgroup_at_exit);
	a->so.cgroup_id = run_cg.id;
	a->so.cgroup_level = run_cg.level;
	a->so.count_others = true;
	return EXIT_OK;
}

static struct run_args run_args = { .so.mode = MODE_AUTO };

static const struct argp run_argp = { .options = run_options, .parser = run_parse };

const struct command run_command = {
	.name = "run",
	.help = "measure while a command (e.g. fio) runs",
	.doc = "Measure write amplification while CMD runs; exit with its status.",
	.args_doc = "-- CMD [ARGS...]",
	.argp = &run_argp,
	.argp_flags = ARGP_IN_ORDER,
	.args = &run_args,
	.session = &run_args.so,
	.prepare = run_prepare,
	.run = run_and_measure,
	.drops_caps_itself = true,
};
