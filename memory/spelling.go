package memory

import (
	"sync"
	"time"

	"github.com/memd-dev/memd/rank"
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
