#!/bin/bash
# The browser benchmark (BenchmarkBrowserGPU: webgguf against wllama 3.8.1 in headless Chromium)
# on the lent GPU machine, which has neither Chromium nor Go. Measured with it: scripts/bench/
# RESULTS.md, "WebGPU on a real GPU".
#
# Here (the CPU machine, repository root):
#   bash scripts/bench/device-browser.sh pack-chromium .cp1 .cp2 .cp3
#       Debian's Chromium with every non-glibc library it links (~121 MB of xz), split in three
#       parts of ≤ 43.5 MB, one per folder: each device call carries at most 64 MiB with the tree.
#   bash scripts/bench/device-browser.sh pack .bb
#       The bench test binary, the wasm build (as HARNESS_PREBUILT wants it), the webgguf CLI (to
#       make the models there), wllama's files and this script (~11 MB).
#   Name the folders in .git/info/exclude.
#   bash scripts/bench/device-browser.sh hide-testdata   (before the three calls)
#   bash scripts/bench/device-browser.sh restore-testdata (after them)
#       The testdata models the device run does not need (gotiny, tiny-*, vocab-qwen3: ~38 MB) go to
#       /tmp/webgguf-testdata-aside and back, or the tree leaves no room for the parts.
# Then three device calls on one warm machine (≤ 30 s apart, or it is given back and the staged
# files are gone):
#   carry [".cp1"]:                mkdir -p /tmp/stage && cp .cp1/part.* /tmp/stage/
#   carry [".cp2"]:                cp .cp2/part.* /tmp/stage/
#   carry [".gl", ".cp3", ".bb"]:  for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#                                  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json;
#                                  bash .bb/device-browser.sh run
# `run` takes BENCH_* variables (gpu_test.go) from the environment; its defaults measure the 100M
# model and a Llama-3.2-1B-shaped q4_0 model, webgguf and wllama-mt on 16 threads. For webgguf
# alone with its profile, its greedy depth and its intervals between tokens, e.g.:
#   BENCH_ENGINES=webgguf BENCH_WARM=full BENCH_PROFILE=1 BENCH_GAPS=1 BENCH_DEPTH=3 bash .bb/device-browser.sh run
# BENCH_BATCH=N reads N greedy tokens back through one map (gpu.Backend.SetReadbackBatch; the
# depth then defaults to N+2 and is at least N+1); BENCH_BATCH=1 is one map per token, as before
# batching; unset, the browser's default (4 on a hardware adapter). To choose the default, in
# the third call (each `run` writes $OUT/browser.log, hence one folder per batch; ~2 min each):
#   for b in 1 2 4 8; do mkdir -p $OUT/b$b; echo "== batch $b"; OUT=$OUT/b$b BENCH_ENGINES=webgguf \
#     BENCH_MODEL=llama1b BENCH_GAPS=1 BENCH_BATCH=$b BENCH_TIMEOUT=130 bash .bb/device-browser.sh run; done
#
# `run-opfs` (a fourth call on the same warm machine, after `run` unpacked everything) runs
# `make bench-opfs` there on the GPU (HARNESS_GPU=1): a generated 1.1 GB model downloaded into OPFS,
# streamed to the GPU, then loaded through engine.load(id) to its first token (issue 10's loading
# goal: OPFS → GPU ≥ 1 GB/s, first token of a cached 1B model < 2 s). Its tree must hold
# testdata/models/gotiny-q4_k_m.gguf, tiny-llama-f16.gguf and tiny-llama-q8_0.gguf again (move
# them back before the call); carry [".gl", ".bb"] and run `bash .bb/device-browser.sh run-opfs`
# after the usual VK_DRIVER_FILES prefix. Figures: docs/BENCHMARKS.md, "The browser's
# model load". With those models back the tree is ~41 MB, too big beside a 43.5 MB part:
# move them back only for this call. To compare two wasm builds in one call, carry each build's
# pre.tar.xz in its own folder and run harness.test once per HARNESS_PREBUILT.
set -euo pipefail

