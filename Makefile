# The two commands: `make demo` (the product's main job) and `make test` (every test). Both set up first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: deps build test demo study dashboard bench fuzz clean

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@scripts/test.sh $(BUILD)

demo: build
	@scripts/demo.sh $(BUILD)

# The full CPU reproduction (about half an hour on 2 cores): writes docs/results.md and its figures from its run.
study: build
	@scripts/study.sh $(BUILD)

# Serves the dashboard over the demo's database (after `make demo`).
dashboard: build
	@scripts/dashboard.sh $(BUILD)

bench: build
	@scripts/bench.sh $(BUILD)

# Runs each libFuzzer target (tests/fuzz) for 60 s in its own clang build; `make test` replays the corpus.
fuzz:
	@scripts/fuzz.sh

clean:
	rm -rf $(BUILD)
