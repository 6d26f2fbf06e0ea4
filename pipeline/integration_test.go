package pipeline

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// These tests run the model stages on the real llama.cpp library with
// generated models. They need MEMD_LLAMA_LIB, the folder holding libllama.

func testLibrary(t testing.TB) *llama.Library { return llamatest.Library(t) }

// byteToken is the bigram vocabulary's token for one byte (see
// testmodel.FirstWordToken).
func byteToken(b byte) int32 { return 5 + int32(b) }

// TestStagesWithBigramModel proves on llama.cpp that the chunk stage runs
// with the memory-chunk adapter and the summarize stage without it.
//
// A bigram model's greedy continuation is a walk of its table, so it can
// emit each token once before it loops, and its vocabulary has no pieces
// for punctuation but one byte token each: JSON, with its repeated quotes,
// cannot come out of it. The adapter's answer is therefore an outline
// ("0 sound\n2 people": chunks starting at blocks 0 and 2 with those
// titles), which parseChunkAnswer accepts besides JSON. Both the chunk and
// the summary prompts end in ':' (plainPrompt; the model has no chat
// template), so the first generated token decides: the adapter turns ':'
// into '0' and the outline follows; the base table turns it into "this is
// about water." and EOS.
func TestStagesWithBigramModel(t *testing.T) {
	l := testLibrary(t)
	words := testmodel.BigramWords()
	word := func(w string) int32 {
		i := slices.Index(words, w)
		if i < 0 || i >= 120 {
			t.Fatalf("word %q is not among the first 120", w)
		}
		return testmodel.FirstWordToken + int32(i)
	}
	table := make([]int32, testmodel.FirstWordToken+120)
	for i := range table {
		table[i] = testmodel.TokenEOS
	}
	walk := func(toks ...int32) {
		for i := 0; i+1 < len(toks); i++ {
			table[toks[i]] = toks[i+1]
		}
	}
	colon := byteToken(':')
	walk(colon, word("this"), word("is"), word("about"), word("water"), byteToken('.'), testmodel.TokenEOS)
	walk(byteToken('0'), word("sound"), byteToken('\n'), byteToken('2'), word("people"), testmodel.TokenEOS)
	dir := t.TempDir()
	model, err := testmodel.WriteBigram(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	lora, err := testmodel.WriteBigramLoRA(dir, table, map[int32]int32{colon: byteToken('0')})
	if err != nil {
		t.Fatal(err)
	}
	g, err := inference.LoadGenerator(l, inference.GeneratorConfig{
		Path: model, Adapters: map[string]string{"memory-chunk": lora}, Slots: 4, Threads: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if toks, _ := g.Tokenize(plainPrompt("x", "y"), true, true); toks[len(toks)-1] != colon {
		t.Fatalf("plain prompts end in token %d, not ':' (%d)", toks[len(toks)-1], colon)
	}

	src := "# Plan\n\nfirst part.\n\n## Later\n\nsecond part.\n" // blocks 0..3 on lines 1, 3, 5, 7
	_, n, cs := indexOne(t, withGen(g), src)
	if n.Chunker != ChunkerModel {
		t.Fatalf("chunker %q, want %q", n.Chunker, ChunkerModel)
	}
	if len(cs) != 2 || cs[0].Title != "sound" || cs[1].Title != "people" ||
		cs[0].StartLine != 1 || cs[0].EndLine != 3 || cs[1].StartLine != 5 || cs[1].EndLine != 7 {
		t.Fatalf("chunks %+v, want blocks 0-1 \"sound\" and 2-3 \"people\"", cs)
	}
	const base = "this is about water."
	if n.Summary != base || cs[0].Summary != base || cs[1].Summary != base {
		t.Errorf("summaries %q, %q, %q; want the base table's %q", n.Summary, cs[0].Summary, cs[1].Summary, base)
	}
}

// TestEmbedStageWithGeneratedEmbedder indexes notes with a generated
// embedding model on llama.cpp and checks each stored vector against the
// embedding computed directly from the model's weights.
func TestEmbedStageWithGeneratedEmbedder(t *testing.T) {
	l := testLibrary(t)
	ref, err := testmodel.WriteEmbedder(t.TempDir(), testmodel.Config{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	e, err := inference.LoadEmbedder(l, inference.EmbedderConfig{Path: ref.Path, Threads: 1, BatchSize: 512, Sequences: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dir := tempDir(t)
	for i, src := range []string{
		"# Garden\n\nWater the plants twice a week.\n",
		"# Kitchen\n\n## Bread\n\nflour, water and salt.\n\n## Soup\n\nleeks and potatoes.\n",
	} {
		writeFile(t, filepath.Join(dir, string(rune('a'+i))+".md"), src)
	}
	cfg := testConfig()
	cfg.Embedder = e
	ti := startIndexer(t, cfg)
	if _, err := ti.AddFolder(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	fp := e.Info().Fingerprint
	checked := 0
	err = ti.db.View(func(tx *store.Tx) error {
		if n, c := tx.VectorCount(fp), tx.Counts().Chunks; n != c || n == 0 {
			t.Errorf("%d vectors for %d chunks", n, c)
		}
		return tx.ForEachVector(fp, func(id uint64, q store.QuantizedVector) error {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			toks, err := e.Tokenize(vector.DocumentText(vector.FormatFor(e.Info()), c))
			if err != nil {
				return err
			}
			if cos := cosine(q.Dequantize(), ref.Embed(toks)); cos < 0.99 {
				t.Errorf("chunk %d: cosine %.4f to the direct embedding", id, cos)
			}
			checked++
			return nil
		})
	})
	if err != nil || checked == 0 {
		t.Fatalf("checked %d vectors: %v", checked, err)
	}
	if got := ti.served(fp); got != checked {
		t.Errorf("the in-memory index holds %d vectors, the store %d", got, checked)
	}
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}