case "${1:-}" in
pack-chromium)
	shift
	[ $# -eq 3 ] || { echo "usage: $0 pack-chromium DIR1 DIR2 DIR3" >&2; exit 2; }
	w=$(mktemp -d)
	mkdir -p "$w/chromium/lib"
	cp -a /usr/lib/chromium/. "$w/chromium/"
	# Vulkan's validation layer and mock driver are 23 MB nobody loads.
	rm -f "$w"/chromium/libVkLayer_khronos_validation.so* "$w"/chromium/libVkICD_mock_icd.so*
	{
		ldd /usr/lib/chromium/chromium
		ldd /usr/lib/chromium/libvk_swiftshader.so
		ldd /usr/lib/chromium/chrome_crashpad_handler
	} | awk '$3 ~ /^\// {print $3}' | sort -u |
		grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64)\.so' |
		xargs -I{} cp -L {} "$w/chromium/lib/"
	# NSS loads these by name at run time.
	for n in libsoftokn3.so libfreebl3.so libfreeblpriv3.so libnssckbi.so libnssdbm3.so; do
		[ -e "/usr/lib/x86_64-linux-gnu/$n" ] && cp -L "/usr/lib/x86_64-linux-gnu/$n" "$w/chromium/lib/"
	done
	cat > "$w/chromium/run.sh" <<'EOS'
#!/bin/sh
# Portable Debian Chromium: its libraries beside it, glibc from the host (2.36 or newer).
d=$(dirname "$(readlink -f "$0")")
export LD_LIBRARY_PATH="$d/lib:$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$d/chromium" "$@"
EOS
	chmod +x "$w/chromium/run.sh"
	tar cf - -C "$w" chromium | xz -7 -T2 > "$w/chromium.tar.xz"
	(cd "$w" && split -b 43500000 -d chromium.tar.xz part.)
	i=0
	for d in "$@"; do
		mkdir -p "$d"
		rm -f "$d"/part.*
		mv "$w/part.0$i" "$d/"
		i=$((i + 1))
	done
	rm -rf "$w"
	ls -la "$@"
	;;
