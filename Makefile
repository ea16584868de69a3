# SPDX-License-Identifier: GPL-2.0
# iomapdirty build, in the shape of libbpf-bootstrap: intermediates in
# .output/, BPF objects compiled with clang and turned into a skeleton by
# bpftool, the frontend linked against the system's libbpf, libelf, zlib.
# `make V=1` shows the commands.

OUTPUT := .output
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
CC ?= cc
ARCH := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')

CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11
INCLUDES := -I$(OUTPUT) -Iinclude -Iuser
LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) -lncursesw -ljson-c
# vmlinux.h of the target architecture (kprobes read that arch's pt_regs)
VMLINUX_DIR ?= vmlinux
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall \
	-I$(VMLINUX_DIR) -Iinclude -Ibpf

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

USER_SRCS := $(filter-out user/main.c,$(wildcard user/*.c))
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(USER_SRCS))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))

.PHONY: all clean check unit unit-bins e2e-bins demo deps vmcheck vmcheck-all static static-ppc64le mutants
all: iomapdirty

$(OUTPUT) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/iomapdirty.bpf.o: bpf/iomapdirty.bpf.c bpf/compat.h include/*.h $(VMLINUX_DIR)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/iomapdirty.skel.h: $(OUTPUT)/iomapdirty.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Headers: each object and unit test depends on the ones it includes
# (-MMD: .output/*.d; tests/run.sh runs .output/tests/test_*, so the
# tests' go beside the objects'). The skeleton is generated, so the files that include it wait
# for it by name; the others neither wait for nor rebuild with the BPF side.
SKEL_USERS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(shell grep -l iomapdirty.skel.h user/*.c)) \
	$(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(shell grep -l iomapdirty.skel.h tests/unit/*.c))
$(SKEL_USERS): $(OUTPUT)/iomapdirty.skel.h

$(OUTPUT)/%.o: user/%.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP $(INCLUDES) -c $< -o $@

-include $(wildcard $(OUTPUT)/*.d)

iomapdirty: $(OUTPUT)/main.o $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBS) -o $@

# Statically linked builds for the kernel lab's guests (tests/vm), which
# have no libbpf, libelf or ncurses of their own.
STATIC_LIBS := -lbpf -lelf -lz -lncursesw -ltinfo -ljson-c
E2E_SRCS := tests/e2e/workload.c tests/e2e/expect.c tests/e2e/folio_layout.c

IOMAPDIRTY_STATIC ?= iomapdirty.static
WORKLOAD_STATIC ?= tests/e2e/workload.static

static: $(IOMAPDIRTY_STATIC) $(WORKLOAD_STATIC)

$(IOMAPDIRTY_STATIC): $(OUTPUT)/main.o $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $^ $(STATIC_LIBS) -o $@

$(WORKLOAD_STATIC): $(E2E_SRCS) $(wildcard tests/e2e/*.h)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -std=gnu11 -static $(E2E_SRCS) -o $@

# The same for the lab's ppc64le guest (64 KiB pages), cross-compiled:
# its own output directory, the BPF object built for powerpc against the
# guest kernel's vmlinux.h (vmlinux/powerpc), the ppc64el libraries from
# Debian's multiarch packages (scripts/install-deps.sh --lab).
PPC64LE_OUTPUT := .output-ppc64le
static-ppc64le:
	$(Q)$(MAKE) -s OUTPUT=$(PPC64LE_OUTPUT) ARCH=powerpc VMLINUX_DIR=vmlinux/powerpc \
		CC=powerpc64le-linux-gnu-gcc \
		IOMAPDIRTY_STATIC=$(PPC64LE_OUTPUT)/iomapdirty.static \
		WORKLOAD_STATIC=$(PPC64LE_OUTPUT)/workload.static static

$(OUTPUT)/tests/%: tests/unit/%.c $(USER_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $(OUTPUT)/$*.test.d $(INCLUDES) -Itests/unit \
		$< $(USER_OBJS) $(LIBS) -o $@

unit-bins: $(UNIT_TESTS)

unit: $(UNIT_TESTS)
	$(Q)tests/unit/run.sh $(UNIT_TESTS)

e2e-bins:
	$(Q)$(MAKE) -s -C tests/e2e

deps:
	$(Q)scripts/install-deps.sh

# The README's two commands: the main job on an embedded default, and
# every test. Both install what they need first.
demo: deps
	$(Q)$(MAKE) -s all e2e-bins
	$(Q)scripts/demo.sh

check: deps
	$(Q)tests/run.sh

# Deliberate faults (tests/mutants/*.mutant), each in a scratch copy of the
# tree: every one must make its suites fail. Not part of check (minutes).
mutants: deps
	$(Q)tests/mutants/run.sh

# The kernel lab with its payload (tests/vm/payload): the end-to-end
# checks and the seed's fio job in both guests; writes docs/lab-results.md.
# `make vmcheck` runs the guests CI runs (tests/vm/README.md, "Cost"),
# `make vmcheck-all` every guest.
VMCHECK_ALL := unpatched rfcv4 debian612 ppc-unpatched ppc-rfcv4
VMCHECK_KERNELS ?= unpatched rfcv4 ppc-unpatched ppc-rfcv4
vmcheck: deps
	$(Q)scripts/install-deps.sh --lab
	$(Q)$(MAKE) -s all static static-ppc64le
	$(Q)VM_KERNELS="$(VMCHECK_KERNELS)" VM_PAYLOAD_DIR=tests/vm/payload \
		VM_PAYLOAD_EXTRA="iomapdirty.static tests/e2e/workload.static jq examples/seed-randwrite.fio" \
		VM_PAYLOAD_EXTRA_PPC64LE="$(PPC64LE_OUTPUT)/iomapdirty.static $(PPC64LE_OUTPUT)/workload.static examples/seed-randwrite.fio" \
		VM_RESULTS_MD=docs/lab-results.md tests/vm/vmcheck.sh

vmcheck-all:
	$(Q)$(MAKE) vmcheck VMCHECK_KERNELS="$(VMCHECK_ALL)"

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) $(PPC64LE_OUTPUT) iomapdirty iomapdirty.static tests/e2e/workload.static
	$(Q)$(MAKE) -s -C tests/e2e clean
