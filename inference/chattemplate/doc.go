// Package chattemplate renders a model's own chat template — the Jinja
// source a GGUF carries in tokenizer.chat_template — into the prompt text
// the model was trained on, the way Hugging Face's apply_chat_template does
// (trim_blocks, lstrip_blocks, raise_exception, strftime_now, tojson).
//
// Templates are evaluated by github.com/ardanlabs/jinja, a pure-Go Jinja
// engine written for exactly these templates. Its rendering is checked
// against Python's jinja2 for every template in llama.cpp's
// models/templates and the ones the vocabulary GGUFs carry (see
// testdata/render.py and the package's tests). It imports nothing of memd.
package chattemplate
