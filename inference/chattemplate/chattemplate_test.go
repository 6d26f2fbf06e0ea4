package chattemplate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd/inference/gguf"
	"github.com/memd-dev/memd/inference/llama/llamatest"
)

// The reference renderings in testdata/reference.json were made by
// testdata/render.py with Python's jinja2 (Debian's python3-jinja2 3.1.6)
// from the llama.cpp source llamatest.Source fetches; the test checks the
// source's templates are the ones rendered there (by sha256) before it
// compares.

type conversations struct {
	Now       string         `json:"now"`
	Variables map[string]any `json:"variables"`
	Cases     []struct {
		Name      string         `json:"name"`
		Variables map[string]any `json:"variables"`
		Messages  []Message      `json:"messages"`
	} `json:"cases"`
}

type reference struct {
	Templates map[string]struct {
		SHA256       string `json:"sha256"`
		CompileError string `json:"compile_error"`
		Cases        map[string]struct {
			Text  *string `json:"text"`
			Error string  `json:"error"`
		} `json:"cases"`
	} `json:"templates"`
}

// differsFromJinja2 lists the templates whose rendering is known to differ,
// with why. firefunction-v2 reads a `functions` variable that only its
// tool-calling callers pass: jinja2 fails on the undefined value where the
// Go engine renders it empty. memd passes no tools, so neither rendering is
// one memd would use.
var differsFromJinja2 = map[string]string{
	"fireworks-ai-llama-3-firefunction-v2.jinja": "needs the `functions` variable (tool calling)",
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestRendersLikeJinja2(t *testing.T) {
	src := llamatest.Source(t)
	var convs conversations
	var ref reference
	readJSON(t, "testdata/conversations.json", &convs)
	readJSON(t, "testdata/reference.json", &ref)
	now, err := time.Parse("2006-01-02T15:04:05", convs.Now)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Templates) < 75 {
		t.Fatalf("reference holds %d templates; expected the 71 of models/templates and 4+ from vocabulary files", len(ref.Templates))
	}
	exact := 0
	for name, want := range ref.Templates {
		source := templateSource(t, src, name)
		if sum := sha256.Sum256([]byte(source)); hex.EncodeToString(sum[:]) != want.SHA256 {
			t.Errorf("%s: the fetched source differs from the one testdata/reference.json was rendered from; rerun testdata/render.py", name)
			continue
		}
		if _, known := differsFromJinja2[name]; known {
			continue
		}
		tmpl, err := Compile(source)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ok := true
		for _, c := range convs.Cases {
			o := options(t, convs.Variables, c.Variables)
			o.Now = now
			got, err := tmpl.Render(c.Messages, o)
			w := want.Cases[c.Name]
			switch {
			case w.Text == nil && err == nil:
				t.Errorf("%s/%s: rendered, but jinja2 failed: %s", name, c.Name, w.Error)
				ok = false
			case w.Text != nil && err != nil:
				t.Errorf("%s/%s: %v", name, c.Name, err)
				ok = false
			case w.Text != nil && got != *w.Text:
				t.Errorf("%s/%s differs from jinja2 at byte %d:\n got %q\nwant %q", name, c.Name, firstDiff(got, *w.Text), got, *w.Text)
				ok = false
			}
		}
		if ok {
			exact++
		}
	}
	t.Logf("%d of %d templates rendered exactly as jinja2 renders them", exact, len(ref.Templates))
}

func templateSource(t *testing.T, src, name string) string {
	t.Helper()
	if vocab, ok := strings.CutPrefix(name, "vocab/"); ok {
		path := filepath.Join(src, "models", vocab)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		g, err := gguf.Parse(f, st.Size())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return g.String("tokenizer.chat_template")
	}
	b, err := os.ReadFile(filepath.Join(src, "models", "templates", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func options(t *testing.T, vars ...map[string]any) Options {
	t.Helper()
	var o Options
	for _, vs := range vars {
		for k, v := range vs {
			switch k {
			case "bos_token":
				o.BOS = v.(string)
			case "eos_token":
				o.EOS = v.(string)
			case "add_generation_prompt":
				o.AddGenerationPrompt = v.(bool)
			case "enable_thinking":
				o.EnableThinking = v.(bool)
			default:
				t.Fatalf("conversations.json sets %q, which Options has no field for", k)
			}
		}
	}
	return o
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
