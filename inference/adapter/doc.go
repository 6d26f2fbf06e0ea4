// Package adapter converts LoRA adapters as training tools save them —
// PEFT (adapter_model.safetensors) and mlx-lm (adapters.safetensors), each
// beside its adapter_config.json — into the GGUF LoRA files llama.cpp
// loads, for the GGUF base model they were trained on: Hugging Face tensor
// names mapped to llama.cpp's per architecture, mlx-lm's transposed
// matrices turned back, the query and key rows of llama-family models
// permuted as llama.cpp's converter permutes their weights, and the
// alpha/rank scale carried over. An adapter that does not fit the base
// (another architecture, layer count or width) is refused with what does
// not match. It imports only inference/gguf, so memctl can use it.
package adapter
