#!/usr/bin/env bash
# gpu-bench.sh: the inference and pipeline benchmarks on an NVIDIA GPU
# machine that has no network, with the Vulkan build from npm and a CUDA
# build of the same llama.cpp release compiled there for its GPU.
#
#   scripts/gpu-bench.sh prepare        here, with network: fills .gpu/
#   scripts/gpu-bench.sh vulkan OUT     there: the Vulkan table
#   scripts/gpu-bench.sh cuda-build     there: starts the CUDA build (background)
#   scripts/gpu-bench.sh cuda OUT       there: waits for it, the CUDA table
#   scripts/gpu-bench.sh pipeline OUT LIB  there: the three model stages, batched vs serial
#   BENCH_FLAGS=-q8 scripts/gpu-bench.sh cuda OUT   the tables with a Q8_0 model
#   scripts/gpu-bench.sh cuda-pack OUT  there: the built library as xz parts
#                                       (copy them here into .gpu/cu/)
#   scripts/gpu-bench.sh cuda-unpack    there: the library from .gpu/cu/,
#                                       instead of cuda-build (seconds, not minutes)
#
# Why a CUDA build of our own: the npm CUDA package is compiled with CUDA
# 13.1 and carries no sm_90 code, and a CUDA 13.0 driver refuses its PTX.
# scripts/build-llama.sh compiles the same release there, from source
# prepared here, with the machine's nvcc for its architecture only. Run
# cuda-build after the Vulkan table: its compile jobs slow any table that
# shares the CPU with them.
#
# .gpu/ must be ignored by git (.git/info/exclude); the Vulkan loader and
# GL dispatch libraries go in .gl/ as the device notes describe.
set -euo pipefail
cd "$(dirname "$0")/.."
G=.gpu
ver=3.22.1

prepare() {
	mkdir -p $G/vk $G/src /tmp/gpu-prep
	(cd /tmp/gpu-prep &&
		npm pack --silent "@node-llama-cpp/linux-x64-vulkan@$ver" >/dev/null)
	tar xzf /tmp/gpu-prep/node-llama-cpp-linux-x64-vulkan-$ver.tgz -C /tmp/gpu-prep
	cp /tmp/gpu-prep/package/bins/linux-x64-vulkan/{libllama.*.so,libggml*.so} /tmp/gpu-prep/package/bins/linux-x64-vulkan/_nlc* $G/vk/
	xz -f -T2 $G/vk/libggml-vulkan.so
	scripts/build-llama.sh source $G/src/llama.tar.xz
	CGO_ENABLED=0 go build -o $G/bench ./scripts/inferencebench
	CGO_ENABLED=0 go test -c -o $G/pipeline.test ./pipeline
	rm -rf $G/dendron && cp -r ../shared/corpora/dendron/vault $G/dendron && chmod -R u+w $G/dendron
}

gl() {
	for f in .gl/*.deb; do dpkg -x "$f" /; done
	ldconfig
	export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
}

model() {
	# The generated TinyLlama-shaped model is reused across phases on one machine.
	local f=/tmp/m/tinyllama-shape.gguf
	[[ " ${BENCH_FLAGS:-} " == *" -q8 "* ]] && f=/tmp/m/tinyllama-shape-q8.gguf
	mkdir -p /tmp/m
	if [ -f $f ]; then echo "-model $f"; fi
}

table() { # LIB OUT NAME; BENCH_FLAGS (e.g. -q8) go to the bench
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$2/$3.txt"
	$G/bench -lib "$1" -threads 8 -reps 2 -serial 2 -dir /tmp/m $(model) -embed ${BENCH_FLAGS:-} 2>&1 | tee -a "$2/$3.txt"
}

vulkan() {
	gl
	# .gpu/ is carried anew on every call, which drops the unpacked library.
	unxz -kf $G/vk/libggml-vulkan.so.xz
	table $G/vk "$1" vulkan
}

cuda_build() { # in the background, so that one command's time limit does not cut it
	mkdir -p /tmp/cu && rm -f /tmp/cu/done /tmp/cu/failed
	SRC=$G/src/llama.tar.xz JOBS=16 setsid nohup nice -n 19 bash -c \
		'scripts/build-llama.sh cuda /tmp/cu/lib && touch /tmp/cu/done || touch /tmp/cu/failed' >/tmp/cu/build.log 2>&1 &
}

cuda_lib() { # waits for the build
	while [ ! -e /tmp/cu/done ] && [ ! -e /tmp/cu/failed ]; do sleep 5; done
	if [ -e /tmp/cu/failed ]; then tail -40 /tmp/cu/build.log; exit 1; fi
	ls /tmp/cu/lib
}

cuda_pack() { # OUT: parts under the 16 MiB a file the device returns
	tar cf - -C /tmp/cu lib | xz -T0 -6 | split -b 15M - "$1/cudalib.tar.xz."
}

cuda_unpack() {
	mkdir -p /tmp/cu && rm -f /tmp/cu/failed
	cat $G/cu/cudalib.tar.xz.* | xz -d | tar xf - -C /tmp/cu
	touch /tmp/cu/done
}

cuda() {
	local t0=$SECONDS
	cuda_lib
	echo "waited $((SECONDS - t0)) s for the build"
	table /tmp/cu/lib "$1" cuda
}

pipeline() { # OUT LIB
	MEMD_BENCH_SHAPES=1b MEMD_BENCH_STAGE_NOTES=${NOTES:-16} MEMD_BENCH_THREADS=8 \
		MEMD_LLAMA_LIB="$2" MEMD_DENDRON=$G/dendron \
		$G/pipeline.test -test.run '^$' -test.bench BenchmarkIndexStages -test.benchtime 1x -test.v 2>&1 |
		tee -a "$1/pipeline-$(basename "$2").txt"
}

case "${1:-}" in
prepare) prepare ;;
vulkan) vulkan "$2" ;;
cuda-build) cuda_build ;;
cuda-pack) cuda_pack "$2" ;;
cuda-unpack) cuda_unpack ;;
cuda) cuda "$2" ;;
pipeline) gl; pipeline "$2" "$3" ;;
*) sed -n '2,16p' "$0"; exit 2 ;;
esac
