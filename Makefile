# webgguf — build, test, demo. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO_ADDR ?= 127.0.0.1:8080

.PHONY: all test test-long deps test-go test-js wasm wasm-test dist npm demo bench generate lint fuzz fuzz-targets fuzz-long

all: wasm

# deps installs what the tests need on a fresh Debian machine, only when missing.
deps:
	@if ! command -v chromium >/dev/null || ! ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; then \
		echo "installing chromium and mesa-vulkan-drivers (lavapipe)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium mesa-vulkan-drivers; \
	fi
	@if [ -f package.json ] && [ ! -d node_modules ]; then npm ci --no-audit --no-fund; fi
	@if [ ! -d scripts/oracle/node_modules ]; then cd scripts/oracle && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm ci --no-audit --no-fund --omit=optional --ignore-scripts; fi
	@if [ ! -d scripts/jinja-oracle/node_modules ]; then cd scripts/jinja-oracle && npm ci --no-audit --no-fund; fi
	@[ -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ] || (echo "installing vulkan-validationlayers (compute/gpu's validation test)"; $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq vulkan-validationlayers)
	@python3 -c "import jinja2" 2>/dev/null || (echo "installing python3-jinja2 (chat oracle)"; $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-jinja2)
	@if [ ! -d jsbindings/node_modules ]; then cd jsbindings && npm ci --no-audit --no-fund; fi
	@if [ ! -d examples/vite/node_modules ]; then cd examples/vite && npm ci --no-audit --no-fund; fi
	@if [ ! -d scripts/bench/node_modules ]; then cd scripts/bench && npm ci --no-audit --no-fund; fi

test: deps lint test-go test-js

# What runs where:
#   make test       every package once (`go test`, below), lint and the JS tests: what CI runs.
#   make test-long  every Go package with the `long` build tag: the default cases plus the
#                   exhaustive sweeps (internal/longtest: every attention variant and tiling on
#                   every shape, the f32-cache kernel cases, duplicate fixtures, the unsplit
#                   q8_0 browser runs, whole greedy runs in Chromium).
# One go test for every package, the slowest listed first: go test starts
# packages in the order given, so the Chromium pages (scripts/harness,
# browsercheck, gpuloadcheck) and lavapipe (compute/gpu, which pins
# lavapipe to one thread, and shaders) start first and the short
# packages fill in beside them. TEST_P packages run at a time (3: compute/gpu
# keeps one core busy beside the two Chromium packages); lavapipe
# beside Chromium is safe since webgpu stopped using wgpu's blocking poll
# (the cause of the old SIGSEGVs, compute/gpu's package doc).
# scripts/harness alone ran 1101 s on a loaded clean-clone run
# (2026-12-02), compute/gpu 1036 s (2026-11-28), hence 30 minutes a package.
SLOWEST = ./scripts/harness ./compute/gpu/internal/browsercheck ./compute/gpu ./shaders ./worker/enginehost/internal/gpuloadcheck ./tokenizer
TEST_P ?= 3
test-go:
	$(GO) test -timeout 30m -p $(TEST_P) $(SLOWEST) ./...

test-long: deps
	$(GO) test -tags long -timeout 90m -p $(TEST_P) $(SLOWEST) ./...

test-js:
	@if [ -f package.json ]; then npm test; fi
	cd jsbindings && npm test

wasm:
	mkdir -p build
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o build/engine.wasm ./wasm
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" build/
	cp worker/worker.js build/
	cp webgpu/runtime.js build/webgpu-runtime.js

# dist fills the package's dist/ (the engine and its JS runtime): what the
# demo serves and the tarball ships.
# wasm-test builds the test engine, build/engine-test.wasm: the release
# engine plus the test messages' handlers (echo, stream, crash, stats, the
# OPFS loader and first-token diagnostics) and the benchmark page knobs
# (build tag webgguf_test). The harness's test pages load it; npm never
# ships it.
wasm-test: wasm
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -tags webgguf_test -o build/engine-test.wasm ./wasm

dist: wasm
	mkdir -p jsbindings/dist && cp build/engine.wasm build/wasm_exec.js build/worker.js build/webgpu-runtime.js jsbindings/dist/

# npm writes the package tarball, jsbindings/webgguf-<version>.tgz, after
# checking that `npm publish --dry-run` passes (offline: it does not ask the
# registry whether the version is taken), and prints the sizes (brotli 11 of
# the engine takes about a minute, so only here).
npm: dist
	rm -f jsbindings/webgguf-*.tgz
	cd jsbindings && npm publish --dry-run --offline --ignore-scripts --loglevel=warn
	cd jsbindings && npm pack --offline --ignore-scripts --loglevel=warn
	node jsbindings/scripts/sizes.mjs

# demo builds build/demo (the chat, basic, extract, search and PWA examples,
# the package, gotiny and tiny-bert, their local models) and serves it on
# $(DEMO_ADDR).
demo: dist
	rm -rf build/demo && mkdir -p build/demo/jsbindings build/demo/testdata/models
	mkdir -p build/demo/examples && cp -r examples/basic examples/chat examples/extract examples/search examples/pwa build/demo/examples/
	cp -r jsbindings/src jsbindings/dist build/demo/jsbindings/
	cp testdata/models/gotiny-q4_k_m.gguf testdata/models/tiny-bert-f16.gguf build/demo/testdata/models/
	printf '<!doctype html><meta http-equiv="refresh" content="0;url=examples/chat/">' > build/demo/index.html
	@echo "chat demo: http://$(DEMO_ADDR)/examples/chat/  (gotiny preselected; basic: /examples/basic/, extract: /examples/extract/, search: /examples/search/, offline PWA: /examples/pwa/)"
	$(GO) run ./scripts/serve -dir build/demo -addr $(DEMO_ADDR)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

