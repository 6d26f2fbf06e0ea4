package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/rank/lexical"
	"github.com/memd-dev/memd/store"
)

// footer is a template's page footer: its words (zucchini, trellis) are in
// no note's own text.
const footer = "\n---\n\n## About this page\n\nMade from the garden template: water the zucchini, mind the trellis.\n"

// ownNote is a note's own text, about one word of its own.
func ownNote(i int) string {
	return fmt.Sprintf("# Bed %d\n\nBed %d grows %s this year.\n", i, i, plants[i%len(plants)])
}

var plants = []string{"tomatoes", "beans", "leeks", "carrots", "onions", "peas", "kale", "chard",
	"radishes", "garlic", "spinach", "celery", "parsnips", "fennel"}

func termsOf(c store.NewChunk) []string {
	var out []string
	for _, tn := range c.Nums {
		out = append(out, c.Vocab.Term(tn.Num))
	}
	return out
}

func term(word string) string { return lexical.Terms(word)[0] }

// boilerOf is the boilerplate set of pn's blocks whose text contains any
// of marks.
func boilerOf(pn *parse.Note, marks ...string) boilerplate {
	b := boilerplate{}
	for _, bl := range pn.Blocks {
		for _, m := range marks {
			if strings.Contains(bl.Text, m) {
				b[bl.ID] = true
			}
		}
	}
	return b
}

func TestBoilerplateIsShownButNotCounted(t *testing.T) {
	cfg := testConfig().withDefaults()
	small := chunk.Options{TargetTokens: 20, MaxTokens: 60, MinTokens: -1} // the footer is a chunk of its own
	pn, err := parse.Parse("/v/bed.md", []byte(ownNote(1)+footer))
	if err != nil {
		t.Fatal(err)
	}
	boiler := boilerOf(pn, "garden template") // headings and breaks are never boilerplate
	cs := chunk.Heuristic(pn, small)
	var terms termCounter
	chunks := newChunks(pn, cs, &terms, cfg, boiler)
	var text strings.Builder
	var all []string
	for i, c := range chunks {
		text.WriteString(c.Text)
		all = append(all, termsOf(c)...)
		if strings.Contains(c.Text, "zucchini") && !strings.Contains(c.Text, "beans") && c.HasTerms() {
			t.Errorf("chunk %d, footer only, has terms %v", i, termsOf(c))
		}
	}
	if !strings.Contains(text.String(), "water the zucchini") {
		t.Errorf("the footer's text is not stored with the note: %q", text.String())
	}
	for _, w := range []string{"zucchini", "trellis", "template", "about"} {
		if slices.Contains(all, term(w)) {
			t.Errorf("footer word %q is counted: %v", w, all)
		}
	}
	if !slices.Contains(all, term("beans")) {
		t.Errorf("the note's own word is not counted: %v", all)
	}

	// One chunk holding both: only the note's own text counts.
	mixed := newChunks(pn, chunk.Heuristic(pn, chunk.Options{}), &terms, cfg, boiler)
	if len(mixed) != 1 || !slices.Contains(termsOf(mixed[0]), term("beans")) || slices.Contains(termsOf(mixed[0]), term("zucchini")) {
		t.Errorf("a chunk of own text and footer: %d chunks, terms %v", len(mixed), termsOf(mixed[0]))
	}
	// Without boilerplate, nothing changes.
	plain := newChunks(pn, chunk.Heuristic(pn, chunk.Options{}), &terms, cfg, nil)
	if !slices.Contains(termsOf(plain[0]), term("zucchini")) {
		t.Errorf("with no boilerplate the footer's words are not counted: %v", termsOf(plain[0]))
	}
}

func TestNoteOfBoilerplateOnlyIsFoundByTitle(t *testing.T) {
	cfg := testConfig().withDefaults()
	pn, err := parse.Parse("/v/stub.md", []byte("---\ntitle: Greenhouse stub\n---\n"+footer))
	if err != nil {
		t.Fatal(err)
	}
	boiler := boilerOf(pn, "garden template")
	var terms termCounter
	chunks := newChunks(pn, chunk.Heuristic(pn, chunk.Options{TargetTokens: 8, MinTokens: -1}), &terms, cfg, boiler)
	if len(chunks) < 2 {
		t.Fatalf("want the footer cut in several chunks, got %d", len(chunks))
	}
	first := termsOf(chunks[0])
	if !slices.Contains(first, term("greenhouse")) || slices.Contains(first, term("zucchini")) {
		t.Errorf("first chunk terms %v: want the title's, not the footer's", first)
	}
	for _, c := range chunks[1:] {
		if c.HasTerms() {
			t.Errorf("a later chunk of boilerplate has terms %v", termsOf(c))
		}
	}
}