pack)
	[ $# -eq 2 ] || { echo "usage: $0 pack DIR" >&2; exit 2; }
	d=$2
	w=$(mktemp -d)
	mkdir -p "$d" "$w/pre"
	GOOS=js GOARCH=wasm go build -trimpath -o "$w/pre/engine.wasm" ./wasm
	cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" worker/worker.js "$w/pre/"
	cp webgpu/runtime.js "$w/pre/webgpu-runtime.js"
	go test -c -trimpath -ldflags "-s -w" -o "$w/bench.test" ./scripts/bench
	go test -c -trimpath -ldflags "-s -w" -o "$w/harness.test" ./scripts/harness
	go build -trimpath -ldflags "-s -w" -o "$w/wg" ./cmd/webgguf
	[ -e scripts/bench/node_modules/@wllama/wllama/esm/wasm/wllama.wasm ] || (cd scripts/bench && npm ci --silent)
	xz -9 -T2 -c "$w/bench.test" > "$d/bench.test.xz"
	xz -9 -T2 -c "$w/harness.test" > "$d/harness.test.xz"
	xz -9 -T2 -c "$w/wg" > "$d/wg.xz"
	tar cf - -C "$w" pre | xz -9 -T2 > "$d/pre.tar.xz"
	tar cf - -C scripts/bench node_modules/@wllama/wllama/esm node_modules/@wllama/wllama/package.json | xz -9 -T2 > "$d/wllama.tar.xz"
	cp "$0" "$d/device-browser.sh"
	rm -rf "$w"
	ls -la "$d"
	;;
run)
	# On the device, from the repository root of the copied tree; the carried folder is the one
	# this script lies in.
	c=$(dirname "$0")
	cat /tmp/stage/part.* .cp3/part.* | xz -dc | tar xf - -C /opt
	mkdir -p /tmp/bb
	xz -dc "$c/bench.test.xz" > /tmp/bb/bench.test
	xz -dc "$c/wg.xz" > /tmp/bb/wg
	chmod +x /tmp/bb/bench.test /tmp/bb/wg
	tar xJf "$c/pre.tar.xz" -C /tmp/bb
	tar xJf "$c/wllama.tar.xz" -C scripts/bench
	/tmp/bb/wg gen --preset llama-3.2-1b --type q4_0 --vocab testdata/models/vocab-llama3-bpe.gguf --seed 1 \
		--out /tmp/llama1b-q4_0.gguf > /dev/null
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
	cd scripts/bench
	export CHROMIUM=/opt/chromium/run.sh HARNESS_PREBUILT=/tmp/bb/pre HARNESS_GPU=1 BENCH_WEBGGUF=/tmp/bb/wg
	export BENCH_MODELS=${BENCH_MODELS:-llama1b-q4_0=/tmp/llama1b-q4_0.gguf}
	export BENCH_MODEL=${BENCH_MODEL:-gen-100m,llama1b} BENCH_ENGINES=${BENCH_ENGINES:-webgguf,wllama-mt}
	export BENCH_WLLAMA_THREADS=${BENCH_WLLAMA_THREADS:-16} BENCH_GEN=${BENCH_GEN:-64} BENCH_REPS=${BENCH_REPS:-2}
	export BENCH_RUNS=${BENCH_RUNS:-2} BENCH_PAGE_TIMEOUT=${BENCH_PAGE_TIMEOUT:-120}
	out=${OUT:-/tmp}/browser.log
	set +e
	timeout "${BENCH_TIMEOUT:-500}" /tmp/bb/bench.test -test.run '^$' -test.bench BrowserGPU -test.benchtime 1x -test.v > "$out" 2>&1
	echo "bench rc $?"
	grep -o "run [0-9]: backend [a-z]*\|prefill [0-9]* tok [0-9.]* tok/s, decode [0-9]* tok [0-9.]* tok/s\|^\s*|.*\|exception.*" "$out"
	;;
run-opfs)
	c=$(dirname "$0")
	[ -x /opt/chromium/run.sh ] && [ -d /tmp/bb/pre ] || { echo "run first (Chromium and the wasm build are not unpacked)" >&2; exit 3; }
	xz -dc "$c/harness.test.xz" > /tmp/bb/harness.test
	chmod +x /tmp/bb/harness.test
	cd scripts/harness
	out=${OUT:-/tmp}/opfs.log
	set +e
	CHROMIUM=/opt/chromium/run.sh HARNESS_PREBUILT=/tmp/bb/pre HARNESS_GPU=1 timeout "${BENCH_TIMEOUT:-500}" \
		/tmp/bb/harness.test -test.run '^$' -test.bench OPFSLoad -test.benchtime 1x -test.v > "$out" 2>&1
	echo "bench-opfs rc $?"
	grep -E "GB/s|load|first-token|wasm-growth|FAIL|ok " "$out" | cut -c1-400
	;;
hide-testdata)
	a=/tmp/webgguf-testdata-aside
	mkdir -p "$a"
	for f in testdata/models/gotiny-q4_k_m.gguf testdata/models/tiny-*.gguf testdata/models/vocab-qwen3-bpe.gguf; do
		[ -e "$f" ] && mv "$f" "$a/"
	done
	ls testdata/models
	;;
restore-testdata)
	a=/tmp/webgguf-testdata-aside
	[ -d "$a" ] && for f in "$a"/*; do [ -e "$f" ] && mv "$f" testdata/models/; done
	git status --short testdata
	;;
*)
	echo "usage: $0 pack-chromium DIR1 DIR2 DIR3 | pack DIR | hide-testdata | restore-testdata | run | run-opfs" >&2
	exit 2
	;;
esac
