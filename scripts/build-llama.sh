#!/usr/bin/env bash
# build-llama.sh: compile memd's llama.cpp runtime from source, for machines
# the prebuilt npm packages do not serve: an NVIDIA GPU whose architecture
# or driver the prebuilt CUDA package does not cover (it is compiled with
# CUDA 13.1 without sm_90 code, so an H100/H200 on a CUDA 13.0 driver
# refuses it), or a CPU build tuned for this machine.
#
#   scripts/build-llama.sh cuda|vulkan|cpu [DEST]
#   scripts/build-llama.sh source FILE.tar.xz     the trimmed source alone
#
# The source is the release memd's binding is written for (llama.cpp
# v0.5.0): the git bundle that the node-llama-cpp@3.22.1 npm package ships,
# fetched with npm, or SRC=FILE.tar.xz made by `source` on a machine with
# network, for one without. DEST defaults to the folder `memd runtime
# install` would use (~/.cache/memd/llama/linux-x64-BACKEND@3.22.1), so
# memd finds the build with no flag; elsewhere, point MEMD_LLAMA_LIB at it.
# Needs cmake, a C++ compiler, git (without SRC), and nvcc for cuda
# (CUDA_ARCH, e.g. 90, defaults to the first GPU's compute capability) or
# the Vulkan headers and glslc for vulkan. JOBS sets the parallel jobs.
set -euo pipefail
nlc=3.22.1
release=v0.5.0
backend=${1:-}
work=$(mktemp -d /tmp/memd-llama-build.XXXXXX)
trap 'rm -rf "$work"' EXIT

# source_tree DIR: the release's source, without tools, tests or the
# backends memd does not build.
source_tree() {
	if [ -n "${SRC:-}" ]; then
		mkdir -p "$1" && tar xJf "$SRC" -C "$1"
		return
	fi
	(cd "$work" && npm pack --silent "node-llama-cpp@$nlc" >/dev/null)
	tar xzf "$work/node-llama-cpp-$nlc.tgz" -C "$work" package/llama/gitRelease.bundle
	git clone -q "$work/package/llama/gitRelease.bundle" "$work/git" 2>/dev/null
	mkdir -p "$1"
	(cd "$work/git" && tar cf - CMakeLists.txt cmake include src vendor licenses LICENSE \
		ggml/CMakeLists.txt ggml/cmake ggml/include ggml/src/*.c ggml/src/*.cpp ggml/src/*.h \
		ggml/src/*.in ggml/src/CMakeLists.txt ggml/src/ggml-cpu ggml/src/ggml-cuda ggml/src/ggml-vulkan) |
		tar xf - -C "$1"
}

case "$backend" in
source)
	[ -n "${2:-}" ] || { echo "usage: $0 source FILE.tar.xz" >&2; exit 2; }
	source_tree "$work/src"
	tar cf - -C "$work/src" . | xz -T0 -6 >"$2"
	echo "wrote $2"
	exit 0
	;;
cuda | vulkan | cpu) ;;
*) sed -n '2,20p' "$0"; exit 2 ;;
esac

dest=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/memd/llama/linux-x64-$backend@$nlc}
[ "$backend" = cpu ] && dest=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/memd/llama/linux-x64@$nlc}
flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DLLAMA_OPENSSL=OFF
	-DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF
	-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF
	# Each library finds the others beside it, wherever the folder goes.
	-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN'
	# Backends as loadable modules, as memd loads them
	# (ggml_backend_load_all_from_path); one CPU backend for this machine.
	-DGGML_BACKEND_DL=ON -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
case "$backend" in
cuda)
	export PATH=$PATH:/usr/local/cuda/bin
	arch=${CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)}
	flags+=(-DGGML_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=$arch")
	;;
vulkan) flags+=(-DGGML_VULKAN=ON) ;;
esac
command -v ninja >/dev/null && flags+=(-G Ninja)

source_tree "$work/src"
cmake -S "$work/src" -B "$work/build" "${flags[@]}" >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j "${JOBS:-$(nproc)}"

rm -rf "$dest" && mkdir -p "$dest"
cp -a "$work/build/bin/"*.so* "$dest/"
name=libllama.$release.so
[ "$backend" = cpu ] || name=libllama.$backend.$release.so
ln -sf libllama.so "$dest/$name"
gpu=$backend
[ "$backend" = cpu ] && gpu=false
printf '{"buildOptions":{"gpu":"%s","llamaCpp":{"repo":"ggml-org/llama.cpp","release":"%s"}},"builtFromSource":true}\n' \
	"$gpu" "$release" >"$dest/_nlcBuildMetadata.json"
echo "llama.cpp $release ($backend) built into $dest"
