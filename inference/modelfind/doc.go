// Package modelfind resolves a model name as the user knows it to a GGUF
// file another tool already downloaded, so memd uses it where it lies,
// without a copy: an Ollama model ("gemma3:1b", "library/gemma3",
// "hf.co/unsloth/gemma-3-1b-it-GGUF:Q4_K_M"; its blobs are GGUF) in
// $OLLAMA_MODELS or ~/.ollama/models, or a Hugging Face repository
// ("unsloth/gemma-3-1b-it-GGUF", with a file name or a quantization when
// it holds several) in the Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub
// or ~/.cache/huggingface/hub). It reads files only, and imports no memd
// package.
package modelfind
