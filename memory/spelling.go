package memory

import (
	"iter"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/rank/lexical"
	"github.com/memd-dev/memd/store"
)

// spellingRefresh is how old the term dictionary may grow while notes
// change before a recall that needs it has it rebuilt, in the background.
const spellingRefresh = 30 * time.Second

// spelling keeps the term dictionary typo tolerance corrects against, and
// query expansion reads document frequencies from. The first recall with
// a term the index does not know, or that expands, builds it in its own
// read transaction (a read of every posting block: about 0.1 s per 100k
// chunks); later ones rebuild it in the background once the index has
// changed and it is spellingRefresh old, answering from the old one
// meanwhile. A term too new for the dictionary is still found: only
// corrections come from it.
type spelling struct {
	db *store.DB

	mu       sync.Mutex
	dict     *rank.Dictionary
	version  indexVersion
	built    time.Time
	building bool
	wg       sync.WaitGroup
}

// indexVersion changes when chunks are added or removed.
type indexVersion struct {
	maxID  uint64
	chunks int
}

func versionOf(tx *store.Tx) indexVersion {
	return indexVersion{maxID: tx.MaxChunkID(), chunks: tx.Counts().Chunks}
}

// dictionary is the term dictionary for a recall reading tx.
func (sp *spelling) dictionary(tx *store.Tx) *rank.Dictionary {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	v := versionOf(tx)
	if sp.dict == nil {
		if d, err := buildDictionary(tx); err == nil {
			sp.dict, sp.version, sp.built = d, v, time.Now()
		}
		return sp.dict
	}
	if v != sp.version && !sp.building && time.Since(sp.built) >= spellingRefresh {
		sp.building = true
		sp.wg.Go(func() { sp.rebuild() })
	}
	return sp.dict
}

func (sp *spelling) rebuild() {
	var d *rank.Dictionary
	var v indexVersion
	err := sp.db.View(func(tx *store.Tx) error {
		var err error
		d, err = buildDictionary(tx)
		v = versionOf(tx)
		return err
	})
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.building = false
	if err == nil {
		sp.dict, sp.version, sp.built = d, v, time.Now()
	}
}

func buildDictionary(tx *store.Tx) (*rank.Dictionary, error) {
	var err error
	d := rank.NewDictionary(func(fn func(term string, df int)) { err = tx.ForEachTerm(fn) })
	return d, err
}

// wait returns when no rebuild runs.
func (sp *spelling) wait() { sp.wg.Wait() }

// spellAsNotes sets each of fixes' Word to how the notes write its
// correction: of the words of the first chunks holding it that are that
// term, the one whose ending is most like the word typed, then the
// shortest ("uninvolved" is shown as "involved", not "involvement"). A
// correction is a term, a stem ("involv"), which is no word to show.
func spellAsNotes(tx *store.Tx, text string, fixes []rank.Correction) error {
	typed := rank.TypedWords(text, fixes)
	for i := range fixes {
		f := &fixes[i]
		posts, err := tx.Postings(f.To, nil)
		if err != nil {
			return err
		}
		// A stem is its words' start, but for its last letter ("daili" of
		// "daily"): words that do not start so are passed over unanalyzed.
		stem := f.To[:max(1, len(f.To)-1)]
		best, bestEnd := "", -1
		for _, p := range posts[:min(len(posts), spellingChunks)] {
			if bestEnd >= len(best) && best != "" {
				break // the typed word ends with best: none is more alike
			}
			c, err := tx.Chunk(p.Chunk)
			if err != nil {
				return err
			}
			for w := range wordsStarting(c.Text, stem) {
				if terms := lexical.Terms(w); len(terms) != 1 || terms[0] != f.To {
					continue
				}
				end := commonSuffix(strings.ToLower(w), typed[f.From])
				if end > bestEnd || (end == bestEnd && len(w) < len(best)) {
					best, bestEnd = w, end
				}
			}
		}
		f.Word = best
	}
	return nil
}

// spellingChunks is how many chunks holding a correction spellAsNotes
// reads for its spelling, at most: enough to find the word ending as the
// typed one does among a stem's words (involved, involves, involvement).
const spellingChunks = 8

// wordsStarting yields the words of text (runs of letters and digits)
// that begin with prefix, lower-case ASCII, in any case: found by a search
// for prefix, not a walk over every word.
func wordsStarting(text, prefix string) iter.Seq[string] {
	return func(yield func(string) bool) {
		lower := lowerASCII(text) // offsets as text's
		for at := 0; ; {
			i := strings.Index(lower[at:], prefix)
			if i < 0 {
				return
			}
			start := at + i
			at = start + len(prefix)
			if r, _ := utf8.DecodeLastRuneInString(text[:start]); start > 0 && isWordRune(r) {
				continue // inside a word
			}
			end := at
			for end < len(text) {
				r, n := utf8.DecodeRuneInString(text[end:])
				if !isWordRune(r) {
					break
				}
				end += n
			}
			if !yield(text[start:end]) {
				return
			}
			at = end
		}
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// lowerASCII is s with A-Z lower-cased, every other byte as it is.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// commonSuffix is how many bytes a and b end alike.
func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
