# Two commands on a fresh Debian 12 machine with Swift:
#   make run    install what is missing, build (release), serve on 127.0.0.1:8080 with SQLite
#   make test   install what is missing, build, run every test (PostgreSQL ones included)
#   make demo   install what is missing, build, run opt-in, authentication and KYC on sample frames
SWIFT ?= swift
DATA_DIR ?= .custos
PORT ?= 8080
BIN := .build/release/custos

.PHONY: run test demo deps build clean bench-http

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release

run: build
	$(BIN) serve --dev --data-dir $(DATA_DIR) --host 127.0.0.1 --port $(PORT) --issuer http://localhost:$(PORT)

# Serves itself on a temporary SQLite directory: no `make run` needed.
demo: build
	$(BIN) demo

# Face code is slow unoptimised, so tests build and run in release. PostgreSQL tests run
# against a throwaway cluster that scripts/with-postgres.sh starts and always stops; a
# missing PostgreSQL, ../shared/data or face model fails the run instead of skipping tests.
test: deps
	CUSTOS_REQUIRE_POSTGRES=1 CUSTOS_REQUIRE_FACES=1 CUSTOS_REQUIRE_BROWSER=1 CUSTOS_REQUIRE_CLIENTS=1 scripts/with-postgres.sh scripts/run-tests.sh

bench-http: build
	bench/http.sh

clean:
	rm -rf .build