generate:
	$(GO) generate ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags long ./...
	@if command -v staticcheck >/dev/null; then staticcheck ./...; else GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.7.0 && "$$($(GO) env GOPATH)/bin/staticcheck" ./...; fi

# fuzz: every fuzz target with a short budget (FUZZTIME=30s or =100000x overrides them all);
# fuzz-targets first checks that every `func Fuzz…` of the repository is listed here.
fuzz: fuzz-targets
	$(GO) test -run '^$$' -fuzz FuzzOpen -fuzztime $(or $(FUZZTIME),120s) ./gguf
	$(GO) test -run '^$$' -fuzz FuzzDequantize -fuzztime $(or $(FUZZTIME),60s) ./gguf
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime $(or $(FUZZTIME),120s) -parallel 1 ./glue
	$(GO) test -run '^$$' -fuzz FuzzHandlers -fuzztime $(or $(FUZZTIME),60s) -fuzzminimizetime 10x ./worker/enginehost
	$(GO) test -run '^$$' -fuzz FuzzEncode -fuzztime $(or $(FUZZTIME),60s) ./tokenizer
	$(GO) test -run '^$$' -fuzz FuzzLoadEval -fuzztime $(or $(FUZZTIME),60s) -fuzzminimizetime 1x ./engine
	$(GO) test -run '^$$' -fuzz FuzzRender -fuzztime $(or $(FUZZTIME),60s) ./chat
	$(GO) test -run '^$$' -fuzz FuzzSample -fuzztime $(or $(FUZZTIME),60s) ./sample
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(or $(FUZZTIME),60s) ./opfs
	$(GO) test -run '^$$' -fuzz FuzzGrammar -fuzztime $(or $(FUZZTIME),60s) ./sample/grammar
	$(GO) test -run '^$$' -fuzz FuzzToGrammar -fuzztime $(or $(FUZZTIME),60s) ./sample/jsonschema

fuzz-targets:
	@missing=$$(for f in $$(grep -rhoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' . | cut -d' ' -f2 | sort -u); do \
		grep -qE -- "-fuzz $$f( |$$)" Makefile || echo "$$f"; done); \
	if [ -n "$$missing" ]; then echo "fuzz targets missing from make fuzz:" $$missing; exit 1; fi

# fuzz-long: the untrusted-input parsers for a fixed number of executions, one target at a time
# (issue 28's closing runs: FuzzOpen and FuzzDecode 10 M, FuzzRender 2 M; FUZZ_LONG and
# FUZZ_LONG_RENDER change the counts, FUZZ_PARALLEL the workers: default GOMAXPROCS).
# Minimization is capped so that a new interesting input does not stall the run for a minute.
FUZZ_LONG ?= 10000000x
FUZZ_LONG_RENDER ?= 2000000x
fuzz-long: fuzz-targets
	$(GO) test -run '^$$' -fuzz FuzzOpen -fuzztime $(FUZZ_LONG) -fuzzminimizetime 100x $(if $(FUZZ_PARALLEL),-parallel $(FUZZ_PARALLEL)) ./gguf
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZ_LONG) -fuzzminimizetime 100x $(if $(FUZZ_PARALLEL),-parallel $(FUZZ_PARALLEL)) ./glue
	$(GO) test -run '^$$' -fuzz FuzzRender -fuzztime $(FUZZ_LONG_RENDER) -fuzzminimizetime 100x $(if $(FUZZ_PARALLEL),-parallel $(FUZZ_PARALLEL)) ./chat

# bench-opfs: download a generated ≥ 1 GiB model into OPFS in headless Chromium and stream it to the GPU (GB/s, wasm growth, JS heap), then load it through the public engine.load(id) on WebGPU (wasm growth asserted ≤ 32 MiB, OPFS → GPU GB/s, load() → first token, the worker's load phases). BENCH_OPFS_PRESET=llama-3.2-1b:q4_0 uses a gen preset instead (its tokenizer's wasm growth bound: 160 MiB).
bench-opfs:
	$(GO) test -run '^$$' -bench OPFSLoad -benchtime 1x -timeout 30m -v ./scripts/harness

# bench-browser: webgguf's CPU fallback vs wllama 3.8.1 single-thread in headless Chromium without WebGPU (gotiny and a generated ~100M model): prefill/decode tok/s and ratios.
bench-browser: deps
	$(GO) test -run '^$$' -bench BrowserCPU -benchtime 1x -timeout 30m -v ./scripts/bench

# bench-browser-gpu: webgguf on WebGPU vs wllama 3.8.1 asked for WebGPU (1 and 2 threads) in headless Chromium with WebGPU (SwiftShader here): backend each really used, prefill/decode tok/s, wasm/GPU-buffer/JS-heap peaks and ratios (scripts/bench/RESULTS.md).
bench-browser-gpu: deps
	$(GO) test -run '^$$' -bench BrowserGPU -benchtime 1x -timeout 90m -v ./scripts/bench

# test-tokenizer-long: the llama.cpp differential tokenizer test with many more random strings.
test-tokenizer-long:
	WEBGGUF_ORACLE_N=40000 WEBGGUF_ORACLE_SEED=$${WEBGGUF_ORACLE_SEED:-1} $(GO) test -count=1 -run Oracle -timeout 60m -v ./tokenizer
