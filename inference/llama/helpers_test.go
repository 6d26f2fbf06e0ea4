package llama

import (
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference/testmodel"
)

// FindTestLibrary returns the library folder the tests open: where memd
// itself would look (runtime.Find). The runtime package imports this one,
// so only the external test package can set it (findlib_test.go does).
var FindTestLibrary func() (string, error)

// openLib opens the library memd would find, or skips the test.
func openLib(t testing.TB) *Library {
	t.Helper()
	dir, err := FindTestLibrary()
	if err != nil {
		t.Skipf("no llama.cpp library (%v): run `memd runtime install` or set MEMD_LLAMA_LIB to run llama.cpp integration tests", err)
	}
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func loadModel(t testing.TB, l *Library, path string) *Model {
	t.Helper()
	m, err := l.LoadModel(path, ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func newContext(t testing.TB, m *Model, p ContextParams) *Context {
	t.Helper()
	if p.NThreads == 0 {
		p.NThreads = 1
	}
	c, err := m.NewContext(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// fixtures are generated models shared by the tests of one run.
type fixtures struct {
	dir      string
	llama    string // random llama, Gemma template
	lora     string // random LoRA for llama
	bigram   string
	bigLoRA  string
	table    []int32
	changes  map[int32]int32
	embedder *testmodel.Embedder
}

var (
	fixOnce sync.Once
	fix     fixtures
	fixErr  error
)

const bigramWords = 40

func models(t testing.TB) *fixtures {
	t.Helper()
	fixOnce.Do(func() {
		fix.dir, fixErr = os.MkdirTemp("", "memd-llama-test-")
		if fixErr != nil {
			return
		}
		cfg := testmodel.Config{ChatTemplate: true, Seed: 1}
		if fix.llama, fixErr = testmodel.WriteLlama(fix.dir, cfg); fixErr != nil {
			return
		}
		if fix.lora, fixErr = testmodel.WriteLoRA(fix.dir, cfg, testmodel.LoRAConfig{Output: true, Seed: 2}); fixErr != nil {
			return
		}
		n := int(testmodel.FirstWordToken) + bigramWords
		fix.table = make([]int32, n)
		for t := range fix.table {
			w := max(0, t-int(testmodel.FirstWordToken))
			fix.table[t] = testmodel.FirstWordToken + int32((w+7)%bigramWords)
		}
		fix.changes = map[int32]int32{
			testmodel.FirstWordToken + 7:  testmodel.FirstWordToken + 3,
			testmodel.FirstWordToken + 21: testmodel.FirstWordToken + 1,
		}
		if fix.bigram, fixErr = testmodel.WriteBigram(fix.dir, fix.table); fixErr != nil {
			return
		}
		if fix.bigLoRA, fixErr = testmodel.WriteBigramLoRA(fix.dir, fix.table, fix.changes); fixErr != nil {
			return
		}
		fix.embedder, fixErr = testmodel.WriteEmbedder(fix.dir, testmodel.Config{Embd: 32, Heads: 4, HeadsKV: 2, Seed: 3})
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return &fix
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fix.dir != "" {
		os.RemoveAll(fix.dir)
	}
	os.Exit(code)
}

// greedy decodes n tokens after prompt in sequence seq alone and returns them.
func greedy(t testing.TB, c *Context, prompt []int32, n int) []int32 {
	t.Helper()
	b := NewBatch(max(len(prompt), 1), 1)
	defer b.Free()
	for i, tok := range prompt {
		b.Add(tok, int32(i), 0, i == len(prompt)-1)
	}
	var out []int32
	pos := int32(len(prompt))
	for range n {
		if err := c.Decode(b); err != nil {
			t.Fatal(err)
		}
		next := argmax(c.Logits(b.Len() - 1))
		out = append(out, next)
		b.Clear()
		b.Add(next, pos, 0, true)
		pos++
	}
	return out
}

func argmax(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}

// prefillLogits clears the cache, decodes toks as sequence 0 and returns a
// copy of the last position's logits.
func prefillLogits(t testing.TB, c *Context, toks []int32) []float32 {
	t.Helper()
	c.MemoryClear()
	b := NewBatch(len(toks), 1)
	defer b.Free()
	for i, tok := range toks {
		b.Add(tok, int32(i), 0, i == len(toks)-1)
	}
	if err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(c.Logits(b.Len() - 1))
}
