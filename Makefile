# SPDX-License-Identifier: GPL-2.0
# iomapdirty build, in the shape of libbpf-bootstrap: intermediates in
# .output/, BPF objects compiled with clang and turned into a skeleton by
# bpftool, the frontend linked against the system's libbpf, libelf, zlib.
# `make V=1` shows the commands.

OUTPUT := .output
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
ARCH := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')

CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11
INCLUDES := -I$(OUTPUT) -Iinclude -Iuser $(SYSROOT_INCLUDES)
# libmicrohttpd: the exporter's HTTP server (user/exporter/exporter_http.c), with libcrypt's
# crypt(3) for its bcrypt passwords and libsystemd's sd_notify(3) for Type=notify; json-c: compare and report read run files
LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) -lncursesw -ljson-c \
	$(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd) -lcrypt \
	$(shell pkg-config --libs libsystemd 2>/dev/null || echo -lsystemd) -lpthread
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

# user/ in folders by concern (docs/design.md, "Where the code is"); the
# objects stay flat in .output (file names are unique across folders, and
# tests/build/layering.sh keeps the folders' include rules).
USER_DIRS := cmd live model host output exporter runs lib
USER_SRCS := $(filter-out user/cmd/main.c,$(foreach d,$(USER_DIRS),$(wildcard user/$(d)/*.c)))
USER_HDRS := $(foreach d,$(USER_DIRS),$(wildcard user/$(d)/*.h))
USER_OBJS := $(addprefix $(OUTPUT)/,$(notdir $(USER_SRCS:.c=.o)))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))

.DELETE_ON_ERROR:
.PHONY: all clean check unit unit-bins e2e-bins demo deps vmcheck vmcheck-all static \
	static-ppc64le mutants asan fuzz fuzz-bins install uninstall print-vmcheck-kernels \
	vmcheck-guests
# BIN: where the binary is linked (debian/rules puts it in .output/, so a
# package build writes nothing into the tree outside .output and debian/).
BIN ?= iomapdirty
all: $(BIN) $(OUTPUT)/iomapdirty.8 $(OUTPUT)/tests/http_serve

$(OUTPUT) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

# The BPF side is several compilation units (bpf/*.bpf.c: one per moment,
# shared structure and attach mechanism, see docs/design.md) linked into
# one object by bpftool's static linker, as libbpf-bootstrap does. Each
# unit depends on the headers it includes (-MMD: .output/bpf/*.d).
# The units that define the shared maps and settings are linked first:
# bpftool 7.1's linker (libbpf 1.1) misplaces the relocations of a unit
# that has maps of its own and uses an extern map not yet defined
# ("map relo failed to find map for section '.maps'").
BPF_DEFS := bpf/maps.bpf.c bpf/settings.bpf.c
BPF_SRCS := $(BPF_DEFS) $(filter-out $(BPF_DEFS),$(wildcard bpf/*.bpf.c))
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))

$(OUTPUT)/bpf: | $(OUTPUT)
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

-include $(wildcard $(OUTPUT)/bpf/*.d)

# The linker keeps BTF and drops DWARF: no llvm-strip needed.
$(OUTPUT)/iomapdirty.bpf.o: $(BPF_OBJS)
	$(call msg,BPF-LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/iomapdirty.skel.h: $(OUTPUT)/iomapdirty.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Headers: each object and unit test depends on the ones it includes
# (-MMD: .output/*.d; tests/run.sh runs .output/tests/test_*, so the
# tests' go beside the objects'). The skeleton is generated, so the files that include it wait
# for it by name; the others neither wait for nor rebuild with the BPF side.
SKEL_USERS := $(addprefix $(OUTPUT)/,$(notdir $(patsubst %.c,%.o,$(shell grep -l iomapdirty.skel.h $(USER_SRCS) user/cmd/main.c)))) \
	$(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(shell grep -l iomapdirty.skel.h tests/unit/*.c))
$(SKEL_USERS): $(OUTPUT)/iomapdirty.skel.h

# One pattern rule per folder: make takes the one whose source exists.
define user_dir_rules
$$(OUTPUT)/%.o: user/$(1)/%.c | $$(OUTPUT)
	$$(call msg,CC,$$@)
	$$(Q)$$(CC) $$(CPPFLAGS) $$(CFLAGS) -MMD -MP $$(INCLUDES) -c $$< -o $$@

$$(ASAN_OUTPUT)/%.o: user/$(1)/%.c $$(USER_HDRS) include/*.h $$(OUTPUT)/iomapdirty.skel.h | $$(ASAN_OUTPUT)
	$$(call msg,CC-ASAN,$$@)
	$$(Q)$$(CC) $$(CFLAGS) $$(ASAN_FLAGS) $$(INCLUDES) -c $$< -o $$@

$$(FUZZ_OUTPUT)/%.o: user/$(1)/%.c $$(USER_HDRS) include/*.h $$(OUTPUT)/iomapdirty.skel.h | $$(FUZZ_OUTPUT)
	$$(call msg,CC-FUZZ,$$@)
	$$(Q)$$(CLANG) $$(FUZZ_FLAGS) -std=gnu11 $$(INCLUDES) -c $$< -o $$@
endef

-include $(wildcard $(OUTPUT)/*.d)

# CPPFLAGS and LDFLAGS: a distribution's (dpkg-buildflags: fortify, relro, now)
$(BIN): $(OUTPUT)/main.o $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBS) -o $@

# Statically linked builds for the kernel lab's guests (tests/vm), which
# have no libbpf, libelf or ncurses of their own.
STATIC_LIBS := -lbpf -lelf -lz -lncursesw -ltinfo -ljson-c
E2E_SRCS := tests/e2e/workload.c tests/e2e/expect.c tests/e2e/folio_layout.c

IOMAPDIRTY_STATIC ?= iomapdirty.static
WORKLOAD_STATIC ?= tests/e2e/workload.static

static: $(IOMAPDIRTY_STATIC) $(WORKLOAD_STATIC)

# The lab runs no exporter, and a static libmicrohttpd drags in gnutls:
# the static binary has a stand-in exporter command that says so.
STATIC_OBJS := $(filter-out $(OUTPUT)/cmd_exporter.o $(OUTPUT)/exporter_%.o,$(USER_OBJS)) \
	$(OUTPUT)/exporter_absent.o

$(OUTPUT)/exporter_absent.o: user/static/exporter_absent.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -c $< -o $@

$(IOMAPDIRTY_STATIC): $(OUTPUT)/main.o $(STATIC_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $^ $(SYSROOT_LIBDIRS) $(STATIC_LIBS) -o $@

$(WORKLOAD_STATIC): $(E2E_SRCS) $(wildcard tests/e2e/*.h)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -std=gnu11 -static $(E2E_SRCS) -o $@

# The same for the lab's ppc64le guest (64 KiB pages), cross-compiled:
# its own output directory, the BPF object built for powerpc against the
# guest kernel's vmlinux.h (vmlinux/powerpc), the ppc64el libraries and
# their headers from Debian's packages unpacked in PPC64EL_SYSROOT
# (scripts/ppc64el-sysroot.sh, run by scripts/install-deps.sh --lab).
PPC64LE_OUTPUT := .output-ppc64le
PPC64EL_SYSROOT ?= /var/cache/iomapdirty-ppc64el
PPC64EL_TRIPLET := powerpc64le-linux-gnu
static-ppc64le:
	$(Q)test -f $(PPC64EL_SYSROOT)/.packages || { echo "no ppc64el libraries in" \
		"$(PPC64EL_SYSROOT): run scripts/ppc64el-sysroot.sh" >&2; exit 1; }
	$(Q)$(MAKE) -s OUTPUT=$(PPC64LE_OUTPUT) ARCH=powerpc VMLINUX_DIR=vmlinux/powerpc \
		CC=powerpc64le-linux-gnu-gcc \
		SYSROOT_INCLUDES="-isystem $(PPC64EL_SYSROOT)/usr/include/$(PPC64EL_TRIPLET) \
			-isystem $(PPC64EL_SYSROOT)/usr/include" \
		SYSROOT_LIBDIRS="-L$(PPC64EL_SYSROOT)/usr/lib/$(PPC64EL_TRIPLET)" \
		IOMAPDIRTY_STATIC=$(PPC64LE_OUTPUT)/iomapdirty.static \
		WORKLOAD_STATIC=$(PPC64LE_OUTPUT)/workload.static static

$(OUTPUT)/tests/%: tests/unit/%.c $(USER_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $(OUTPUT)/$*.test.d $(INCLUDES) -Itests/unit \
		$< $(USER_OBJS) $(LIBS) -o $@

# The exporter's HTTP server alone, for tests/exporter/web.sh (no BPF).
$(OUTPUT)/tests/http_serve: tests/exporter/http_serve.c $(USER_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) $< $(USER_OBJS) $(LIBS) -o $@

# The same user-space code with AddressSanitizer and UBSan, in its own
# build directory: make check runs the unit tests and the CLI suite with it.
ASAN_OUTPUT := .output-asan
ASAN_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
ASAN_OBJS := $(addprefix $(ASAN_OUTPUT)/,$(notdir $(USER_SRCS:.c=.o)))
ASAN_TESTS := $(patsubst tests/unit/%.c,$(ASAN_OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))

$(ASAN_OUTPUT) $(ASAN_OUTPUT)/tests:
	$(Q)mkdir -p $@


iomapdirty-asan: $(ASAN_OUTPUT)/main.o $(ASAN_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) $^ $(LIBS) -o $@

$(ASAN_OUTPUT)/tests/%: tests/unit/%.c tests/unit/*.h $(ASAN_OBJS) | $(ASAN_OUTPUT)/tests
	$(call msg,TEST-ASAN,$@)
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) $(INCLUDES) -Itests/unit $< $(ASAN_OBJS) $(LIBS) -o $@

asan: iomapdirty-asan $(ASAN_TESTS)

# libFuzzer harnesses (tests/fuzz/fuzz_*.c) for every parser of outside
# input, built with clang; corpus in tests/fuzz/corpus/NAME.
# `make fuzz` runs each for FUZZ_SECONDS (make check: 7 s each, 70 s for
# the ten); a longer run: make fuzz FUZZ_SECONDS=3600.
FUZZ_OUTPUT := .output-fuzz
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_OBJS := $(addprefix $(FUZZ_OUTPUT)/,$(notdir $(USER_SRCS:.c=.o)))
FUZZERS := $(patsubst tests/fuzz/%.c,$(FUZZ_OUTPUT)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 7

$(foreach d,$(USER_DIRS),$(eval $(call user_dir_rules,$(d))))

$(FUZZ_OUTPUT):
	$(Q)mkdir -p $@


$(FUZZ_OUTPUT)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	$(call msg,FUZZER,$@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer -std=gnu11 $(INCLUDES) $< $(FUZZ_OBJS) $(LIBS) -lm -o $@

fuzz-bins: $(FUZZERS)

fuzz: $(FUZZERS)
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZERS)

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
# mdadm for the 6.12 guest's md raid checks, unpacked, not installed
# (scripts/mdadm-unpacked.sh, run by install-deps --lab)
LAB_MDADM ?= /var/cache/iomapdirty-mdadm/sbin/mdadm
VMCHECK_ALL := unpatched rfcv4 debian612 ppc-unpatched ppc-rfcv4
VMCHECK_KERNELS ?= $(VMCHECK_ALL)
vmcheck: deps
	$(Q)scripts/install-deps.sh --lab
	$(Q)$(MAKE) -s all static static-ppc64le
	$(Q)$(MAKE) -s vmcheck-guests

# the lab alone, its packages and binaries already there (.ci/run runs it
# beside make check, nice 19)
vmcheck-guests:
	$(Q)VM_KERNELS="$(VMCHECK_KERNELS)" VM_PAYLOAD_DIR=tests/vm/payload \
		VM_PAYLOAD_EXTRA="iomapdirty.static tests/e2e/workload.static jq examples/seed-randwrite.fio sfdisk dmsetup $(LAB_MDADM)" \
		VM_PAYLOAD_EXTRA_PPC64LE="$(PPC64LE_OUTPUT)/iomapdirty.static $(PPC64LE_OUTPUT)/workload.static examples/seed-randwrite.fio" \
		VM_RESULTS_MD=docs/lab-results.md tests/vm/vmcheck.sh

# the guests make vmcheck boots (.ci/run builds their kernels beside make check)
print-vmcheck-kernels:
	@echo $(VMCHECK_KERNELS)

vmcheck-all:
	$(Q)$(MAKE) vmcheck VMCHECK_KERNELS="$(VMCHECK_ALL)"

# The manual page is docs/iomapdirty.md turned into troff (one text).
$(OUTPUT)/iomapdirty.8: docs/iomapdirty.md scripts/md2man.awk user/lib/version.h | $(OUTPUT)
	$(call msg,MAN,$@)
	$(Q)awk -v version=$$(sed -n 's/.*IOMAPDIRTY_VERSION[[:space:]]*"\(.*\)"/\1/p' user/lib/version.h) \
		-v date=$$(date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || \
			date +%s)} +%F) \
		-f scripts/md2man.awk $< >$@

# `make install` (PREFIX, DESTDIR): the binary, iomapdirty(8), the
# exporter's systemd unit, the Prometheus rules and the Grafana dashboard
# (docs/fleet.md). systemd looks for units in /usr/local/lib/systemd/system
# too; packagers set UNITDIR=/lib/systemd/system.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/iomapdirty
DOCDIR ?= $(PREFIX)/share/doc/iomapdirty
UNITDIR ?= $(PREFIX)/lib/systemd/system
UNIT := iomapdirty-exporter.service
INSTALLED := $(SBINDIR)/iomapdirty $(MANDIR)/man8/iomapdirty.8 $(UNITDIR)/$(UNIT) \
	$(DATADIR)/prometheus/iomapdirty-rules.yml \
	$(DATADIR)/prometheus/iomapdirty-rules_test.yml \
	$(DATADIR)/grafana/iomapdirty-dashboard.json \
	$(DOCDIR)/metrics.md $(DOCDIR)/fleet.md

install: $(BIN) $(OUTPUT)/iomapdirty.8
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR)/grafana $(DESTDIR)$(DOCDIR)
	$(Q)install -m 0755 $(BIN) $(DESTDIR)$(SBINDIR)/iomapdirty
	$(Q)install -m 0644 $(OUTPUT)/iomapdirty.8 $(DESTDIR)$(MANDIR)/man8/iomapdirty.8
	$(Q)sed 's|@BINDIR@|$(SBINDIR)|g' deploy/systemd/$(UNIT).in >$(OUTPUT)/$(UNIT)
	$(Q)install -m 0644 $(OUTPUT)/$(UNIT) $(DESTDIR)$(UNITDIR)/$(UNIT)
	$(Q)install -m 0644 deploy/prometheus/iomapdirty-rules.yml \
		deploy/prometheus/iomapdirty-rules_test.yml $(DESTDIR)$(DATADIR)/prometheus/
	$(Q)install -m 0644 deploy/grafana/iomapdirty-dashboard.json $(DESTDIR)$(DATADIR)/grafana/
	$(Q)install -m 0644 docs/metrics.md docs/fleet.md $(DESTDIR)$(DOCDIR)/

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)for d in $(DATADIR)/prometheus $(DATADIR)/grafana $(DATADIR) $(DOCDIR); do \
		rmdir $(DESTDIR)$$d 2>/dev/null || true; done

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) $(PPC64LE_OUTPUT) $(ASAN_OUTPUT) $(FUZZ_OUTPUT) iomapdirty iomapdirty-asan iomapdirty.static tests/e2e/workload.static
	$(Q)$(MAKE) -s -C tests/e2e clean
