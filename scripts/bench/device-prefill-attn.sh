#!/bin/bash
# Prefill attention A/B on the lent GPU (figures in compute/gpu/attn_prefill.go): the per-query kernel
# (--prefill-attn-wg 0) against the default (the register-tiled kernel), alternated three times in
# one call on the same generated files, then one profiled step of each (attn_prefill µs a layer).
#
# Carry (the working tree plus carried paths under 64 MiB: move testdata/models' gotiny and tiny-*
# files aside for the call, back after):
#   here:   go build -trimpath -ldflags "-s -w" -o /tmp/wg ./cmd/webgguf && mkdir -p .mm && xz -c /tmp/wg > .mm/wg.xz
#           (.mm and .gl ignored through .git/info/exclude; .gl holds the Vulkan loader's .debs,
#           as the device README's recipe makes them)
#   device: TYPES="q4_0 q4_k_m q8_0 f16" QWEN=1 bash scripts/bench/device-prefill-attn.sh   (carry [".gl", ".mm"])
R=$PWD
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
xz -dc .mm/wg.xz > /tmp/wg; chmod +x /tmp/wg
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
one() { # preset type vocab
  m=/tmp/m-$1-$2.gguf
  /tmp/wg gen --preset $1 --type $2 --vocab $R/testdata/models/$3 --seed 1 --out $m > /dev/null || return
  for r in 1 2 3; do for wg in 0 -1; do
    echo "$1 $2 wg=$wg r$r: $(timeout 100 /tmp/wg bench --model $m -p 512 -n 0 -d 0,2048 -r 3 --warmup 2 --prefill-attn-wg $wg 2>&1 | grep webgpu | tr -s ' ' | cut -d'|' -f5,6 | tr '\n' ' ')"
  done; done
  for wg in -1 0; do
    echo "$1 $2 profile wg=$wg: $(/tmp/wg bench --model $m -p 512 -n 0 -d 0 -r 1 --profile --prefill-attn-wg $wg 2>&1 | grep -E "attn_prefill|GPU \(one" | tr -s ' ' | tr '\n' ' ')"
  done
  rm -f $m
}
for t in ${TYPES:-q4_0 q4_k_m q8_0 f16}; do one llama-3.2-1b $t vocab-llama3-bpe.gguf; done
[ -n "$QWEN" ] && one qwen2.5-0.5b q4_0 vocab-qwen3-bpe.gguf