func TestLeadSummarySkipsBoilerplate(t *testing.T) {
	pn, err := parse.Parse("/v/bed.md", []byte("![badge](https://example.org/b.svg) Made from the garden template.\n\nBeans climb the poles.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := leadSummary(pn, boilerOf(pn, "badge")); got != "Beans climb the poles." {
		t.Errorf("lead summary %q", got)
	}
}

// docFreq is how many chunks hold word.
func docFreq(t *testing.T, ti *testIndexer, word string) int {
	t.Helper()
	var n int
	if err := ti.db.View(func(tx *store.Tx) error { n = tx.DocFreq(term(word)); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// writeVault writes n notes of their own text into dir, the first
// withFooter of them with the template's footer.
func writeVault(t *testing.T, dir string, n, withFooter int) {
	for i := range n {
		text := ownNote(i)
		if i < withFooter {
			text += footer
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("bed%02d.md", i)), text)
	}
}

// A footer that reaches boilerplateNotes notes across batches stops
// counting in every note, those indexed before it crossed included; one
// that falls back under it counts again, in the notes that did not change.
func TestBoilerplateCrossesTheThreshold(t *testing.T) {
	cfg := testConfig()
	cfg.BatchNotes = 3 // the footer crosses in the fourth batch
	ti := startIndexer(t, cfg)
	dir := tempDir(t)
	writeVault(t, dir, 14, 12)
	if _, err := ti.AddFolder(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	if n := docFreq(t, ti, "zucchini"); n != 0 {
		t.Errorf("the footer of 12 notes counts in %d chunks", n)
	}
	for _, p := range plants {
		if n := docFreq(t, ti, p); n != 1 {
			t.Errorf("own word %q in %d chunks, want 1", p, n)
		}
	}

	// Three notes drop the footer: nine hold it, under the threshold, and
	// the nine, unchanged on disk, count it again.
	for i := range 3 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("bed%02d.md", i)), ownNote(i)+"\nNo footer now.\n")
	}
	waitFor(t, "the footer to count in the 9 notes that keep it", func() bool {
		return docFreq(t, ti, "zucchini") == 9
	})
	ti.waitIdle(t)
	if n := docFreq(t, ti, "trellis"); n != 9 {
		t.Errorf("trellis in %d chunks, want 9", n)
	}
}

// The notes a crossing re-weights are marked and queued in the crossing's
// own transaction: a daemon killed right after it re-weights them at the
// next start.
func TestBoilerplateRequeueIsDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db := openStore(t, path)
	const folder = "/v"
	put := func(tx *store.Tx, i int) *store.Note {
		n := &store.Note{Path: fmt.Sprintf("/v/n%02d.md", i), Folder: folder, Hash: "ab", Size: 10,
			Blocks: []string{fmt.Sprintf("%016x", 100+i), "00000000000000f0"}}
		if _, err := tx.PutNote(n, nil); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := db.Update(func(tx *store.Tx) error {
		for i := range boilerplateNotes - 1 {
			put(tx, i)
		}
		var s boilerplateSettle
		return s.settle(tx, true) // under the threshold: nothing to redo
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *store.Tx) error {
		var s boilerplateSettle
		s.wrote(put(tx, boilerplateNotes-1), boilerplate{"00000000000000f0": true})
		return s.settle(tx, true)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openStore(t, path)
	defer db.Close()
	db.View(func(tx *store.Tx) error {
		jobs, _ := tx.Jobs(100)
		var queued []string
		for _, j := range jobs {
			queued = append(queued, j.Path)
		}
		slices.Sort(queued)
		if len(queued) != boilerplateNotes-1 || queued[0] != "/v/n00.md" || slices.Contains(queued, fmt.Sprintf("/v/n%02d.md", boilerplateNotes-1)) {
			t.Errorf("queued %v: want the %d notes weighted before the crossing, not the one written with it", queued, boilerplateNotes-1)
		}
		for _, p := range queued {
			if n, _ := tx.Note(p); n == nil || n.Size >= 0 {
				t.Errorf("%s is queued but not marked for a forced re-index: %+v", p, n)
			}
		}
		return nil
	})
}

// The model stages weigh boilerplate as the heuristic does, write no
// summary of a chunk of it, and an enrichment read before a footer's
// count fell under the threshold is not written over the re-weighting.
func TestBoilerplateThroughTheModelStages(t *testing.T) {
	gate := make(chan struct{})
	g := newFakeGen("gen-a", func(adapter, user string) (string, error) {
		<-gate
		return headingChunks(adapter, user)
	})
	cfg := withGen(g)
	cfg.Embedder = &fakeEmb{fp: "emb-a", dim: 8}
	ti := startIndexer(t, cfg)
	dir := tempDir(t)
	writeVault(t, dir, 12, 12)
	if _, err := ti.AddFolder(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the notes stored before the models answer", func() bool { return ti.counts().Notes == 12 })
	if n := docFreq(t, ti, "zucchini"); n != 0 {
		t.Fatalf("the footer of 12 notes counts in %d heuristic chunks", n)
	}
	// With the models held, three notes drop the footer: the other nine
	// count it again, and the enrichments read before must not undo that.
	for i := range 3 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("bed%02d.md", i)), ownNote(i)+"\nNo footer now.\n")
	}
	waitFor(t, "the nine re-weighted with the heuristic", func() bool { return docFreq(t, ti, "zucchini") == 9 })
	close(gate)
	ti.waitIdle(t)
	if n := docFreq(t, ti, "zucchini"); n != 9 {
		t.Errorf("after enrichment the footer counts in %d chunks, want 9", n)
	}
	n, cs := noteChunks(t, ti.db, filepath.Join(dir, "bed05.md"))
	if n.Chunker != ChunkerModel || !strings.Contains(joinTexts(cs), "zucchini") {
		t.Fatalf("bed05: chunker %q, text %q", n.Chunker, joinTexts(cs))
	}

	// Back over the threshold: the footer's chunks lose their terms and
	// get no summary.
	for i := range 3 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("bed%02d.md", i)), ownNote(i)+footer)
	}
	waitFor(t, "the footer to stop counting", func() bool { return docFreq(t, ti, "zucchini") == 0 })
	ti.waitIdle(t)
	if n := docFreq(t, ti, "zucchini"); n != 0 {
		t.Errorf("the footer of 12 enriched notes counts in %d chunks", n)
	}
	_, cs = noteChunks(t, ti.db, filepath.Join(dir, "bed05.md"))
	for _, c := range cs {
		if strings.Contains(c.Text, "zucchini") && !strings.Contains(c.Text, "kale") && c.Summary != "" {
			t.Errorf("a footer chunk has a summary: %q", c.Summary)
		}
	}
}

