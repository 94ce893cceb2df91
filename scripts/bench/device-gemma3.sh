#!/bin/bash
# Gemma 3 on the lent GPU beside llama.cpp's Vulkan backend, and the model-layer change's cost on
# Llama-1B and Qwen2.5-0.5B (old and new webgguf binaries alternated), in one device call.
# Carry as device-vs-llamacpp.sh says (.gl, the lcpp parts unpacked into /tmp by earlier calls),
# plus .lcarry/webgguf.xz (new) and .lcarry/webgguf-old.xz (the commit before the change).
# Env: GTYPES (default "q4_0 q8_0"), OLDNEW=0 skips the old/new comparison, PROFILE=1 adds a
# per-kernel GPU profile of one Gemma decode step at depths 0 and 4096.
R=$PWD
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
[ -x /tmp/lcpp/bin/llama-bench ] || tar xJf .lca/lcpp.tar.xz -C /tmp
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
unxz() { xz -dc $1 2>/dev/null || python3 -c "import lzma,sys;sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" $1; }
unxz .lcarry/webgguf.xz > /tmp/wg; chmod +x /tmp/wg
[ -f .lcarry/webgguf-old.xz ] && { unxz .lcarry/webgguf-old.xz > /tmp/wg-old; chmod +x /tmp/wg-old; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
clocks() { nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,pstate --format=csv,noheader; }
nvidia-smi -lms 500 --query-gpu=timestamp,clocks.sm --format=csv,noheader > /tmp/clocks.log 2>&1 &
lcpp() { # label depths
  echo "=== llama.cpp $1 (clocks: $(clocks))"
  timeout 240 /tmp/lcpp/run.sh llama-bench -m $m -ngl 99 -p 512 -n 128 -d $2 -r 3 2>&1 | grep -E "^\|"
}
ours() { # binary label depths
  echo "=== $2 (clocks: $(clocks))"
  timeout 240 $1 bench --model $m -p 512 -n 128 -d $3 -r 3 --warmup 2 2>&1 | grep -v "^load\|^progress"
}
# Warm the GPU first: its idle clock is 345 MHz.
m=/tmp/warm.gguf; /tmp/wg gen --preset llama-3.2-1b --type q4_0 --vocab $R/testdata/models/vocab-llama3-bpe.gguf --seed 1 --out $m >/dev/null
timeout 60 /tmp/wg bench --model $m -p 512 -n 128 -r 3 > /dev/null 2>&1
if [ "${OLDNEW:-1}" = 1 ] && [ -x /tmp/wg-old ]; then
  for p in "llama-3.2-1b vocab-llama3-bpe.gguf" "qwen2.5-0.5b vocab-qwen3-bpe.gguf"; do
    set -- $p; m=/tmp/m-$1.gguf
    /tmp/wg gen --preset $1 --type q4_0 --vocab $R/testdata/models/$2 --seed 1 --out $m >/dev/null
    for round in 1 2; do ours /tmp/wg-old "old $1 q4_0 round $round" 0; ours /tmp/wg "new $1 q4_0 round $round" 0; done
    rm -f $m
  done
fi
for t in ${GTYPES:-q4_0 q8_0}; do
  m=/tmp/g-$t.gguf
  /tmp/wg gen --preset gemma-3-1b --type $t --vocab $R/testdata/models/vocab-llama-spm.gguf --seed 1 --out $m > /dev/null || { echo "gen failed"; continue; }
  lcpp "gemma-3-1b $t before" 0,4096
  ours /tmp/wg "webgguf gemma-3-1b $t" 0,4096
  lcpp "gemma-3-1b $t after" 0,4096
  if [ "$t" = q4_0 ]; then # the decode fusions off and on, alternated
    for round in 1 2; do
      echo "=== post-in and merge-x off / merge-x off / both on, round $round"
      timeout 120 /tmp/wg bench --model $m -p 0 -n 128 -d 0,4096 -r 3 --warmup 2 --post-in=false --merge-x=false 2>&1 | grep tg128
      timeout 120 /tmp/wg bench --model $m -p 0 -n 128 -d 0,4096 -r 3 --warmup 2 --merge-x=false 2>&1 | grep tg128
      timeout 120 /tmp/wg bench --model $m -p 0 -n 128 -d 0,4096 -r 3 --warmup 2 2>&1 | grep tg128
    done
    echo "=== 64 splits at most"
    timeout 120 /tmp/wg bench --model $m -p 0 -n 128 -d 4096 -r 3 --warmup 2 --attn-max-splits 64 2>&1 | grep tg128
  fi
  if [ "${PROFILE:-0}" = 1 ]; then
    echo "=== profile gemma-3-1b $t"
    timeout 120 /tmp/wg bench --model $m -p 512 -n 32 -d 0,4096 --warmup 1 --profile 2>&1 | grep -v "^load\|^progress"
  fi
  rm -f $m
done
echo "=== clocks during the run (MHz, min/max)"; awk -F', ' '{print $2}' /tmp/clocks.log | sort -n | sed -n '1p;$p'
