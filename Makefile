# walletops: the two commands of the README, and their helpers.
# Every target first runs the bootstrap, which installs the Debian packages the build needs.
SWIFT ?= swift
# Swift code is compiled for the build machine's CPU family when it has Haswell's instructions (BMI2's
# mulx, ADX, AVX2: every x86-64 server CPU since 2013), or Skylake-SP's when it also has AVX-512 (F, CD,
# BW, DQ, VL). The Ed25519 field products then keep their operands in registers, and the four-lane ones get
# 32 vector registers and three-input logic (docs/bench.md "Ed25519 public keys", "The build target"). A
# binary built so stops with SIGILL on an older CPU; `make TARGET_CPU= ...` builds for baseline x86-64.
TARGET_CPU ?= $(shell [ "$$(uname -m)" = x86_64 ] && grep -qw bmi2 /proc/cpuinfo && grep -qw adx /proc/cpuinfo \
	&& grep -qw avx2 /proc/cpuinfo && { for f in avx512f avx512cd avx512bw avx512dq avx512vl; do \
	grep -qw $$f /proc/cpuinfo || { echo haswell; exit 0; }; done; echo skylake-avx512; })
# With AVX-512 the batched Ed25519 derivation takes eight seeds per vector (ED25519_EIGHT_LANES): 24 % less
# CPU per key than four; built for Haswell, eight lanes took 1.4-1.75x the time of four (docs/bench.md).
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors $(if $(TARGET_CPU),-Xswiftc -target-cpu -Xswiftc $(TARGET_CPU)) \
	$(if $(filter skylake-avx512,$(TARGET_CPU)),-Xswiftc -DED25519_EIGHT_LANES)
# Release builds link the Swift runtime and Foundation into the binary (--static-swift-stdlib): a command
# starts without binding the symbols of their shared libraries, and its calls into the runtime (retain,
# release) go straight rather than through the PLT. The toolchain's lld links them: gold warns about a
# mktemp reference inside the static Foundation (docs/bench.md "Session 20").
RELEASE_FLAGS ?= --static-swift-stdlib -Xswiftc -use-ld=lld
FORMAT_PATHS = Package.swift Sources Tests/*Tests bench/Sources fuzz/Sources ctcheck/Sources
# Debug builds compile scrypt's kernel with optimization too (Package.swift, scryptKernelSettings).
export WALLETOPS_OPTIMIZE_SCRYPT_KERNEL = 1

.PHONY: all bootstrap build test demo bench bench-micro fuzz fuzz-replay ct-check format format-check clean install

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)

## make test: format check, a warning-free build, and every test.
test: bootstrap format-check
	scripts/python-oracles.sh
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	# Two processes: the command-line suites wait on child processes (walletops runs, SIGKILL tests) and
	# can hold every cooperative thread of a 2-core machine for minutes, which starves the timers and
	# servers of the in-process suites when they share a process.
	# At most 8 tests at a time in the in-process suites: unbounded, about 250 cores and their HTTP servers
	# were open at once (2,000-2,700 descriptors), and Foundation's Process.run, which walks every open
	# descriptor to close it in the child, crashed in CI (SIGSEGV in memcpy). Bounded, the suites peak
	# near 130 descriptors and OMSCoreTests ran in 115 s instead of 129 s.
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 WALLETOPS_TEST_PASSWORD=pässword $(SWIFT) test $(SWIFT_FLAGS) --skip WalletOpsCLITests
	WALLETOPS_TEST_PASSWORD=pässword $(SWIFT) test $(SWIFT_FLAGS) --filter WalletOpsCLITests

## make demo: a fresh demo home, sign in, seed-demo, the four jobs on the example inputs (docs/jobs.md).
demo: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)
	scripts/demo.sh

## make bench: the cases of issue 9 through the real CLI beside the Python peers and the C floors, one
## table (release build; docs/bench.md). BENCH_SCALE=full adds the 1,000,000-row scaling rows.
bench: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product walletops-bench
	$(SWIFT) build -c release $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product walletops
	scripts/bench.sh

## make bench-micro: the in-process micro tables (crypto, ed25519, engine, core, access, import).
bench-micro: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product walletops-bench
	scripts/bench-micro.sh

## make fuzz: each parser of outside input under libFuzzer for FUZZ_SECONDS (default 20) seconds, seeded
## from fuzz/corpus (scripts/fuzz.sh; issue 28). A longer campaign: make fuzz FUZZ_SECONDS=3600.
fuzz: bootstrap
	$(SWIFT) build --build-path .build/fuzz --product walletops-fuzz -Xswiftc -sanitize=fuzzer \
		-Xswiftc -DFUZZING $(SWIFT_FLAGS)
	scripts/fuzz.sh

## make fuzz-replay: the seeds and kept crash inputs through every target, without libFuzzer (seconds).
fuzz-replay: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS) --product walletops-fuzz
	for target in $$(ls fuzz/corpus); do .build/debug/walletops-fuzz $$target fuzz/corpus/$$target || exit 1; done

## make ct-check: the Ed25519 derivation and ROMix under valgrind memcheck with their secrets marked
## undefined (scripts/ct-check.sh; issue 28). Needs valgrind.
# valgrind 3.19 (Debian 12) decodes AVX2 but not AVX-512 (SIGILL under memcheck): the check's own build
# stops at Haswell's instructions, so on an AVX-512 machine it checks the four-lane Ed25519 path.
CT_TARGET_CPU = $(if $(filter skylake-avx512,$(TARGET_CPU)),haswell,$(TARGET_CPU))
ct-check: bootstrap
	$(SWIFT) build --build-path .build/ctcheck -Xswiftc -warnings-as-errors \
		$(if $(CT_TARGET_CPU),-Xswiftc -target-cpu -Xswiftc $(CT_TARGET_CPU)) --product walletops-ctcheck
	CT_BINARY=.build/ctcheck/debug/walletops-ctcheck scripts/ct-check.sh

format:
	$(SWIFT) format -i -r $(FORMAT_PATHS)

format-check:
	$(SWIFT) format lint --strict -r $(FORMAT_PATHS)

clean:
	rm -rf .build

## make install PREFIX=/usr/local: the release binary, the jobs' playbooks and the bash completion.
PREFIX ?= /usr/local
install: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product walletops
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/walletops/jobs \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/walletops" $(DESTDIR)$(PREFIX)/bin/walletops
	install -m 0644 jobs/*.yaml $(DESTDIR)$(PREFIX)/share/walletops/jobs/
	$(DESTDIR)$(PREFIX)/bin/walletops completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/walletops