// A footer that crosses boilerplateNotes in one batch is boilerplate in the
// notes of the batch read ahead while that one commits, though the store
// it reads does not hold the crossing yet: it counts the committing
// batch's notes as written.
func TestBoilerplateForeseenAcrossTheBatchAhead(t *testing.T) {
	cfg := testConfig()
	cfg.BatchNotes = 12 // the footer crosses in the first batch; two more notes hold it in the next
	ti := newIndexer(t, cfg)
	dir := tempDir(t)
	writeVault(t, dir, 14, 14)
	if _, err := ti.AddFolder(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	committing := ti.worker.readBatch(t.Context(), nil) // prepared, not committed
	ahead := ti.worker.readBatch(t.Context(), pendingOf(committing.outs))
	defer ti.queue.closeBatch(committing.window)
	defer ti.queue.closeBatch(ahead.window)
	if len(committing.outs) != 12 || len(ahead.outs) != 2 {
		t.Fatalf("batches of %d and %d notes, want 12 and 2", len(committing.outs), len(ahead.outs))
	}
	for _, o := range ahead.outs {
		for _, c := range o.chunks {
			if slices.Contains(termsOf(c), term("zucchini")) {
				t.Errorf("%s counts the footer that the batch before it made boilerplate", o.job.Path)
			}
		}
	}
}
