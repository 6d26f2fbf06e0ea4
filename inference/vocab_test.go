package inference

import (
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/testmodel"
)

// TestModelVocabMatchesLlama checks the cached vocabulary against llama.cpp
// for every token, on first use and from the cache: the built-in one
// (control, unknown, byte and word tokens) and one padded with unused
// tokens. Four goroutines look tokens up at once, as the schedulers of a
// generator's contexts do.
func TestModelVocabMatchesLlama(t *testing.T) {
	lib := testLibrary(t)
	padded, err := testmodel.WriteLlama(t.TempDir(), testmodel.Config{Name: "padded", Vocab: 5000, Embd: 32, Layers: 1, Heads: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{tinyModel(t), padded} {
		m, err := lib.LoadModel(path, llama.ModelParams{VocabOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		n := m.NVocab()
		pieces, eogs := make([]string, n), make([]bool, n)
		for tok := range int32(n) {
			pieces[tok], eogs[tok] = m.TokenPiece(tok), m.IsEOG(tok)
		}
		v := newModelVocab(m)
		if v.NVocab() != n {
			t.Fatalf("%s: NVocab %d, llama.cpp %d", path, v.NVocab(), n)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for pass := range 2 {
					for i := range n {
						tok := int32((i*7 + g*n/4) % n) // each goroutine in its own order
						if got := v.Piece(tok); got != pieces[tok] {
							t.Errorf("%s: pass %d: token %d: piece %q, llama.cpp %q", path, pass, tok, got, pieces[tok])
						}
						if got := v.IsEOG(tok); got != eogs[tok] {
							t.Errorf("%s: pass %d: token %d: IsEOG %v, llama.cpp %v", path, pass, tok, got, eogs[tok])
						}
					}
				}
			})
		}
		wg.Wait()
		if !v.IsEOG(testmodel.TokenEOS) || v.Piece(testmodel.FirstWordToken) == "" {
			t.Errorf("%s: EOS does not end generation, or word token %d has no text", path, testmodel.FirstWordToken)
		}
		for _, tok := range []int32{-1, int32(n)} {
			if v.Piece(tok) != "" || v.IsEOG(tok) {
				t.Errorf("%s: token %d outside the vocabulary has piece %q, EOG %v", path, tok, v.Piece(tok), v.IsEOG(tok))
			}
		}
		if v.used != uint32(n) {
			t.Errorf("%s: %d cache entries for %d tokens", path, v.used, n)
		}
		chunks := (n + pieceChunk - 1) / pieceChunk
		size := 4*len(v.tokens) + 8*len(v.pieces) + chunks*pieceChunk*16
		for tok := range int32(n) {
			size += len(v.Piece(tok))
		}
		t.Logf("%s: %d tokens, cache %d bytes", path, n, size)
	}
}
