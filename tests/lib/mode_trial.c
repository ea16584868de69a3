// SPDX-License-Identifier: GPL-2.0
/*
 * mode_trial OBJ: loads and attaches the fentry program of OBJ
 * (mode_trial.bpf.o), detaches, and prints one line:
 *   fentry ok
 *   fentry load|attach <errno name> (<message>)
 * Exit status 0 if it attached, 1 if the kernel refused, 2 on usage or a
 * broken object. Independent of iomapdirty: the tests use it to check, from
 * the kernel, that a mode the host profile calls unavailable really is.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

static int refused(struct bpf_object *obj, const char *stage, int err)
{
	printf("fentry %s %s (%s)\n", stage, strerrorname_np(-err) ?: "?",
	       strerror(-err));
	bpf_object__close(obj);
	return 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: mode_trial OBJ\n");
		return 2;
	}
	libbpf_set_print(quiet);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "mode_trial: cannot open %s\n", argv[1]);
		return 2;
	}
	prog = bpf_object__find_program_by_name(obj, "mode_trial_fentry");
	if (!prog)
		return 2;
	err = bpf_object__load(obj);
	if (err)
		return refused(obj, "load", err);
	link = bpf_program__attach(prog);
	err = libbpf_get_error(link);
	if (err)
		return refused(obj, "attach", err);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	printf("fentry ok\n");
	return 0;
}
