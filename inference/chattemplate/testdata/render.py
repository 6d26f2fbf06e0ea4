#!/usr/bin/env python3
"""Reference renderings of llama.cpp's chat templates by Python's jinja2.

Renders every models/templates/*.jinja of the llama.cpp source, and the
tokenizer.chat_template of every models/ggml-vocab-*.gguf that has one
(named "vocab/<file>"), with the conversations in conversations.json, in the environment Hugging Face's
apply_chat_template uses (sandboxed, trim_blocks, lstrip_blocks,
loopcontrols, its tojson, raise_exception and strftime_now), and writes
reference.json, which chattemplate's tests compare memd's rendering to.

Usage: render.py LLAMA_SRC_DIR > reference.json
(needs python3-jinja2; strftime_now is pinned to the conversations' "now").
"""
import datetime
import hashlib
import json
import os
import struct
import sys

import jinja2
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


class Generation(Extension):
    """{% generation %}...{% endgeneration %}: renders its body (HF marks
    assistant tokens with it; the text is unchanged)."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def gguf_chat_template(path):
    """The tokenizer.chat_template of a GGUF file, or None (metadata only)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"GGUF":
        return None
    pos = 8
    n_tensors, n_kv = struct.unpack_from("<QQ", data, pos)
    pos += 16
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def string(pos):
        n = struct.unpack_from("<Q", data, pos)[0]
        return data[pos + 8:pos + 8 + n].decode("utf-8"), pos + 8 + n

    def skip(typ, pos):
        if typ == 8:
            return string(pos)[1]
        if typ == 9:
            inner, n = struct.unpack_from("<IQ", data, pos)
            pos += 12
            for _ in range(n):
                pos = skip(inner, pos)
            return pos
        return pos + sizes[typ]

    for _ in range(n_kv):
        key, pos = string(pos)
        typ = struct.unpack_from("<I", data, pos)[0]
        pos += 4
        if key == "tokenizer.chat_template" and typ == 8:
            return string(pos)[0]
        pos = skip(typ, pos)
    return None


def sources(src):
    """(name, template bytes) of every template to render."""
    tdir = os.path.join(src, "models", "templates")
    for name in sorted(os.listdir(tdir)):
        if name.endswith(".jinja"):
            with open(os.path.join(tdir, name), "rb") as f:
                yield name, f.read()
    mdir = os.path.join(src, "models")
    for name in sorted(os.listdir(mdir)):
        if name.startswith("ggml-vocab-") and name.endswith(".gguf"):
            t = gguf_chat_template(os.path.join(mdir, name))
            if t is not None:
                yield "vocab/" + name, t.encode("utf-8")


def environment(now):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: now.strftime(fmt)
    return env


def main():
    src = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "conversations.json")) as f:
        convs = json.load(f)
    now = datetime.datetime.fromisoformat(convs["now"])
    env = environment(now)
    out = {"jinja2": jinja2.__version__, "templates": {}}
    for name, raw in sources(src):
        entry = {"sha256": hashlib.sha256(raw).hexdigest(), "cases": {}}
        try:
            tmpl = env.from_string(raw.decode("utf-8"))
        except Exception as e:  # a template jinja2 cannot parse
            entry["compile_error"] = f"{type(e).__name__}: {e}"
            out["templates"][name] = entry
            continue
        for case in convs["cases"]:
            ctx = dict(convs["variables"])
            ctx.update(case["variables"])
            ctx["messages"] = case["messages"]
            try:
                entry["cases"][case["name"]] = {"text": tmpl.render(**ctx)}
            except Exception as e:
                entry["cases"][case["name"]] = {"error": f"{type(e).__name__}: {e}"}
        out["templates"][name] = entry
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
