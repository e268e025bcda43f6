# kregress: every target installs what it needs (Debian 12, as root).
#   make run    install, build, run the default experiment, print its verdict
#   make test   install, build, run unit tests and the end-to-end test
#   make bench  print build/boot/first-run/night figures (not timed tests) into docs/benchmarks.md
#   make bench-durations  measure only the first run and the nights, keeping the page's other figures
#   make calibrate  print the decision rules' error rates on simulated data
#   make fuzz   run every Fuzz* target in the repo for FUZZTIME each
#   make man    write the man pages (bin/man/man1) from the command tree
#   make install  install kregress, kagent and the man pages under PREFIX

GO      ?= go
BIN     := bin
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.Version=$(VERSION) -X github.com/kregress/kregress/orchestrator/pipeline.Version=$(VERSION)

# Debian packages the pipeline runs: QEMU, the kernel source, what a kernel
# build needs, the guest image's busybox, GNU patch, ccache; the
# benchmarks of the built-in benchmark experiments (hackbench, stress-ng,
# fio), packed into the guest image with their libraries; the libraries
# kselftest targets link (selftests.targets): libpopt-dev for mqueue
# (its Makefile links every program with -lpopt), libcap-dev for clone3
# (-lcap).
DEB_PACKAGES := qemu-system-x86 linux-source-6.12 build-essential flex bison bc \
	libelf-dev libssl-dev cpio xz-utils lz4 busybox-static bash-static patch ccache git ca-certificates \
	rt-tests stress-ng fio libpopt-dev libcap-dev
# What only the tests need: a PostgreSQL server for the team-store tests,
# Chromium to check that the HTML report's plots render, systemd to verify
# the nightly's units, Slurm and munge for the clusters that the Slurm
# executor's tests start (iproute2 for the namespaces of the one with
# several nodes); Debian's 6.1 kernel source, the second tree the
# end-to-end tests build (orchestrator/e2e/kernel61_test.go).
TEST_PACKAGES := postgresql chromium systemd slurm-wlm munge iproute2 linux-source-6.1

.PHONY: all build deps test-deps run test unit bench bench-durations calibrate calibrate-docs fuzz vet man install clean

all: build

deps: PACKAGES = $(DEB_PACKAGES)
test-deps: PACKAGES = $(DEB_PACKAGES) $(TEST_PACKAGES)
deps test-deps:
	@missing=""; for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "run as root (or install:$$missing)"; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	$(GO) mod download

build:
	mkdir -p $(BIN)
	# kagent goes into every guest image: without its symbol table and
	# DWARF (-s -w; panics still name functions) the image the kernel
	# unpacks on every boot is 2.5 MB smaller.
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS) -s -w" -o $(BIN)/kagent ./guest/cmd/kagent
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/kregress ./orchestrator/cmd/kregress

run: deps build
	$(BIN)/kregress run

# Man pages come from the command tree (cobra's doc generator), so they
# say what --help says.
man: build
	rm -rf $(BIN)/man
	$(BIN)/kregress man $(BIN)/man/man1

# kagent goes beside kregress: the guest image takes the agent from
# there unless the configuration's agent key says otherwise.
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
install: build man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BIN)/kregress $(BIN)/kagent $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(BIN)/man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# Unit tests use fakes; the end-to-end test (orchestrator/e2e) builds the
# real kernel, boots both variants under TCG and runs a short workload. Its
# build cache lives outside the repo (KREGRESS_E2E_CACHE, default
# ~/.cache/kregress-e2e) so reruns compile nothing.
test: test-deps build vet
	KREGRESS_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 80m ./...

unit: build
	$(GO) test -count=1 -short ./...

# Every figure, the first run of a new machine and two nights included
# (about two hours on 2 cores without KVM); the README's durations block
# is rewritten from the page.
bench: deps build
	KREGRESS_BIN=$(CURDIR)/$(BIN) $(GO) run ./orchestrator/cmd/kregress-bench -markdown docs/benchmarks.md -readme README.md

# Only the README's first-run and night durations (with the boots and the
# cached rerun every bench run times): the page's other figures are kept,
# each row naming the run that measured it (-keep-unmeasured).
bench-durations: deps build
	KREGRESS_BIN=$(CURDIR)/$(BIN) $(GO) run ./orchestrator/cmd/kregress-bench -skip-cold -skip-git -skip-bisect -skip-experiment -sensitivity-boots 0 -keep-unmeasured -markdown docs/benchmarks.md -readme README.md

# The decision rules on simulated data through the product's own code:
# false alarms, power, bisect accuracy under drift and flaky crashes. Prints
# one table with the goal beside each figure; exits 1 if a row misses it.
calibrate:
	$(GO) run ./orchestrator/cmd/kregress-calibrate

# The same, and docs/calibration.md regenerated from it.
calibrate-docs:
	$(GO) run ./orchestrator/cmd/kregress-calibrate -markdown docs/calibration.md

# Every native fuzz target (func Fuzz* in any package: found with
# `go test -list`, so new targets join without editing this), one after
# another for FUZZTIME each. Inputs that fail are written to the
# package's testdata/fuzz/<target>/, which plain `go test` (make unit,
# make test) then runs as a regression test. Minimizing a new input is
# capped at FUZZMINIMIZETIME: with the default 60 s, a slow target (the
# YAML loader) spent its whole budget minimizing its first finds.
FUZZTIME         ?= 10m
FUZZMINIMIZETIME ?= 10s
FUZZFLAGS        ?=
fuzz:
	@list=$$(mktemp); trap 'rm -f $$list' EXIT; \
	$(GO) test -list '^Fuzz' ./... > $$list || { cat $$list; exit 1; }; \
	targets=$$(awk '/^Fuzz/ { n[++k] = $$1; next } /^ok/ { for (i = 1; i <= k; i++) print $$2 "," n[i]; k = 0 }' $$list); \
	test -n "$$targets" || { echo "fuzz: no Fuzz targets found"; exit 1; }; \
	echo "fuzz: $$(echo $$targets | wc -w) targets, $(FUZZTIME) each"; \
	failed=""; \
	for t in $$targets; do \
		pkg=$${t%,*}; name=$${t#*,}; \
		echo "== $$name ($$pkg)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $(FUZZFLAGS) $$pkg \
			|| failed="$$failed $$pkg.$$name"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: FAILED:$$failed"; exit 1; fi; \
	echo "fuzz: every target ran $(FUZZTIME) without a failure"

clean:
	rm -rf $(BIN)
