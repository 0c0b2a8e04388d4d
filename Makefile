# The two commands: `make demo` (the product's main job) and `make test` (every test). Both set up first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: study-wsd arms deps build test demo package study dashboard bench fuzz calibrate clean own-script mlflow-example

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DGAMMALAB_TESTS=ON -DGAMMALAB_BENCH=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@scripts/test.sh $(BUILD)

# The demo installs and builds only what it runs: the four binaries, not the tests (a later `make test` adds
# them to the same build folder).
DEMO_TARGETS = gammalab gammalab-server gammalab-worker gammalab-train
demo:
	@scripts/deps.sh demo
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DGAMMALAB_TESTS=OFF -DGAMMALAB_BENCH=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@scripts/demo.sh $(BUILD)

# Debian packages of the four binaries and their shared files, in $(BUILD) (docs/deploy.md, "Installing").
package:
	@scripts/deps.sh demo
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@cd $(BUILD) && cpack

# The full CPU reproduction (about 70 minutes on 2 cores): writes docs/results.md and its figures from its run.
study: build
	@scripts/study.sh $(BUILD)

# The 2026 rival arms beside baseline, qknorm and unified at one size (docs/variants.md; about ten minutes on
# 2 cores), in BUILD/arms; rewrites the arms part of docs/results.md.
arms: build
	@scripts/arms.sh $(BUILD)

# The WSD ladder with cooldown branches (docs/branches.md; minutes on 2 cores): its cost against independent runs
# and its L(N, D) fit, in BUILD/study-wsd.
study-wsd: build
	@scripts/study_wsd.sh $(BUILD)

# A PyTorch script of your own trained as a sweep through the command contract (docs/own-program.md; a minute).
own-script: build
	@scripts/own_script.sh $(BUILD)

# Runs kept in an MLflow tracking server imported and fitted (docs/own-program.md, "Runs in"; a minute).
mlflow-example: build
	@scripts/mlflow_example.sh $(BUILD)

# Serves the dashboard over the demo's database (after `make demo`; nothing is installed or built again).
dashboard:
	@scripts/dashboard.sh $(BUILD)

bench: build
	@scripts/bench.sh $(BUILD)

# Every calibration scenario of the verdict's intervals with 1,000 simulated studies each (tens of minutes on 2
# cores; `make test` runs them with 200): the table of docs/scaling-laws.md, "Calibration".
calibrate: build
	@scripts/calibrate.sh $(BUILD)

# Runs each libFuzzer target (tests/fuzz) for 60 s in its own clang build; `make test` replays the corpus.
fuzz:
	@scripts/fuzz.sh

clean:
	rm -rf $(BUILD)
