#!/bin/bash
# Two builds of webgguf alternated on the lent GPU in one device call, with llama.cpp's Vulkan
# backend before and after, for each PRESET:TYPE of $MODELS: decode (tg128) at depth 0 and 4096.
# For changes whose effect is a few percent: the H200's clocks and llama.cpp's first run after a
# load vary by as much, so only the alternation inside one call says which build is faster.
#
# Carry (tree + carry <= 64 MiB: move testdata/models aside first, back right after): .gl (the
# Vulkan loader debs, device README), .lca/lcpp.tar.xz (../shared/tools/llamacpp-sysroot.sh; set
# MIRROR=http://deb.debian.org/debian where apt's sources are deb822 only), .lcarry/wg-old.xz and
# .lcarry/wg-new.xz (go build -trimpath -ldflags "-s -w" ./cmd/webgguf | xz, at the two commits)
# and this script copied to .lcarry/; run from the repository root:
#   MODELS="phi-4-mini:q4_0 gemma-2-2b:q4_k_m" bash .lcarry/device-old-new.sh
# Extra flags for the new build's third run go in NEWFLAGS (e.g. "-attn-max-splits 32").
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
[ -x /tmp/lcpp/bin/llama-bench ] || tar xJf .lca/lcpp.tar.xz -C /tmp
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
for b in old new; do xz -dc .lcarry/wg-$b.xz > /tmp/wg-$b; chmod +x /tmp/wg-$b; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
clocks() { nvidia-smi --query-gpu=clocks.sm --format=csv,noheader; }
nvidia-smi -lms 500 --query-gpu=timestamp,clocks.sm --format=csv,noheader > /tmp/clocks.log 2>&1 &
lcpp() { echo "=== llama.cpp $1 (clk $(clocks))"; timeout 150 /tmp/lcpp/run.sh llama-bench -m $m -ngl 99 -p 0 -n 128 -d 0,4096 -r 3 2>&1 | grep -E "^\|"; }
ours() { b=$1; shift; echo "=== $b $* (clk $(clocks))"; timeout 120 /tmp/wg-$b bench --model $m -p 0 -n 128 -d 0,4096 -r ${R:-2} --warmup 1 "$@" 2>&1 | grep -v "^load\|^progress"; }
for mt in ${MODELS:-phi-4-mini:q4_0 gemma-2-2b:q4_k_m}; do
  p=${mt%%:*}; t=${mt##*:}; m=/tmp/$p-$t.gguf
  /tmp/wg-new gen --preset $p --type $t --seed 1 --out $m | tail -1 || { echo "gen failed"; continue; }
  timeout 60 /tmp/wg-new bench --model $m -p 512 -n 128 -r 2 > /dev/null 2>&1 # warm the GPU
  lcpp "$p $t before"
  ours old; ours new; [ -n "$NEWFLAGS" ] && ours new $NEWFLAGS; ours old; ours new
  lcpp "$p $t after"
  rm -f $m
done
echo "=== clocks (MHz, min/max)"; awk -F', ' '{print $2}' /tmp/clocks.log | sort -n | sed -n '1p;$p'
