#!/bin/bash
# Side-by-side decode/prefill benchmark on the lent GPU: webgguf and llama.cpp's Vulkan backend on
# the same card, in the same device call, on the same GGUF files (written by `webgguf gen`).
# Numbers in docs/BENCHMARKS.md (2026-12-01, Llama-3.2-1B).
#
# Carry (the working tree plus carried paths must stay under 64 MiB, so the pieces travel in
# several calls made back to back while the machine is warm; /tmp persists between them):
#   here:   go build -trimpath -ldflags "-s -w" -o /tmp/wg ./cmd/webgguf && xz -9e -c /tmp/wg > .lcarry/webgguf.xz
#           cp scripts/bench/device-vs-llamacpp.sh .lcarry/
#           ../shared/tools/llamacpp-sysroot.sh /tmp/lcpp.tar.xz, then split its lcpp/ tree into
#           xz tars of at most ~5 MiB each (.lca/a.tar.xz, .lcb/b.tar.xz, .lcc/c.tar.xz), all in
#           folders that .git/info/exclude ignores
#   device: one call per part: cd /tmp && tar xJf $OLDPWD/.lca/a.tar.xz   (carry [".gl", ".lca"]), …
#           then: QWEN=1 bash .lcarry/device-vs-llamacpp.sh               (carry [".gl", ".lcarry"])
# Env: TYPES (default "q4_0 q4_k_m q8_0 f16"), QWEN=1 adds Qwen2.5-0.5B q4_0, KERN=1 adds bench-kernels,
# LDEPTHS (llama-bench -d, default 0; "0,2048" matches ours). llama.cpp runs before and after ours on
# each model (its figures drifted within a machine's life), each run with the GPU's clocks.
R=$PWD
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
(xz -dc .lcarry/webgguf.xz || python3 -c "import lzma,sys;sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .lcarry/webgguf.xz) > /tmp/wg; chmod +x /tmp/wg
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
ls /tmp/lcpp/bin/llama-bench >/dev/null || echo "NO LCPP"
clocks() { nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,pstate,clocks_throttle_reasons.active --format=csv,noheader; }
lcpp() { # label: llama-bench on $m; its figures moved by minutes within one machine's life (2026-11-25), so
  # each model runs it before and after ours, with the GPU's clocks beside each run
  echo "=== llama.cpp $1 (clocks: $(clocks))"
  timeout 200 /tmp/lcpp/run.sh llama-bench -m $m -ngl 99 -p 512 -n 128 -d ${LDEPTHS:-0} -r 5 2>&1 | grep -E "^\|"
}
one() { # preset type vocab
  m=/tmp/m-$1-$2.gguf
  /tmp/wg gen --preset $1 --type $2 --vocab $R/testdata/models/$3 --seed 1 --out $m > /dev/null || return
  lcpp "$1 $2 before"
  echo "=== webgguf $1 $2 (clocks: $(clocks))"; timeout 250 /tmp/wg bench --model $m -p 512 -n 128 -d 0,2048 -r 3 --warmup 2 2>&1 | grep -v "^load\|^progress"
  echo "=== webgguf $1 $2 sampled (sample.Defaults, the chat demo's chain)"; timeout 100 /tmp/wg bench --model $m -p 0 -n 128 -d 0 -r 2 --sampled 2>&1 | grep webgpu
  # A CLI load of the file (in the page cache by now) to its first tokens: load time and prompt rate.
  echo "=== webgguf $1 $2 run (load → first token)"; timeout 60 /tmp/wg run --model $m --backend gpu --ctx 4096 -n 16 --prompt "The capital of France is" 2>&1 | grep "^\["
  lcpp "$1 $2 after"
  rm -f $m
}
for t in ${TYPES:-q4_0 q4_k_m q8_0 f16}; do one llama-3.2-1b $t vocab-llama3-bpe.gguf; done
[ -n "$QWEN" ] && one qwen2.5-0.5b q4_0 vocab-qwen3-bpe.gguf
if [ -n "$KERN" ]; then
  echo "=== bench-kernels"; timeout 200 /tmp/wg bench-kernels -formats q4_0,q8_0,q4_K,f16 -shapes 128256x2048,8192x2048,2048x8192 -iters 30 -rotate-bytes 134217728 -matmul "" 2>&1 | tail -n 40
fi
