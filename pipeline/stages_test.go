package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/store"
)

// noteWithSections is a note of a title heading, an intro and n sections
// of a heading and a paragraph: blocks 0 (title), 1 (intro), then 2k+2
// (heading) and 2k+3 (paragraph) for section k.
func noteWithSections(n int, words int) string {
	var sb strings.Builder
	sb.WriteString("# Garden\n\nAn intro paragraph about the garden.\n")
	for k := range n {
		fmt.Fprintf(&sb, "\n## Section %d\n\n", k)
		for w := range words {
			fmt.Fprintf(&sb, "w%d ", w%50)
		}
		sb.WriteString("end.\n")
	}
	return sb.String()
}

type chunkRow struct {
	first, last int // lines
	title       string
	summary     string
}

// noteChunks returns the stored note at path and its chunks.
func noteChunks(t *testing.T, db *store.DB, path string) (*store.Note, []store.Chunk) {
	t.Helper()
	var n *store.Note
	var cs []store.Chunk
	err := db.View(func(tx *store.Tx) error {
		var err error
		if n, err = tx.Note(path); err != nil {
			return err
		}
		for _, id := range n.Chunks {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			cs = append(cs, *c)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("note %s: %v", path, err)
	}
	return n, cs
}

// indexOne indexes one note with cfg and returns the stored note and
// chunks.
func indexOne(t *testing.T, cfg Config, src string) (*testIndexer, *store.Note, []store.Chunk) {
	t.Helper()
	dir := tempDir(t)
	path := filepath.Join(dir, "note.md")
	writeFile(t, path, src)
	ti := startIndexer(t, cfg)
	if _, err := ti.AddFolder(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	n, cs := noteChunks(t, ti.db, path)
	return ti, n, cs
}

func withGen(g Completer) Config {
	cfg := testConfig()
	cfg.Generator = g
	return cfg
}

func TestChunkStage(t *testing.T) {
	src := noteWithSections(3, 20) // blocks 0..7
	answer := func(a string) func(string, string) (string, error) {
		return func(adapter, user string) (string, error) {
			if adapter == "" {
				return "A summary.", nil
			}
			return a, nil
		}
	}
	tests := []struct {
		name    string
		answer  string
		chunker string
		want    []string // chunk titles, model chunker only
	}{
		{"valid", `{"chunks":[{"start":0,"end":3,"title":"Intro"},{"start":4,"end":7,"title":"Rest"}]}`, ChunkerModel, []string{"Intro", "Rest"}},
		{"repaired: inverted, tail", `{"chunks":[{"start":3,"end":0,"title":"Intro"},{"start":4,"end":5,"title":"Rest"}]}`, ChunkerModel, []string{"Intro", "Rest"}},
		{"repaired: out of range clamped", `{"chunks":[{"start":0,"end":3,"title":"Intro"},{"start":4,"end":99,"title":"Rest"}]}`, ChunkerModel, []string{"Intro", "Rest"}},
		{"no JSON", "Sure! This note is about a garden.", ChunkerFallback, nil},
		{"garbage", `{"chunks":[{"start":`, ChunkerFallback, nil},
		{"empty chunks list", `{"chunks":[]}`, ChunkerFallback, nil},
		{"all ids out of range", `{"chunks":[{"start":40,"end":50},{"start":60,"end":61}]}`, ChunkerFallback, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGen("gen-a", answer(tt.answer))
			_, n, cs := indexOne(t, withGen(g), src)
			if n.Chunker != tt.chunker {
				t.Fatalf("chunker %q, want %q", n.Chunker, tt.chunker)
			}
			if g.callsFor("memory-chunk", "[0] heading") != 1 {
				t.Errorf("chunk requests with the adapter: %d, want 1", g.callsFor("memory-chunk", ""))
			}
			if tt.want != nil {
				var titles []string
				for _, c := range cs {
					titles = append(titles, c.Title)
				}
				if strings.Join(titles, ",") != strings.Join(tt.want, ",") {
					t.Errorf("titles %q, want %q", titles, tt.want)
				}
				if cs[0].StartLine != 1 || cs[len(cs)-1].EndLine != strings.Count(src, "\n") {
					t.Errorf("chunks cover lines %d-%d", cs[0].StartLine, cs[len(cs)-1].EndLine)
				}
			}
		})
	}
}

func TestChunkStageSplitsOversize(t *testing.T) {
	src := noteWithSections(4, 400) // sections of ~400 tokens
	g := newFakeGen("gen-a", func(adapter, user string) (string, error) {
		if adapter == "" {
			return "A summary.", nil
		}
		return `{"chunks":[{"start":0,"end":9,"title":"Everything"}]}`, nil
	})
	cfg := withGen(g)
	_, n, cs := indexOne(t, cfg, src)
	if n.Chunker != ChunkerModel || len(cs) < 2 {
		t.Fatalf("chunker %q, %d chunks; want the one oversize chunk split", n.Chunker, len(cs))
	}
	for _, c := range cs {
		if c.Title != "Everything" {
			t.Errorf("part titled %q, want the model's title", c.Title)
		}
	}
}

func TestChunkStageWindows(t *testing.T) {
	src := noteWithSections(40, 10) // 82 blocks
	g := newFakeGen("gen-a", headingChunks)
	cfg := withGen(g)
	cfg.ChunkContext = 900
	_, n, cs := indexOne(t, cfg, src)
	windows := g.callsFor("memory-chunk", "")
	if n.Chunker != ChunkerModel || windows < 3 {
		t.Fatalf("chunker %q in %d windows; want the model in several", n.Chunker, windows)
	}
	// One chunk per heading: the intro with the title, then 40 sections,
	// however the windows fell.
	if len(cs) != 41 {
		t.Fatalf("%d chunks, want 41", len(cs))
	}
	for k, c := range cs[1:] {
		if want := fmt.Sprintf("## Section %d", k); !strings.HasPrefix(c.Text, want) {
			t.Errorf("chunk %d starts %q, want %q", k+1, c.Text[:min(20, len(c.Text))], want)
		}
	}
}

func TestNoAdapterNoChunkModel(t *testing.T) {
	g := newFakeGen("gen-a", headingChunks)
	g.info.Adapters = nil
	ti, n, _ := indexOne(t, withGen(g), noteWithSections(2, 10))
	if n.Chunker != ChunkerHeuristic || g.callsFor("memory-chunk", "") != 0 {
		t.Errorf("chunker %q with %d chunk requests; want the heuristic, no requests", n.Chunker, g.callsFor("memory-chunk", ""))
	}
	if !strings.Contains(ti.ChunkerStatus(), "no memory-chunk adapter") {
		t.Errorf("status %q does not say the adapter is missing", ti.ChunkerStatus())
	}
	if !strings.HasPrefix(n.Summary, "it is about") {
		t.Errorf("summary %q; the base model still summarizes", n.Summary)
	}
}

func TestSummarizeStage(t *testing.T) {
	src := noteWithSections(2, 10)
	g := newFakeGen("gen-a", func(adapter, user string) (string, error) {
		if adapter != "" {
			return `{"chunks":[{"start":0,"end":3,"title":"One"},{"start":4,"end":5,"title":"Two"}]}`, nil
		}
		if strings.Contains(user, "Its parts:") {
			return "The whole note.\n\nExtra text the model added.", nil
		}
		return "Summary: about " + strings.Fields(user[strings.Index(user, "\n\n"):])[0] + ".", nil
	})
	_, n, cs := indexOne(t, withGen(g), src)
	if n.Summary != "The whole note." {
		t.Errorf("note summary %q", n.Summary)
	}
	if cs[0].Summary != "about #." || cs[1].Summary != "about ##." {
		t.Errorf("chunk summaries %q, %q", cs[0].Summary, cs[1].Summary)
	}

	// Errors keep the fallbacks: the lead summary, no chunk summaries.
	g = newFakeGen("gen-a", func(adapter, user string) (string, error) {
		if adapter != "" {
			return `{"chunks":[{"start":0,"end":5}]}`, nil
		}
		return "", errors.New("decode failed")
	})
	_, n, cs = indexOne(t, withGen(g), src)
	if n.Summary != "An intro paragraph about the garden." || cs[0].Summary != "" {
		t.Errorf("after errors: note summary %q, chunk summary %q", n.Summary, cs[0].Summary)
	}
}

func TestPlainPromptWithoutChatTemplate(t *testing.T) {
	var prompts []string
	g := newFakeGen("gen-a", nil)
	g.answer = func(adapter, user string) (string, error) { return "x", nil }
	wrapped := &templateless{fakeGen: g, seen: &prompts}
	_, n, _ := indexOne(t, withGen(wrapped), "# T\n\nbody text.\n")
	if n.Summary != "x" || len(prompts) == 0 || !strings.HasSuffix(prompts[0], "Answer:") {
		t.Errorf("summary %q, prompts %q", n.Summary, prompts)
	}
}

// templateless fails chat requests as a model without a chat template does.
type templateless struct {
	*fakeGen
	seen *[]string
}

func (g *templateless) Complete(ctx context.Context, req inference.CompletionRequest) (inference.Completion, error) {
	if len(req.Messages) > 0 {
		return inference.Completion{}, fmt.Errorf("complete: %w", inference.ErrNoChatTemplate)
	}
	*g.seen = append(*g.seen, req.Prompt)
	return g.fakeGen.Complete(ctx, req)
}

func TestEmbedStage(t *testing.T) {
	var sb strings.Builder
	for k := range 70 {
		fmt.Fprintf(&sb, "## S%d\n\npara %d.\n\n", k, k)
	}
	emb := &fakeEmb{fp: "emb-a", dim: 8}
	cfg := testConfig()
	cfg.Embedder = emb
	cfg.Chunk.TargetTokens, cfg.Chunk.MaxTokens, cfg.Chunk.MinTokens = 4, 8, -1 // a chunk a section
	ti, n, cs := indexOne(t, cfg, sb.String())
	if len(cs) != 70 {
		t.Fatalf("%d chunks, want 70", len(cs))
	}
	if got := emb.calls(); len(got) != 2 || got[0] != 64 || got[1] != 6 {
		t.Errorf("embed calls of %v texts, want [64 6]", got)
	}
	if emb.texts[0] != "S0\n## S0\n\npara 0." {
		t.Errorf("document text %q", emb.texts[0])
	}
	_ = ti.db.View(func(tx *store.Tx) error {
		if got := tx.VectorCount("emb-a"); got != len(n.Chunks) {
			t.Errorf("%d vectors stored, want %d", got, len(n.Chunks))
		}
		if a := tx.VectorState().Active; a != "emb-a" {
			t.Errorf("active vectors %q", a)
		}
		return nil
	})
	if got := ti.served("emb-a"); got != 70 {
		t.Errorf("the in-memory index holds %d vectors", got)
	}
	// A rewrite drops the vectors with the old chunks (phase one) and its
	// enrichment writes the new chunks with theirs (phase two).
	path := n.Path
	writeFile(t, path, "# Short\n\nnow one chunk.\n")
	waitFor(t, "the rewrite", func() bool { n2, _ := noteChunks(t, ti.db, path); return len(n2.Chunks) == 1 })
	ti.waitIdle(t)
	_ = ti.db.View(func(tx *store.Tx) error {
		if got := tx.VectorCount("emb-a"); got != 1 {
			t.Errorf("after the rewrite %d vectors, want 1", got)
		}
		return nil
	})
	if got := ti.served("emb-a"); got != 1 {
		t.Errorf("the in-memory index holds %d vectors after the rewrite", got)
	}
}

// runOnce runs an indexer over db with cfg until idle, then stops it.
func runOnce(t *testing.T, db *store.DB, cfg Config, dir string) *Indexer {
	t.Helper()
	ti := &testIndexer{Indexer: NewIndexer(db, cfg), db: db}
	ti.start(t)
	if _, err := ti.AddFolder(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	ti.stop()
	return ti.Indexer
}

func TestRechunkOnGeneratorChange(t *testing.T) {
	dir := tempDir(t)
	for i := range 5 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%d.md", i)), noteWithSections(2, 10))
	}
	db := openStore(t, filepath.Join(t.TempDir(), "memd.db"))
	defer db.Close()

	heuristic := runOnce(t, db, testConfig(), dir)
	if m, f, h := heuristic.ChunkerCounts(); m != 0 || f != 0 || h != 5 {
		t.Errorf("heuristic run: counts %d %d %d", m, f, h)
	}
	for _, c := range []struct {
		fp    string
		calls int
	}{{"gen-a", 5}, {"gen-a", 0}, {"gen-b", 5}} {
		g := newFakeGen(c.fp, headingChunks)
		ix := runOnce(t, db, withGen(g), dir)
		if got := g.callsFor("memory-chunk", ""); got != c.calls {
			t.Errorf("generator %s: %d chunk requests, want %d", c.fp, got, c.calls)
		}
		if m, f, h := ix.ChunkerCounts(); m != 5 || f != 0 || h != 0 {
			t.Errorf("generator %s: counts model %d fallback %d heuristic %d", c.fp, m, f, h)
		}
	}
	// Without a generator nothing is redone.
	ix := runOnce(t, db, testConfig(), dir)
	if m, _, _ := ix.ChunkerCounts(); m != 5 {
		t.Errorf("after the generator went: %d notes by the model, want 5 kept", m)
	}
}

func TestReembedOnEmbedderChange(t *testing.T) {
	dir := tempDir(t)
	for i := range 6 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%d.md", i)), noteWithSections(1, 5))
	}
	db := openStore(t, filepath.Join(t.TempDir(), "memd.db"))
	defer db.Close()
	cfg := testConfig()
	cfg.Embedder = &fakeEmb{fp: "emb-a", dim: 8}
	runOnce(t, db, cfg, dir)
	var chunks int
	_ = db.View(func(tx *store.Tx) error { chunks = tx.Counts().Chunks; return nil })

	gate := make(chan struct{})
	embB := &fakeEmb{fp: "emb-b", dim: 4, gate: gate}
	cfg.Embedder = embB
	ti := wire(t, db, cfg)
	ti.start(t)
	meta := func() (active, next string, a, b int) {
		_ = db.View(func(tx *store.Tx) error {
			st := tx.VectorState()
			active, next = st.Active, st.Next
			a, b = tx.VectorCount("emb-a"), tx.VectorCount("emb-b")
			return nil
		})
		return
	}
	waitFor(t, "the re-embed to start", func() bool { _, next, _, _ := meta(); return next == "emb-b" })
	time.Sleep(50 * time.Millisecond)
	if active, _, a, b := meta(); active != "emb-a" || a != chunks || b != 0 {
		t.Fatalf("before the new embedder answers: active %q, %d old and %d new vectors", active, a, b)
	}
	close(gate)
	waitFor(t, "the switch", func() bool { active, _, _, _ := meta(); return active == "emb-b" })
	if active, next, a, b := meta(); active != "emb-b" || next != "" || a != 0 || b != chunks {
		t.Errorf("after the switch: active %q next %q, %d old and %d new vectors", active, next, a, b)
	}
	waitFor(t, "the in-memory index to serve the new vectors", func() bool { return ti.served("emb-b") == chunks })
	ti.stop()
}

// TestChunkRequestFailureWarnsOnce: a generator that refuses every chunk
// request (a chat template it cannot render) is a warning in the log, said
// once however many notes it fails, and each note is still cut by the
// heuristic; an unusable answer stays a debug line.
func TestChunkRequestFailureWarnsOnce(t *testing.T) {
	refused := errors.New("render prompt: chat template not supported by llama.cpp's built-in templates")
	g := newFakeGen("gen-a", func(adapter, user string) (string, error) {
		if strings.Contains(user, "garbage") {
			return "Sure! This note is about a garden.", nil
		}
		return "", refused
	})
	var logs bytes.Buffer
	ms := newModelStages(withGen(g), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	for i, body := range []string{"one", "two", "three", "garbage"} {
		pn, err := parse.Parse(fmt.Sprintf("n%d.md", i), []byte("# "+body+"\n\nSome text about "+body+".\n"))
		if err != nil {
			t.Fatal(err)
		}
		cs, chunker, err := ms.chunkNote(context.Background(), pn)
		if err != nil || chunker != ChunkerFallback || len(cs) == 0 {
			t.Fatalf("note %s: %d chunks, chunker %q, err %v; want the heuristic's", body, len(cs), chunker, err)
		}
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 || !strings.Contains(logs.String(), "chat template not supported") {
		t.Fatalf("%d warnings, want one naming the cause:\n%s", n, logs.String())
	}
}

// WaitIdle returns only once an enrichment's commit has been told to the
// rest of memd: the commit takes the notes off the enrich queue, and the
// vectors serve only after it (memctl add --wait returned, now and then,
// before recall could find them). The telling is slowed here so that an
// Indexer that counted the gap as idle would answer in it.
func TestWaitIdleWaitsForEnrichedVectors(t *testing.T) {
	dir := tempDir(t)
	for i := range 5 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%d.md", i)), fmt.Sprintf("# Note %d\n\nText %d.\n", i, i))
	}
	cfg := testConfig()
	cfg.Embedder = &fakeEmb{fp: "emb-a", dim: 8}
	ti := newIndexer(t, cfg)
	told := ti.enricher.committed
	ti.enricher.committed = func(eff *txEffects, evs []memd.Event, requeued bool) {
		time.Sleep(200 * time.Millisecond)
		told(eff, evs, requeued)
	}
	ti.start(t)
	if _, err := ti.AddFolder(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	if got := ti.served("emb-a"); got != 5 {
		t.Fatalf("idle, and the in-memory index holds %d vectors, want 5", got)
	}
}
