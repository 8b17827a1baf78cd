# Loopdesk. `make run` sets up, builds and opens the app; `make test` sets up
# and runs every test. See README.md.
SHELL := /bin/bash
TAGS      := desktop,production,webkit2_41,sqlite_fts5
DEV_TAGS  := desktop,dev,webkit2_41,sqlite_fts5
GO        ?= go
export GOFLAGS := $(GOFLAGS) -buildvcs=false
BIN       := build/bin
# The version the binary reports and the .deb carries (scripts/version.sh):
# CI builds with -buildvcs=false, so it is stamped in with -ldflags -X.
VERSION_INFO := $(shell scripts/version.sh)
VERSION   := $(word 1,$(VERSION_INFO))
COMMIT    := $(word 2,$(VERSION_INFO))
LDFLAGS   := -X github.com/loopdesk/loopdesk/backend/cli.Version=$(VERSION) -X github.com/loopdesk/loopdesk/backend/cli.Commit=$(COMMIT)
NFPM      := .tools/bin/nfpm
DEB       := $(BIN)/loopdesk_$(VERSION)_amd64.deb
FRONTEND_SRC := $(shell find frontend/src frontend/wailsjs -type f 2>/dev/null) frontend/index.html frontend/vite.config.ts

.PHONY: run build dev test test-go test-frontend test-e2e test-package package vet bench soak fuzz deps deps-test bindings types screenshot clean FORCE

run: build
	./$(BIN)/loopdesk

build: deps $(BIN)/loopdesk $(BIN)/loopdesk-window $(BIN)/loopdesk-sandbox-exec

deps: .stamps/system .stamps/npm-frontend

deps-test: deps .stamps/system-test .stamps/npm-e2e

.stamps/system: scripts/bootstrap.sh
	scripts/bootstrap.sh
	@mkdir -p .stamps && touch $@

.stamps/system-package: scripts/bootstrap.sh
	scripts/bootstrap.sh package
	@mkdir -p .stamps && touch $@

.stamps/system-test: scripts/bootstrap.sh
	scripts/bootstrap.sh test
	@mkdir -p .stamps && touch $@

.stamps/npm-frontend: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@mkdir -p .stamps && touch $@

# Real MCP servers (pinned) the Go tests of backend/mcp start.
.stamps/npm-mcp: backend/mcp/testdata/npm/package-lock.json
	cd backend/mcp/testdata/npm && npm ci --no-audit --no-fund
	@mkdir -p .stamps && touch $@

# The pinned ACP client (@agentclientprotocol/sdk) the Go tests of backend/acp drive
# `loopdesk acp` with.
.stamps/npm-acp: backend/acp/testdata/npm/package-lock.json
	cd backend/acp/testdata/npm && npm ci --no-audit --no-fund
	@mkdir -p .stamps && touch $@

.stamps/npm-e2e: e2e/package-lock.json
	cd e2e && npm ci --no-audit --no-fund
	@mkdir -p .stamps && touch $@

frontend/dist/index.html: .stamps/npm-frontend $(FRONTEND_SRC)
	cd frontend && npm run build
	@touch frontend/dist/.gitkeep

# Rewritten only when the version changes, so a new commit relinks the binaries.
build/.version: FORCE
	@mkdir -p build && echo '$(VERSION) $(COMMIT)' | cmp -s - $@ || echo '$(VERSION) $(COMMIT)' >$@

GO_SRC := $(shell find . -name '*.go' -not -path './frontend/*' -not -path './e2e/*')

# What people run: the commands, and the window by exec'ing loopdesk-window (found beside it,
# then in /usr/lib/loopdesk). It links no GTK or WebKit, so a command starts in milliseconds.
$(BIN)/loopdesk: $(GO_SRC) go.mod go.sum build/.version
	$(GO) build -tags $(TAGS) -ldflags "-w -s $(LDFLAGS)" -o $@ ./cmd/loopdesk

# The window program (the root package): the page embedded, GTK and WebKit linked.
$(BIN)/loopdesk-window: frontend/dist/index.html $(GO_SRC) go.mod go.sum build/.version
	$(GO) build -tags $(TAGS) -ldflags "-w -s $(LDFLAGS)" -o $@ .

# The whole app in one binary (the window program's package runs every command too).
$(BIN)/loopdesk-dev: frontend/dist/index.html $(GO_SRC) go.mod go.sum build/.version
	$(GO) build -tags $(DEV_TAGS) -ldflags "$(LDFLAGS)" -o $@ .

# The .deb (README "Install"): /usr/bin/loopdesk, /usr/lib/loopdesk/loopdesk-window, the
# .desktop file, hicolor icons, the man page; see build/package/nfpm.yaml.
package: deps .stamps/system-package $(DEB)

$(DEB): $(BIN)/loopdesk $(BIN)/loopdesk-window $(BIN)/loopdesk-sandbox-exec $(NFPM) build/package/nfpm.yaml build/package/loopdesk.1 build/loopdesk.desktop build/appicon.png scripts/package.sh
	scripts/package.sh $(NFPM) $(VERSION)

