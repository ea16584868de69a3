// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 for `run`: see cgroup.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include "host/cgroup.h"
#include "host/fsinfo.h"

#define RUN_CGROUP_PREFIX	"iomapdirty-run."

/*
 * The v2 mount point; false when no cgroup2 filesystem is mounted.
 */
static bool cgroup_v2_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct mountinfo_line m;
	char line[8192];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!mountinfo_parse(line, &m) && !strcmp(m.fstype, "cgroup2") &&
		    (size_t)snprintf(buf, len, "%s", m.mount) < len)
			found = true;
	fclose(f);
	return found;
}

/*
 * The v2 cgroup of this process ("/..." under the root) from
 * /proc/self/cgroup's "0::" line; false if there is none.
 */
static bool cgroup_v2_self(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096 + 8];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0::/", 4) && !strstr(line, "/..") &&
		    (size_t)snprintf(buf, len, "%s", line + 3) < len)
			found = true;
	}
	fclose(f);
	return found;
}

/*
 * The depth of a path relative to the root: "/" 0, "/a" 1, "/a/b" 2.
 */
static uint32_t cgroup_level_of(const char *rel)
{
	uint32_t level = 0;

	for (const char *p = rel; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			level++;
	return level;
}

#define CGROUP_CACHE	1024
#define CGROUP_WALK_MAX	8192
#define CGROUP_WALK_DEPTH	32

static struct cgroup_cached {
	uint64_t id;
	char rel[512];
} cache[CGROUP_CACHE];
static unsigned int cache_next;
static time_t last_walk;
static int walked;

static const char *cache_find(uint64_t id)
{
	for (int i = 0; i < CGROUP_CACHE; i++)
		if (cache[i].id == id && id)
			return cache[i].rel;
	return NULL;
}

/* Directories below dirfd (whose path is rel), into the cache; closes dirfd. */
static void walk(int dirfd, const char *rel, int depth)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	struct stat st;

	if (!d) {
		close(dirfd);
		return;
	}
	while (walked < CGROUP_WALK_MAX && (de = readdir(d))) {
		struct cgroup_cached *c;
		int fd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st)) {
			close(fd);
			continue;
		}
		walked++;
		c = &cache[cache_next++ % CGROUP_CACHE];
		c->id = st.st_ino;
		snprintf(c->rel, sizeof(c->rel), "%s/%s", rel, de->d_name);
		if (depth < CGROUP_WALK_DEPTH)
			walk(fd, c->rel, depth + 1);
		else
			close(fd);
	}
	closedir(d);
}

bool cgroup_path_of(uint64_t id, char *buf, size_t len)
{
	char root[4096];
	const char *rel = cache_find(id);
	struct stat st;
	int fd;

	if (!rel && time(NULL) != last_walk && cgroup_v2_mount(root, sizeof(root))) {
		last_walk = time(NULL);
		walked = 0;
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && st.st_ino == id) {
			close(fd);
			return (size_t)snprintf(buf, len, "/") < len;
		}
		if (fd >= 0)
			walk(fd, "", 1);
		rel = cache_find(id);
	}
	return rel && (size_t)snprintf(buf, len, "%s", rel) < len;
}

int cgroup_v2_lookup(const char *arg, uint64_t *id, uint32_t *level, char *err, size_t len)
{
	char root[4096], path[8192];
	const char *rel = arg;
	size_t rl;
	struct statfs sf;
	struct stat st;

	if (!cgroup_v2_mount(root, sizeof(root))) {
		snprintf(err, len, "no cgroup v2 hierarchy is mounted");
		return -EOPNOTSUPP;
	}
	rl = strlen(root);
	if (!strncmp(arg, root, rl) && (arg[rl] == '/' || !arg[rl]))
		rel = arg + rl;
	if (strstr(rel, "/..") || !strncmp(rel, "..", 2)) {
		snprintf(err, len, "'..' is not allowed in a cgroup path");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s%s%s", root, *rel == '/' || !*rel ? "" : "/", rel);
	if (lstat(path, &st) || !S_ISDIR(st.st_mode) || statfs(path, &sf) ||
	    sf.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err, len, "%s is not a cgroup v2 directory", path);
		return -ENOENT;
	}
	*id = st.st_ino;
	*level = cgroup_level_of(path + rl);
	return 0;
}

