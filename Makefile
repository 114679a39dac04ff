# Lectern: common tasks. `make run` starts the server on the embedded
# default; `make test` runs the tests (the S3 ones only with TEST_S3_URL set,
# the PostgreSQL ones on TEST_DATABASE_URL or a local server: .ci/run sets
# both up); `make install` puts the lectern command on PATH.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -s -w -X lectern.dev/lectern/cli.Version=$(VERSION) -X lectern.dev/lectern/cli.Commit=$(COMMIT) -X lectern.dev/lectern/cli.Date=$(DATE)

# Release targets: every OS/architecture pair a release ships.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

.PHONY: run test build install cross dist bench fuzz

run:
	$(GO) run ./cmd/lectern serve

test:
	$(GO) test -count=1 -timeout 15m ./...

# build writes ./lectern, for this machine, with its version stamped.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o lectern ./cmd/lectern

# install builds as build does into $(go env GOBIN), or $(go env GOPATH)/bin,
# which must be on PATH.
install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/lectern
	@echo "installed $$(gobin=$$($(GO) env GOBIN); echo $${gobin:-$$($(GO) env GOPATH)/bin})/lectern"

# cross checks that every release platform builds (CI runs it). Without the
# release flags, so that the host platform reuses the tests' build cache.
cross:
	@for p in $(PLATFORMS); do \
	  echo "build $$p"; \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -o /dev/null ./cmd/lectern || exit 1; \
	done

# dist writes release archives, one per platform, and their SHA-256 sums
# into dist/: lectern_VERSION_OS_ARCH.tar.gz holding the static binary,
# README.md and CHANGELOG.md.
dist:
	@rm -rf dist && mkdir -p dist
	@for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; name=lectern_$(VERSION)_$${os}_$${arch}; \
	  echo "build $$name"; \
	  mkdir -p dist/$$name && \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o dist/$$name/lectern ./cmd/lectern && \
	  cp README.md CHANGELOG.md dist/$$name/ && \
	  tar -C dist -czf dist/$$name.tar.gz $$name && rm -rf dist/$$name || exit 1; \
	done
	@cd dist && sha256sum *.tar.gz > SHA256SUMS && cat SHA256SUMS

bench:
	./bench/api.sh

fuzz:
	$(GO) test -run=^$$ -fuzz=FuzzCheckAPIKey -fuzztime=30s .
	$(GO) test -run=^$$ -fuzz=FuzzNormalizeDomain -fuzztime=30s .
	$(GO) test -run=^$$ -fuzz=FuzzServerHosts -fuzztime=30s .
	$(GO) test -run=^$$ -fuzz=FuzzExtract -fuzztime=30s ./selfhost
	$(GO) test -run=^$$ -fuzz=FuzzParse -fuzztime=30s ./render/openapi
	$(GO) test -run=^$$ -fuzz=FuzzPagePaths -fuzztime=30s ./render/openapi
	$(GO) test -run=^$$ -fuzz=FuzzActiveContent -fuzztime=30s ./render
	$(GO) test -run=^$$ -fuzz=FuzzJS -fuzztime=30s ./render/mdx
	$(GO) test -run=^$$ -fuzz=FuzzRender -fuzztime=30s ./render/pagemd
	$(GO) test -run=^$$ -fuzz=FuzzMarkupOf -fuzztime=30s ./render/pagemd
	$(GO) test -run=^$$ -fuzz=FuzzExternalCSSURLs -fuzztime=30s ./render
	$(GO) test -run=^$$ -fuzz=FuzzLook -fuzztime=30s ./render/config
