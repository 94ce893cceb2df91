#!/bin/bash
# Generated presets against llama.cpp's Vulkan backend on the lent GPU, in one device call: for
# each PRESET:TYPE of $MODELS, `webgguf gen --preset`, llama.cpp before, ours twice (the second
# decode only), llama.cpp after (quote its full-clock "after" run). Numbers in docs/BENCHMARKS.md
# (2026-12-02: MODELS="gemma-3-1b:q4_0 gemma-3-1b:q8_0", "phi-4-mini:q4_0 gemma-2-2b:q4_k_m").
#
# Carry (tree + carry <= 64 MiB: move testdata/models files the run does not need aside first,
# back right after): .gl (the Vulkan loader debs, device README), .lca/lcpp.tar.xz
# (../shared/tools/llamacpp-sysroot.sh), .lcarry/webgguf.xz (go build -trimpath -ldflags "-s -w"
# ./cmd/webgguf | xz) and this script copied to .lcarry/; run from the repository root:
#   MODELS="gemma-3-1b:q4_0" bash .lcarry/device-vs-presets.sh
R=$PWD
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
[ -x /tmp/lcpp/bin/llama-bench ] || tar xJf .lca/lcpp.tar.xz -C /tmp
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
unxz() { xz -dc $1 2>/dev/null || python3 -c "import lzma,sys;sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" $1; }
unxz .lcarry/webgguf.xz > /tmp/wg; chmod +x /tmp/wg
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
clocks() { nvidia-smi --query-gpu=clocks.sm,power.draw,pstate --format=csv,noheader; }
nvidia-smi -lms 500 --query-gpu=timestamp,clocks.sm --format=csv,noheader > /tmp/clocks.log 2>&1 &
lcpp() { echo "=== llama.cpp $1 (clocks: $(clocks))"; timeout 200 /tmp/lcpp/run.sh llama-bench -m $m -ngl 99 -p 512 -n 128 -d 0,4096 -r 3 2>&1 | grep -E "^\|"; }
ours() { echo "=== webgguf $1 (clocks: $(clocks))"; timeout 200 /tmp/wg bench --model $m -p ${P:-512} -n 128 -d 0,4096 -r 3 --warmup 2 2>&1 | grep -v "^load\|^progress"; }
for mt in $MODELS; do
  p=${mt%%:*}; t=${mt##*:}; m=/tmp/$p-$t.gguf
  /tmp/wg gen --preset $p --type $t --seed 1 --out $m | tail -1 || { echo "gen failed"; continue; }
  timeout 60 /tmp/wg bench --model $m -p 512 -n 128 -r 2 > /dev/null 2>&1 # warm
  lcpp "$p $t before"
  ours "$p $t"
  P=0 ours "$p $t again"
  lcpp "$p $t after"
  rm -f $m
done
echo "=== clocks (MHz, min/max)"; awk -F', ' '{print $2}' /tmp/clocks.log | sort -n | sed -n '1p;$p'
