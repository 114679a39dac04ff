# Lectern: common tasks. `make run` starts the server on the embedded
# default; `make test` runs every test.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -s -w -X lectern.dev/lectern/cli.Version=$(VERSION) -X lectern.dev/lectern/cli.Commit=$(COMMIT) -X lectern.dev/lectern/cli.Date=$(DATE)

.PHONY: run test build bench fuzz

run:
	$(GO) run ./cmd/lectern serve

test:
	$(GO) test -count=1 -timeout 15m ./...

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o lectern ./cmd/lectern

bench:
	./bench/api.sh

fuzz:
	$(GO) test -run=^$$ -fuzz=FuzzCheckAPIKey -fuzztime=30s .
	$(GO) test -run=^$$ -fuzz=FuzzNormalizeDomain -fuzztime=30s .
	$(GO) test -run=^$$ -fuzz=FuzzExtract -fuzztime=30s ./selfhost
