// SPDX-License-Identifier: GPL-2.0
/*
 * benchutil: the small measuring tools bench/run.sh needs.
 *
 *   benchutil run [-e ERRFILE] [-m PATTERN] [-r READYFILE] [-p PIDFILE]
 *                 [-o JSONFILE] -- CMD ARGS...
 *       Runs CMD with its stderr copied to ERRFILE. When a line of that
 *       stderr contains PATTERN, writes "MS PID" to READYFILE (MS: time from
 *       just before exec to that line). SIGINT and SIGTERM are passed on
 *       to CMD. When CMD ends, writes to JSONFILE its exit status, wall
 *       time, user and system CPU and peak RSS (wait4's rusage: the
 *       child alone, VmHWM at its exit). Dies with its parent (and CMD with
 *       it), so no probe is left behind by an interrupted benchmark.
 *
 *   benchutil pidbpf PID [--count]
 *       One JSON object: the BPF programs and maps PID holds, found through
 *       /proc/PID/fdinfo: programs with run_cnt and run_time_ns (kernel BPF
 *       statistics), maps with max_entries and memlock (the kernel memory
 *       charged for the map); --count adds the entries in use of each
 *       hash map.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

static volatile pid_t child;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void write_file(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	rename(tmp, path);
}

static int cmd_run(int argc, char **argv)
{
	const char *errfile = NULL, *pattern = NULL, *readyfile = NULL;
	const char *pidfile = NULL, *jsonfile = NULL;
	struct sigaction sa = { .sa_handler = forward };
	char buf[8192], line[4096], text[1024];
	double t0, t_ready = -1;
	FILE *err = NULL;
	struct rusage ru;
	size_t len = 0;
	int opt, fds[2], status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+e:m:r:p:o:")) != -1) {
		switch (opt) {
		case 'e': errfile = optarg; break;
		case 'm': pattern = optarg; break;
		case 'r': readyfile = optarg; break;
		case 'p': pidfile = optarg; break;
		case 'o': jsonfile = optarg; break;
		default: return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "benchutil run: no command\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 1;	/* the parent is already gone */
	if (pipe2(fds, O_CLOEXEC))
		return 1;
	if (errfile && !(err = fopen(errfile, "w")))
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	t0 = now_s();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(fds[1], 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "benchutil run: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	child = pid;
	close(fds[1]);
	if (pidfile) {
		snprintf(text, sizeof(text), "%d\n", pid);
		write_file(pidfile, text);
	}
	for (;;) {
		ssize_t n = read(fds[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (err) {
			fwrite(buf, 1, n, err);
			fflush(err);
		}
		for (ssize_t i = 0; i < n && t_ready < 0; i++) {
			if (buf[i] != '\n' && len < sizeof(line) - 1) {
				line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (pattern && strstr(line, pattern)) {
				t_ready = now_s();
				snprintf(text, sizeof(text), "%.3f %d\n",
					 (t_ready - t0) * 1e3, pid);
				if (readyfile)
					write_file(readyfile, text);
			}
		}
	}
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	child = 0;
	if (err)
		fclose(err);
	if (jsonfile) {
		snprintf(text, sizeof(text),
			 "{\"pid\": %d, \"exit\": %d, \"signal\": %d, \"ready_ms\": %.3f, "
			 "\"wall_s\": %.3f, \"utime_s\": %.6f, \"stime_s\": %.6f, "
			 "\"maxrss_kb\": %ld}\n",
			 pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0,
			 t_ready < 0 ? -1.0 : (t_ready - t0) * 1e3, now_s() - t0,
			 ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
		write_file(jsonfile, text);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The value of "key:\t..." in an fdinfo text, or -1. */
static long long fdinfo_num(const char *info, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s:", key);
	p = strstr(info, pat);
	if (!p && !strncmp(info, pat + 1, strlen(pat + 1)))
		p = info - 1;
	if (!p)
		return -1;
	return strtoll(p + strlen(pat), NULL, 10);
}

#define MAX_IDS 256

static bool seen(unsigned *ids, int *n, unsigned id)
{
	for (int i = 0; i < *n; i++)
		if (ids[i] == id)
			return true;
	if (*n < MAX_IDS)
		ids[(*n)++] = id;
	return false;
}

static long long count_entries(int fd, unsigned key_size)
{
	char key[512], next[512];
	void *prev = NULL;
	long long n = 0;

	if (key_size > sizeof(key))
		return -1;
	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, key_size);
		prev = key;
		n++;
	}
	return n;
}

static int cmd_pidbpf(int argc, char **argv)
{
	unsigned prog_ids[MAX_IDS], map_ids[MAX_IDS];
	int nprogs = 0, nmaps = 0, first_prog = 1, first_map = 1;
	char path[128], info[4096], progs[65536] = "", maps[65536] = "";
	size_t pl = 0, ml = 0;
	bool count = argc > 2 && !strcmp(argv[2], "--count");
	struct dirent *de;
	DIR *d;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof(path), "/proc/%s/fdinfo", argv[1]);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "benchutil: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		char fpath[512];
		ssize_t n;
		int fd;
		long long id;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fpath, sizeof(fpath), "%s/%s", path, de->d_name);
		fd = open(fpath, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, info, sizeof(info) - 1);
		close(fd);
		if (n <= 0)
			continue;
		info[n] = '\0';
		if ((id = fdinfo_num(info, "map_id")) > 0 && fdinfo_num(info, "map_type") >= 0) {
			struct bpf_map_info mi = {};
			__u32 len = sizeof(mi);
			long long entries = -1;
			int mfd;

			if (seen(map_ids, &nmaps, id))
				continue;
			mfd = bpf_map_get_fd_by_id(id);
			if (mfd < 0)
				continue;
			if (bpf_obj_get_info_by_fd(mfd, &mi, &len) == 0) {
				if (count && (mi.type == BPF_MAP_TYPE_HASH ||
					      mi.type == BPF_MAP_TYPE_PERCPU_HASH ||
					      mi.type == BPF_MAP_TYPE_LRU_HASH))
					entries = count_entries(mfd, mi.key_size);
				ml += snprintf(maps + ml, sizeof(maps) - ml,
					"%s{\"id\": %u, \"name\": \"%s\", \"type\": %u, "
					"\"key_size\": %u, \"value_size\": %u, "
					"\"max_entries\": %u, \"memlock\": %lld, \"entries\": %lld}",
					first_map ? "" : ", ", mi.id, mi.name, mi.type,
					mi.key_size, mi.value_size, mi.max_entries,
					fdinfo_num(info, "memlock"), entries);
				first_map = 0;
			}
			close(mfd);
		} else if ((id = fdinfo_num(info, "prog_id")) > 0) {
			struct bpf_prog_info pi = {};
			__u32 len = sizeof(pi);
			int pfd;

			if (seen(prog_ids, &nprogs, id))
				continue;
			pfd = bpf_prog_get_fd_by_id(id);
			if (pfd < 0)
				continue;
			if (bpf_obj_get_info_by_fd(pfd, &pi, &len) == 0) {
				pl += snprintf(progs + pl, sizeof(progs) - pl,
					"%s{\"id\": %u, \"name\": \"%s\", \"type\": %u, "
					"\"run_cnt\": %llu, \"run_time_ns\": %llu, "
					"\"xlated_bytes\": %u, \"jited_bytes\": %u, "
					"\"verified_insns\": %u}",
					first_prog ? "" : ", ", pi.id, pi.name, pi.type,
					(unsigned long long)pi.run_cnt,
					(unsigned long long)pi.run_time_ns,
					pi.xlated_prog_len, pi.jited_prog_len,
					pi.verified_insns);
				first_prog = 0;
			}
			close(pfd);
		}
		if (pl >= sizeof(progs) - 512 || ml >= sizeof(maps) - 512)
			break;
	}
	closedir(d);
	printf("{\"pid\": %s, \"progs\": [%s], \"maps\": [%s]}\n", argv[1], progs, maps);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (argc >= 3 && !strcmp(argv[1], "pidbpf"))
		return cmd_pidbpf(argc - 1, argv + 1);
	fprintf(stderr, "usage: benchutil run [-e F] [-m PAT] [-r F] [-p F] [-o F] -- CMD...\n"
		"       benchutil pidbpf PID [--count]\n");
	return 2;
}
