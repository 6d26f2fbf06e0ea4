package llama

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd/inference/gguf"
	"github.com/memd-dev/memd/inference/testmodel"
)

func TestFindLibrary(t *testing.T) {
	dir := func(files ...string) string {
		d := t.TempDir()
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	cases := []struct {
		name    string
		dir     string
		want    LibraryFile
		err     error
		mention []string
	}{
		{"missing folder", filepath.Join(t.TempDir(), "nope"), LibraryFile{}, ErrNoLibrary, []string{"memd runtime install", "MEMD_LLAMA_LIB"}},
		{"empty folder", dir("libggml.v0.5.0.so", "libllama.so"), LibraryFile{}, ErrNoLibrary, []string{"memd runtime install"}},
		{"wrong version", dir("libllama.v0.9.0.so"), LibraryFile{}, ErrVersion, []string{"libllama.v0.9.0.so", "v0.9.0", "v0.5.0", "v0.4.0"}},
		{"cpu", dir("libllama.v0.5.0.so", "libllama.v0.9.0.so"), LibraryFile{"libllama.v0.5.0.so", "v0.5.0", "cpu"}, nil, nil},
		{"older accepted", dir("libllama.v0.4.0.so"), LibraryFile{"libllama.v0.4.0.so", "v0.4.0", "cpu"}, nil, nil},
		{"gpu first", dir("libllama.v0.5.0.so", "libllama.cuda.v0.5.0.so"), LibraryFile{"libllama.cuda.v0.5.0.so", "v0.5.0", "cuda"}, nil, nil},
		{"newest first", dir("libllama.vulkan.v0.4.0.so", "libllama.v0.5.0.so"), LibraryFile{"libllama.v0.5.0.so", "v0.5.0", "cpu"}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FindLibrary(c.dir)
			if !errors.Is(err, c.err) || got != c.want {
				t.Fatalf("got %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
			for _, m := range c.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestOpen(t *testing.T) {
	l := openLib(t)
	again, err := Open(l.Dir())
	if err != nil || again != l {
		t.Fatalf("second Open: %p, %v", again, err)
	}
	if !slices.Contains(AcceptedVersions, l.Version()) || l.Backend() != "cpu" {
		t.Errorf("version %q backend %q", l.Version(), l.Backend())
	}
	// A loaded library refuses another folder, even a valid one.
	other := t.TempDir()
	src, _ := os.ReadFile(filepath.Join(l.Dir(), l.File()))
	if err := os.WriteFile(filepath.Join(other, l.File()), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(other); !errors.Is(err, ErrOtherLibrary) {
		t.Errorf("Open(other) = %v", err)
	}
	wrong := t.TempDir()
	if err := os.WriteFile(filepath.Join(wrong, "libllama.v0.9.0.so"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindLibrary(wrong); !errors.Is(err, ErrVersion) {
		t.Errorf("wrong version copy: %v", err)
	}
}

func TestLoadModelErrors(t *testing.T) {
	l := openLib(t)
	f := models(t)
	good, err := os.ReadFile(f.llama)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := slices.Clone(good)
	copy(corrupt, "GGML")
	cases := []struct {
		name string
		path string
		want error
	}{
		{"missing", filepath.Join(dir, "missing.gguf"), os.ErrNotExist},
		{"truncated data", write("trunc.gguf", good[:len(good)*2/3]), gguf.ErrTruncated},
		{"truncated header", write("head.gguf", good[:4000]), gguf.ErrTruncated},
		{"corrupt magic", write("corrupt.gguf", corrupt), gguf.ErrNotGGUF},
		{"empty", write("empty.gguf", nil), gguf.ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := l.LoadModel(c.path, ModelParams{})
			if !errors.Is(err, c.want) {
				t.Fatalf("LoadModel = %v, %v; want %v", m, err, c.want)
			}
		})
	}
	// A file that passes Check but that llama.cpp refuses: an adapter is not a model.
	if _, err := l.LoadModel(f.lora, ModelParams{}); !errors.Is(err, ErrLoadModel) {
		t.Errorf("adapter as model: %v", err)
	}
}

func TestModelInfo(t *testing.T) {
	l := openLib(t)
	f := models(t)
	m := loadModel(t, l, f.llama)
	if m.NVocab() < 2000 || m.NEmbd() != 64 || m.NCtxTrain() != 512 || m.NLayer() != 2 {
		t.Errorf("vocab %d embd %d ctx %d layers %d", m.NVocab(), m.NEmbd(), m.NCtxTrain(), m.NLayer())
	}
	if m.NParams() == 0 || m.SizeBytes() != 4*m.NParams() {
		t.Errorf("params %d size %d (F32)", m.NParams(), m.SizeBytes())
	}
	if !strings.HasPrefix(m.Desc(), "llama") {
		t.Errorf("desc %q", m.Desc())
	}
	if m.BOS() != testmodel.TokenBOS || m.EOS() != testmodel.TokenEOS {
		t.Errorf("bos %d eos %d", m.BOS(), m.EOS())
	}
	for _, tok := range []int32{testmodel.TokenEOS, testmodel.TokenEndOfTurn} {
		if !m.IsEOG(tok) {
			t.Errorf("token %d is not EOG", tok)
		}
	}
	if m.IsEOG(testmodel.TokenStartOfTurn) || m.IsEOG(400) {
		t.Error("ordinary token is EOG")
	}
	if m.ChatTemplate() != testmodel.GemmaTemplate {
		t.Errorf("chat template %q", m.ChatTemplate())
	}
	if m.PoolingType() != PoolingUnspecified {
		t.Errorf("pooling %d", m.PoolingType())
	}
	if name, ok := m.Meta("general.name"); !ok || name != "testllama" {
		t.Errorf("general.name = %q, %v", name, ok)
	}
	vm, err := l.LoadModel(f.llama, ModelParams{VocabOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if vm.NVocab() != m.NVocab() {
		t.Errorf("vocab-only model has %d tokens", vm.NVocab())
	}
}

func TestTokenizeRoundTrip(t *testing.T) {
	l := openLib(t)
	m := loadModel(t, l, models(t).llama)
	texts := []string{
		"the water was cold",
		"Hello, world! The memory daemon keeps notes.",
		"  leading and  double  spaces ",
		"numbers 12345 and symbols #$%^&*",
		"unicode: café, naïve, 東京, emoji 🙂",
		"tabs\tand\nnew lines\n",
		"",
	}
	for _, text := range texts {
		toks, err := m.Tokenize(text, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(toks) == 0 || toks[0] != m.BOS() {
			t.Errorf("%q: no BOS first: %v", text, toks)
		}
		if got := m.Detokenize(toks); got != text {
			t.Errorf("round trip %q -> %v -> %q", text, toks, got)
		}
		var pieces strings.Builder
		for _, tok := range toks[1:] {
			pieces.WriteString(m.TokenPiece(tok))
		}
		if got := strings.TrimPrefix(pieces.String(), " "); got != text {
			t.Errorf("pieces of %q give %q", text, got)
		}
	}
	toks, _ := m.Tokenize("the water", false, false)
	if len(toks) != 2 || m.TokenPiece(toks[0]) != " the" || m.TokenPiece(toks[1]) != " water" {
		t.Errorf("common words are not single tokens: %v", toks)
	}
	long := strings.TrimSpace(strings.Repeat("note ", 3000))
	if toks, err := m.Tokenize(long, false, false); err != nil || len(toks) != 3000 || m.Detokenize(toks) != long {
		t.Errorf("long text: %d tokens, %v", len(toks), err)
	}
	if got := m.TokenPiece(testmodel.TokenEndOfTurn); got != "" {
		t.Errorf("control token piece %q", got)
	}
	if got := m.TokenPieceSpecial(testmodel.TokenEndOfTurn, true); got != "<end_of_turn>" {
		t.Errorf("special piece %q", got)
	}
}

func TestChatTemplateGemma(t *testing.T) {
	l := openLib(t)
	m := loadModel(t, l, models(t).llama)
	msgs := []ChatMessage{
		{"system", "be brief"},
		{"user", "what is a note?"},
		{"assistant", "a small text"},
		{"user", "and a tag?"},
	}
	got, err := m.ApplyChatTemplate("", msgs, true)
	if err != nil {
		t.Fatal(err)
	}
	want := "<start_of_turn>user\nbe brief\n\nwhat is a note?<end_of_turn>\n" +
		"<start_of_turn>model\na small text<end_of_turn>\n" +
		"<start_of_turn>user\nand a tag?<end_of_turn>\n" +
		"<start_of_turn>model\n"
	if got != want {
		t.Fatalf("template gave\n%q\nwant\n%q", got, want)
	}
	toks, err := m.Tokenize(got, true, true)
	if err != nil {
		t.Fatal(err)
	}
	// Token for token: BOS, then each turn is <start_of_turn>, its text, <end_of_turn>.
	var want2 []int32
	want2 = append(want2, m.BOS())
	text := func(s string) {
		ts, err := m.Tokenize(s, false, false)
		if err != nil {
			t.Fatal(err)
		}
		want2 = append(want2, ts...)
	}
	for _, turn := range []string{"user\nbe brief\n\nwhat is a note?", "model\na small text", "user\nand a tag?"} {
		want2 = append(want2, testmodel.TokenStartOfTurn)
		text(turn)
		want2 = append(want2, testmodel.TokenEndOfTurn)
		text("\n")
	}
	want2 = append(want2, testmodel.TokenStartOfTurn)
	text("model\n")
	if !slices.Equal(toks, want2) {
		t.Errorf("tokens\n%v\nwant\n%v", toks, want2)
	}
	if _, err := m.ApplyChatTemplate("no known markers here", msgs, true); !errors.Is(err, ErrChatTemplate) {
		t.Errorf("unknown template: %v", err)
	}
	noTmpl := loadModel(t, l, models(t).bigram)
	if _, err := noTmpl.ApplyChatTemplate("", msgs, true); !errors.Is(err, ErrChatTemplate) {
		t.Errorf("model without template: %v", err)
	}
}