$(NFPM):
	GOBIN=$(CURDIR)/.tools/bin $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2

# The Landlock helper the sandbox runs inside bwrap (docs/sandbox.md): static, found by
# sandbox.Detect next to the app's binary, so every build of the app gets it beside it.
$(BIN)/loopdesk-sandbox-exec: $(shell find backend/sandbox -name '*.go')
	CGO_ENABLED=0 $(GO) build -o $@ ./backend/sandbox/cmd/loopdesk-sandbox-exec

$(BIN)/fakeai: $(shell find backend/fakeai -name '*.go')
	$(GO) build -o $@ ./backend/fakeai/cmd/fakeai

# The dev-server build: open http://localhost:34115 in a browser to use the
# real Go backend from a page (this is what the end-to-end tests drive).
dev: deps $(BIN)/loopdesk-dev $(BIN)/loopdesk-sandbox-exec
	./$(BIN)/loopdesk-dev -assetdir frontend/dist -devserver localhost:34115

test: deps-test vet test-go test-frontend test-e2e test-package

# Installs the .deb on this machine, checks it and removes it (root or sudo).
test-package: deps-test package
	scripts/test-package.sh $(DEB)

vet: frontend/dist/index.html
	$(GO) vet -tags $(TAGS) ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# LOOPDESK_REQUIRE_MCP_NPM=1 / LOOPDESK_REQUIRE_ACP_NPM=1: the MCP and ACP tests fail instead of
# skipping when their npm packages are missing.
test-go: frontend/dist/index.html .stamps/npm-mcp .stamps/npm-acp
	LOOPDESK_REQUIRE_MCP_NPM=1 LOOPDESK_REQUIRE_ACP_NPM=1 $(GO) test -race -count=1 -tags $(TAGS) ./...

test-frontend: .stamps/npm-frontend
	cd frontend && npx tsc --noEmit && npx vitest run

test-e2e: deps-test .stamps/npm-mcp $(BIN)/loopdesk-dev $(BIN)/loopdesk-sandbox-exec $(BIN)/fakeai
	xvfb-run -a -s "-screen 0 1280x800x24" node --test --test-concurrency=1 e2e/tests/

# The long fault runs (docs/reliability.md): an I/O error at every write, sync and read of a scripted
# run's database, and 50 full disks (make test runs a spread of them).
soak: frontend/dist/index.html .stamps/system-test
	LOOPDESK_SOAK=1 $(GO) test -count=1 -tags $(TAGS) -run 'TestRunEIOAtEvery|TestRunFullDisk' -v ./backend/cli/

# Every fuzz target of a parser of outside input (docs/reliability.md, "Fuzzing") for FUZZTIME
# each, one at a time (go test -fuzz takes one target of one package). A crash found is written
# to the package's testdata/fuzz/<target>/, which `make test` replays: commit it with the fix.
# One target: make fuzz FUZZ_TARGETS=tools:FuzzToolArguments FUZZTIME=5m
FUZZTIME ?= 30s
FUZZ_TARGETS ?= provider:FuzzOpenAIStream provider:FuzzAnthropicStream checkpoint:FuzzImportSession \
	config:FuzzProvidersFile mcp:FuzzMCPConfig hooks:FuzzHooksSettings agents:FuzzAgentDefinition \
	agents:FuzzSkillFile acp:FuzzACPMessages tools:FuzzToolArguments
fuzz: frontend/dist/index.html
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $$t for $(FUZZTIME)"; \
		$(GO) test -count=1 -tags $(TAGS) -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s ./backend/$${t%%:*}/; \
	done

bench: deps .stamps/system-test .stamps/npm-acp $(BIN)/loopdesk $(BIN)/loopdesk-window $(BIN)/loopdesk-dev $(BIN)/fakeai
	scripts/bench.sh

# Regenerates the page's types (frontend/src/api/wire.ts) and the bound methods' stubs typed
# with them (frontend/wailsjs/go) from the Go types (scripts/gentypes); `bindings` is the same.
# Commit the result: TestWireTypesAreCurrent fails when it is stale.
types bindings:
	$(GO) run -tags $(TAGS) ./scripts/gentypes

# The committed screenshots (docs/screenshots.md): the real window under Xvfb, then the
# end-to-end runs with LOOPDESK_UPDATE_SCREENSHOTS=1, which lets their docShot()s overwrite
# docs/screenshots/. Only this target writes there: `make test` leaves a clone's git status clean.
screenshot: build deps-test .stamps/npm-mcp $(BIN)/fakeai $(BIN)/loopdesk-dev $(BIN)/loopdesk-sandbox-exec
	scripts/screenshot.sh
	LOOPDESK_UPDATE_SCREENSHOTS=1 xvfb-run -a -s "-screen 0 1280x800x24" node --test --test-concurrency=1 e2e/tests/

clean:
	rm -rf $(BIN) .stamps .tools build/.version frontend/dist/assets frontend/dist/index.html
