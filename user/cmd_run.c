// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * iomapdirty run [options] -- CMD [ARGS...]: attach, run the command (a
 * fio job, typically), and when it exits print the summary and histograms
 * of exactly that run; exit with the command's own status.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "escape.h"
#include "exitcodes.h"
#include "report.h"
#include "run_meta.h"

struct run_args {
	struct session_opts so;
	const char *json_file;
	const char *fio_json;
	bool quiet;
	char **cmd;
};

enum { OPT_JSON = 0x400, OPT_FIO_JSON, OPT_QUIET = 'q' };

static const struct argp_option run_options[] = {
	{ "json", OPT_JSON, "FILE", 0,
	  "Also write the summary as JSON to FILE (written whole, or not at all)", 0 },
	{ "fio-json", OPT_FIO_JSON, "FILE", 0,
	  "CMD is fio writing --output-format=json to FILE: keep its bandwidth "
	  "and IOPS in the summary and the JSON", 0 },
	{ "quiet", OPT_QUIET, NULL, 0, "No text summary on stdout", 0 },
	{},
};

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

/* The child: exec, or report errno through the close-on-exec pipe. */
static void exec_child(char **cmd, int err_fd)
{
	int e;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execvp(cmd[0], cmd);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) != sizeof(e))
		_exit(EXIT_NOEXEC);
	_exit(EXIT_NOEXEC);
}

/*
 * Waits for the child. A SIGINT or SIGTERM sent to iomapdirty by another
 * process is passed on; one from the terminal already reached the child
 * (same process group), so it is not sent twice.
 */
static int wait_child(pid_t pid, int *status)
{
	bool forwarded = false;

	for (;;) {
		if (waitpid(pid, status, 0) == pid)
			return 0;
		if (errno != EINTR)
			return -1;
		if (session_exiting && !forwarded && session_signal_pid) {
			kill(pid, session_signal);
			forwarded = true;
		}
	}
}

/* Writes FILE.tmp then renames it: readers never see a partial file. */
static int write_json_file(const char *path, struct session *s, const struct snapshot *d,
			   const struct run_meta *meta)
{
	struct report_ctx rc = s->report;
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, getpid());
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "iomapdirty: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	rc.paths = &s->engine;	/* the run file names its files */
	rc.extra_json = run_meta_write_json;
	rc.extra_arg = meta;
	report_json(f, "run", 0, d, &rc);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "iomapdirty: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUNTIME;
}

static int run_and_measure(struct session *s, void *args)
{
	const struct run_args *a = args;
	struct run_meta meta;
	struct snapshot d;
	int pipefd[2], status = 0, child_errno = 0, ret;
	time_t started = time(NULL);
	char err[512];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		perror("iomapdirty: pipe");
		return EXIT_RUNTIME;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("iomapdirty: fork");
		return EXIT_RUNTIME;
	}
	if (pid == 0)
		exec_child(a->cmd, pipefd[1]);
	close(pipefd[1]);
	if (read(pipefd[0], &child_errno, sizeof(child_errno)) != sizeof(child_errno))
		child_errno = 0;	/* EOF: exec succeeded */
	close(pipefd[0]);
	if (wait_child(pid, &status)) {
		perror("iomapdirty: waitpid");
		return EXIT_RUNTIME;
	}
	if (child_errno) {
		fprintf(stderr, "iomapdirty: cannot run '%s': %s\n", a->cmd[0],
			strerror(child_errno));
		return EXIT_NOEXEC;
	}
	ret = child_exit_code(status);
	run_meta_gather(&meta);
	if (a->fio_json && fio_summary_load(a->fio_json, started, &meta.fio, err,
					    sizeof(err))) {
		char safe[512];

		text_sanitize(err, safe, sizeof(safe));
		fprintf(stderr, "iomapdirty: --fio-json %s\n", safe);
		ret = ret ? ret : EXIT_RUNTIME;
	}

	if (engine_summary(&s->engine, &d)) {
		fprintf(stderr, "iomapdirty: reading the counters failed\n");
		return EXIT_RUNTIME;
	}
	if (!a->quiet) {
		report_header_text(stdout, &s->report);
		report_text(stdout, "run summary", &d, &s->report);
		fio_summary_print(stdout, &meta.fio);
		printf("\ncommand exited with status %d\n", child_exit_code(status));
	}
	if (a->json_file && write_json_file(a->json_file, s, &d, &meta))
		ret = ret ? ret : EXIT_RUNTIME;
	snapshot_free(&d);
	return ret;
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
	.run = run_and_measure,
};
