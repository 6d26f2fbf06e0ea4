// Package hub downloads model files from the Hugging Face hub (or a mirror
// named by HF_ENDPOINT) into the user's models folder: resumable, checked
// against the hub's sha256, validated as GGUF before it is put in place.
// It speaks the hub's resolve and model-info routes over net/http and imports
// no memd package but inference/gguf.
package hub