/* the initial cgroup namespace's inode (include/linux/proc_ns.h, PROC_CGROUP_INIT_INO) */
#define CGROUP_NS_INIT_INO	0xEFFFFFFBu

bool cgroup_ns_is_host(void)
{
	struct stat st;

	/* no /proc/self/ns/cgroup: a kernel without cgroup namespaces */
	return stat("/proc/self/ns/cgroup", &st) || st.st_ino == CGROUP_NS_INIT_INO;
}

const char cgroup_ns_refusal[] = "this process is in a cgroup namespace of its own "
	"(a container's): a cgroup's depth below the host's root is not known here, so "
	"its writes cannot be told apart; run it in the host's cgroup namespace";

/* systemd's unit types (systemd.unit(5)): a name without one is a service */
static const char *const unit_suffixes[] = {
	".service", ".scope", ".slice", ".socket", ".mount", ".swap", ".device",
	".automount", ".target", ".path", ".timer", NULL,
};

/* systemd's rule for a unit name (unit_name_is_valid): [A-Za-z0-9:_.@\\-] */
static bool unit_name_ok(const char *s)
{
	if (!*s || strlen(s) > 255 || *s == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(":_.@\\-", *s))
			return false;
	return true;
}

struct unit_search {
	const char *name;
	char first[512], second[512];
	int found, visited;
};

/* Directories named u->name below dirfd (whose path is rel); closes dirfd. */
static void unit_walk(int dirfd, const char *rel, int depth, struct unit_search *u)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d) {
		close(dirfd);
		return;
	}
	while (u->visited < CGROUP_WALK_MAX && (de = readdir(d))) {
		char sub[512];
		int fd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		u->visited++;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >= sizeof(sub))
			continue;
		if (!strcmp(de->d_name, u->name) && u->found++ < 2)
			snprintf(u->found == 1 ? u->first : u->second, sizeof(u->first), "%s", sub);
		if (depth >= CGROUP_WALK_DEPTH)
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			unit_walk(fd, sub, depth + 1, u);
	}
	closedir(d);
}

