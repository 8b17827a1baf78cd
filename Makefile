# Loopdesk. `make run` sets up, builds and opens the app; `make test` sets up
# and runs every test. See README.md.
SHELL := /bin/bash
TAGS      := desktop,production,webkit2_41,sqlite_fts5
DEV_TAGS  := desktop,dev,webkit2_41,sqlite_fts5
GO        ?= go
export GOFLAGS := $(GOFLAGS) -buildvcs=false
BIN       := build/bin
FRONTEND_SRC := $(shell find frontend/src frontend/wailsjs -type f 2>/dev/null) frontend/index.html frontend/vite.config.ts

.PHONY: run build dev test test-go test-frontend test-e2e vet bench deps deps-test bindings screenshot clean

run: build
	./$(BIN)/loopdesk

build: deps $(BIN)/loopdesk $(BIN)/loopdesk-sandbox-exec

deps: .stamps/system .stamps/npm-frontend

deps-test: deps .stamps/system-test .stamps/npm-e2e

.stamps/system: scripts/bootstrap.sh
	scripts/bootstrap.sh
	@mkdir -p .stamps && touch $@

.stamps/system-test: scripts/bootstrap.sh
	scripts/bootstrap.sh test
	@mkdir -p .stamps && touch $@

.stamps/npm-frontend: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@mkdir -p .stamps && touch $@

.stamps/npm-e2e: e2e/package-lock.json
	cd e2e && npm ci --no-audit --no-fund
	@mkdir -p .stamps && touch $@

frontend/dist/index.html: .stamps/npm-frontend $(FRONTEND_SRC)
	cd frontend && npm run build
	@touch frontend/dist/.gitkeep

$(BIN)/loopdesk: frontend/dist/index.html $(shell find . -name '*.go' -not -path './frontend/*' -not -path './e2e/*') go.mod go.sum
	$(GO) build -tags $(TAGS) -ldflags "-w -s" -o $@ .

$(BIN)/loopdesk-dev: frontend/dist/index.html $(shell find . -name '*.go' -not -path './frontend/*' -not -path './e2e/*') go.mod go.sum
	$(GO) build -tags $(DEV_TAGS) -o $@ .

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

test: deps-test vet test-go test-frontend test-e2e

vet: frontend/dist/index.html
	$(GO) vet -tags $(TAGS) ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

test-go: frontend/dist/index.html
	$(GO) test -race -count=1 -tags $(TAGS) ./...

test-frontend: .stamps/npm-frontend
	cd frontend && npx tsc --noEmit && npx vitest run

test-e2e: deps-test $(BIN)/loopdesk-dev $(BIN)/loopdesk-sandbox-exec $(BIN)/fakeai
	xvfb-run -a -s "-screen 0 1280x800x24" node --test --test-concurrency=1 e2e/tests/

bench: deps frontend/dist/index.html
	scripts/bench.sh

# Regenerates frontend/wailsjs from the bound Go methods (needs the Wails CLI:
# go install github.com/wailsapp/wails/v2/cmd/wails@v2.13.0). Commit the result.
bindings:
	wails generate module -tags webkit2_41,sqlite_fts5

# A screenshot of the real window under Xvfb (docs/screenshots.md).
screenshot: build $(BIN)/fakeai
	scripts/screenshot.sh

clean:
	rm -rf $(BIN) .stamps frontend/dist/assets frontend/dist/index.html
