// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter command of the static build (the kernel lab's guests): it
 * has no HTTP server, whose static library would drag in gnutls.
 */
#include <stdio.h>
#include "cmd/commands.h"
#include "lib/exitcodes.h"

static int run_absent(struct session *s, void *args)
{
	fprintf(stderr, "iomapdirty: this static build has no exporter; use the "
		"dynamically linked iomapdirty\n");
	return EXIT_UNSUPPORTED;
}

const struct command exporter_command = {
	.name = "exporter",
	.help = "(not in this static build)",
	.doc = "Not in this static build: use the dynamically linked iomapdirty.",
	.run = run_absent,
};