int cgroup_unit_lookup(const char *unit, char *rel, size_t rlen, char *err, size_t len)
{
	struct unit_search u = { 0 };
	char root[4096], name[300];
	size_t n = strlen(unit);
	bool suffixed = false;
	int fd;

	for (int i = 0; unit_suffixes[i]; i++) {
		size_t sl = strlen(unit_suffixes[i]);

		suffixed |= n > sl && !strcmp(unit + n - sl, unit_suffixes[i]);
	}
	if (!unit_name_ok(unit)) {
		snprintf(err, len, "not a systemd unit name (letters, digits and "
			 ":_.@\\- only, at most 255)");
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s%s", unit, suffixed ? "" : ".service");
	if (!cgroup_v2_mount(root, sizeof(root))) {
		snprintf(err, len, "no cgroup v2 hierarchy is mounted");
		return -EOPNOTSUPP;
	}
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "%s: %s", root, strerror(errno));
		return -errno;
	}
	u.name = name;
	unit_walk(fd, "", 1, &u);
	if (u.found > 1) {
		snprintf(err, len, "%s names several cgroups (%s, %s%s): give --cgroup PATH",
			 name, u.first, u.second, u.found > 2 ? ", ..." : "");
		return -ENOTUNIQ;
	}
	if (!u.found) {
		snprintf(err, len, "no cgroup of unit %s under %s%s (systemd makes it "
			 "only while the unit runs)", name, root,
			 u.visited >= CGROUP_WALK_MAX ? ", searched the first 8192 only" : "");
		return -ENOENT;
	}
	if ((size_t)snprintf(rel, rlen, "%s", u.first) >= rlen) {
		snprintf(err, len, "cgroup path too long");
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * A run killed with SIGKILL leaves its (by then empty) cgroup behind:
 * siblings named after a pid that no longer exists are removed (rmdir
 * removes only an empty cgroup).
 */
static void remove_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[8192 + 256 + 2], *end;
		long pid;

		if (strncmp(de->d_name, RUN_CGROUP_PREFIX, strlen(RUN_CGROUP_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(RUN_CGROUP_PREFIX), &end, 10);
		if (*end != '.' || pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		rmdir(path);
	}
	closedir(d);
}

int run_cgroup_make(struct run_cgroup *c, char *err, size_t len)
{
	char root[4096], self[4096], parent[8192];
	struct stat st;
	int n;

	memset(c, 0, sizeof(*c));
	if (!cgroup_v2_mount(root, sizeof(root)) || !cgroup_v2_self(self, sizeof(self))) {
		snprintf(err, len, "no cgroup v2 hierarchy (no cgroup2 in /proc/self/mountinfo, "
			 "or no 0:: line in /proc/self/cgroup): run cannot tell CMD's writes "
			 "from other processes'; --all counts every process's");
		return -EOPNOTSUPP;
	}
	/* unique: our pid and the clock; mkdir fails on an existing name */
	n = snprintf(c->rel, sizeof(c->rel), "%s/" RUN_CGROUP_PREFIX "%d.%lx",
		     strcmp(self, "/") ? self : "", (int)getpid(), (long)time(NULL));
	if (n < 0 || (size_t)n >= sizeof(c->rel) ||
	    (size_t)snprintf(c->path, sizeof(c->path), "%s%s", root, c->rel) >= sizeof(c->path)) {
		snprintf(err, len, "cgroup path too long under %s", root);
		return -ENAMETOOLONG;
	}
	snprintf(parent, sizeof(parent), "%s%s", root, self);
	remove_stale(parent);
	if (mkdir(c->path, 0755)) {
		n = -errno;
		snprintf(err, len, "cannot make the cgroup %s for CMD: %s (--all: count every "
			 "process's writes instead)", c->path, strerror(errno));
		return n;
	}
	c->made = true;
	if (lstat(c->path, &st) || !S_ISDIR(st.st_mode)) {
		n = -errno;
		snprintf(err, len, "the cgroup %s vanished", c->path);
		run_cgroup_remove(c);
		return n ? n : -ENOENT;
	}
	c->id = st.st_ino;
	c->level = cgroup_level_of(c->rel);
	return 0;
}

static int write_word(const char *dir, const char *file, const char *word)
{
	char p[4200];
	ssize_t w;
	int fd;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, file) >= sizeof(p))
		return -1;
	fd = open(p, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	w = write(fd, word, strlen(word));
	if (close(fd) || w != (ssize_t)strlen(word))
		return -1;
	return 0;
}

int run_cgroup_enter(const struct run_cgroup *c)
{
	return write_word(c->path, "cgroup.procs", "0");
}

/*
 * What CMD left running (a daemon it forked) would keep the cgroup busy:
 * cgroup.kill (5.14+) ends it; rmdir is tried for up to a second while
 * the killed processes exit.
 */
void run_cgroup_remove(struct run_cgroup *c)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (!c->made)
		return;
	write_word(c->path, "cgroup.kill", "1");
	for (int i = 0; i < 100; i++) {
		if (!rmdir(c->path) || errno == ENOENT) {
			c->made = false;
			return;
		}
		if (errno != EBUSY)
			break;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "iomapdirty: warning: cannot remove the cgroup %s: %s\n", c->path,
		strerror(errno));
}
