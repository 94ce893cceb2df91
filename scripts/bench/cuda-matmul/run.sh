#!/bin/bash
# Builds and times the CUDA copy of the prefill matmul (mm.cu) on the lent
# GPU, which has nvcc, cuobjdump and ncu (this machine has none of them):
#   run(command="bash scripts/bench/cuda-matmul/run.sh")
# Prints each variant's registers (ptxas), two timings each, and the SASS
# instruction mix of the engine-like variant (clamped indices, vec4 x).
set -e
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH
out=/tmp/cuda-matmul # not $OUT: the binaries need not come back
mkdir -p "$out"
build() {
	local name=$1
	shift
	nvcc -O3 -arch=sm_90 -Xptxas -v "$@" -o "$out/$name" mm.cu 2>&1 | grep -E "registers|error" | sed "s/^.*Used/  $name [$*]: Used/"
}
build mirror -DTKV=8                                    # the kernel as it was
build vecx -DTKV=8 -DVECX                               # + vec4 x
build vecx_clamped -DTKV=8 -DVECX -DCLAMPS -DCLAMPG      # as the WGSL runs it
build db -DTKV=8 -DVECX -DDBUF                          # + double buffering
build db_clamped -DTKV=8 -DVECX -DDBUF -DCLAMPS -DCLAMPG
build db_vecw -DTKV=8 -DVECX -DVECW -DDBUF
build tk16 -DTKV=16 -DVECX -DVECW
for v in mirror vecx vecx_clamped db db_clamped db_vecw tk16; do
	"$out/$v"
	"$out/$v"
done
echo "SASS of vecx_clamped, instructions by opcode:"
cuobjdump -sass "$out/vecx_clamped" | grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9.]+" | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -12
