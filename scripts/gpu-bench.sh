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
#
# Why a CUDA build of our own: the npm CUDA package is compiled with CUDA
# 13.1 and carries no sm_90 code, and a CUDA 13.0 driver refuses its PTX.
# node-llama-cpp ships the release's source as a git bundle, so the same
# llama.cpp (same ABI, same version in the file name) is compiled there
# with the machine's nvcc for its architecture only.
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
		npm pack --silent "@node-llama-cpp/linux-x64-vulkan@$ver" >/dev/null &&
		npm pack --silent "node-llama-cpp@$ver" >/dev/null)
	tar xzf /tmp/gpu-prep/node-llama-cpp-linux-x64-vulkan-$ver.tgz -C /tmp/gpu-prep
	cp /tmp/gpu-prep/package/bins/linux-x64-vulkan/{libllama.*.so,libggml*.so} /tmp/gpu-prep/package/bins/linux-x64-vulkan/_nlc* $G/vk/
	xz -f -T2 $G/vk/libggml-vulkan.so
	tar xzf /tmp/gpu-prep/node-llama-cpp-$ver.tgz -C /tmp/gpu-prep package/llama/gitRelease.bundle
	rm -rf /tmp/gpu-prep/src && git clone -q /tmp/gpu-prep/package/llama/gitRelease.bundle /tmp/gpu-prep/src
	# Only what a library build reads: no tools, tests or other backends.
	(cd /tmp/gpu-prep/src && tar cf - CMakeLists.txt cmake include src vendor licenses LICENSE \
		ggml/CMakeLists.txt ggml/cmake ggml/include ggml/src/*.c ggml/src/*.cpp ggml/src/*.h \
		ggml/src/*.in ggml/src/CMakeLists.txt ggml/src/ggml-cpu ggml/src/ggml-cuda) |
		xz -T2 -6 >$G/src/llama.tar.xz
	CGO_ENABLED=0 go build -o $G/bench ./inference/bench
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
	mkdir -p /tmp/m
	if [ -f /tmp/m/tinyllama-shape.gguf ]; then echo "-model /tmp/m/tinyllama-shape.gguf"; fi
}

table() { # LIB OUT NAME
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$2/$3.txt"
	$G/bench -lib "$1" -threads 8 -reps 2 -serial 2 -dir /tmp/m $(model) -embed 2>&1 | tee -a "$2/$3.txt"
}

vulkan() {
	gl
	[ -f $G/vk/libggml-vulkan.so ] || unxz -k $G/vk/libggml-vulkan.so.xz
	table $G/vk "$1" vulkan
}

cuda_build() {
	export PATH=/usr/local/cuda/bin:$PATH
	rm -rf /tmp/cu && mkdir -p /tmp/cu/src && tar xJf $G/src/llama.tar.xz -C /tmp/cu/src
	# One CPU backend for this machine's CPU rather than every variant: the
	# layers run on the GPU, and the build fits one command's time.
	setsid nohup nice -n 19 bash -c '
		cmake -S /tmp/cu/src -B /tmp/cu/b $(command -v ninja >/dev/null && echo -G Ninja) -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
			-DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
			-DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF \
			-DGGML_BACKEND_DL=ON -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
			-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 &&
		cmake --build /tmp/cu/b -j 16 && touch /tmp/cu/done || touch /tmp/cu/failed' >/tmp/cu/build.log 2>&1 &
}

cuda_lib() { # waits for the build and lays its libraries out as memd expects
	while [ ! -e /tmp/cu/done ] && [ ! -e /tmp/cu/failed ]; do sleep 5; done
	if [ -e /tmp/cu/failed ]; then tail -40 /tmp/cu/build.log; exit 1; fi
	mkdir -p /tmp/cu/lib
	cp -a /tmp/cu/b/bin/*.so* /tmp/cu/lib/
	ln -sf libllama.so /tmp/cu/lib/libllama.cuda.v0.5.0.so
	ls /tmp/cu/lib
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
cuda) cuda "$2" ;;
pipeline) gl; pipeline "$2" "$3" ;;
*) sed -n '2,12p' "$0"; exit 2 ;;
esac
