package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/rank/lexical"
	"github.com/memd-dev/memd/store"
)

// syntheticWord turns a rank into a pronounceable pseudo-word, so the
// analyzer treats it like a real word.
func syntheticWord(i int) string {
	const cons, vow = "bcdfghjklmnprstvz", "aeiou"
	var b strings.Builder
	for {
		b.WriteByte(cons[i%len(cons)])
		i /= len(cons)
		b.WriteByte(vow[i%len(vow)])
		i /= len(vow)
		if i == 0 {
			return b.String()
		}
	}
}

// benchStore builds (once, cached under the temp folder) a store of n chunks
// of 120 words each drawn from a Zipf distribution over 50,000 words, the
// shape of natural text. Method in BENCHMARKS.md. The cache is named by
// store schema too: a store made before binary records still reads, but
// through encoding/json.
func benchStore(b *testing.B, n int) *store.DB {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("memd-bench-recall-%d-v%d-s%d.db", n, lexical.Version, store.SchemaVersion))
	if _, err := os.Stat(path); err != nil {
		tmp := path + ".tmp"
		os.Remove(tmp)
		db, err := store.Open(tmp, store.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, 8))
		zipf := rand.NewZipf(rand.New(rand.NewPCG(9, 10)), 1.1, 2, 49_999)
		const perNote = 4
		for start := 0; start < n; start += 5000 {
			err := db.Update(func(tx *store.Tx) error {
				for i := start; i < min(start+5000, n); i += perNote {
					var chunks []store.NewChunk
					for c := 0; c < perNote; c++ {
						words := make([]string, 120)
						for w := range words {
							words[w] = syntheticWord(int(zipf.Uint64()))
						}
						text := strings.Join(words, " ")
						chunks = append(chunks, store.NewChunk{Chunk: store.Chunk{Text: text, StartLine: 1, EndLine: 3},
							Terms: termFreqs(text)})
					}
					note := &store.Note{Path: fmt.Sprintf("/bench/%07d.md", i), Folder: "/bench", Hash: fmt.Sprint(i, rng.Int())}
					if _, err := tx.PutNote(note, chunks); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		db.Close()
		if err := os.Rename(tmp, path); err != nil {
			b.Fatal(err)
		}
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func termFreqs(text string) []store.TermFreq {
	counts := map[string]uint32{}
	var order []string
	for _, t := range lexical.Terms(text) {
		if counts[t] == 0 {
			order = append(order, t)
		}
		counts[t]++
	}
	out := make([]store.TermFreq, len(order))
	for i, t := range order {
		out[i] = store.TermFreq{Term: t, Freq: counts[t]}
	}
	return out
}

// benchRecall asks 3-word queries (words of rank 20-2000: neither stop-word
// common nor absent) with filters f and reports p50 and p99 latency.
func benchRecall(b *testing.B, s *Service, f memd.Filters) {
	benchQueries(b, s, f, func(rng *rand.Rand) string { return benchQuery(rng) })
}

func benchQuery(rng *rand.Rand) string {
	return syntheticWord(20+rng.IntN(1980)) + " " + syntheticWord(20+rng.IntN(1980)) + " " + syntheticWord(20+rng.IntN(1980))
}

// benchQueries asks the queries query makes and reports p50 and p99
// latency, and the share of queries whose spelling recall corrected.
func benchQueries(b *testing.B, s *Service, f memd.Filters, query func(*rand.Rand) string) {
	rng := rand.New(rand.NewPCG(11, 12))
	var lat []time.Duration
	corrected := 0
	for b.Loop() {
		q := query(rng)
		t0 := time.Now()
		res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q, K: 10, Filters: f})
		if err != nil || len(res.Warnings) > 0 {
			b.Fatal(err, res.Warnings)
		}
		lat = append(lat, time.Since(t0))
		if res.CorrectedQuery != "" {
			corrected++
		}
	}
	b.ReportMetric(100*float64(corrected)/float64(len(lat)), "corrected-%")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkRecall10k(b *testing.B) {
	benchRecall(b, New(Config{DB: benchStore(b, 10_000)}), memd.Filters{})
}
func BenchmarkRecall100k(b *testing.B) {
	benchRecall(b, New(Config{DB: benchStore(b, 100_000)}), memd.Filters{})
}

// BenchmarkRecallExpand100k is BenchmarkRecall100k with query expansion
// on: a second BM25 pass over the query and its added terms. The term
// dictionary expansion reads document frequencies from is built before
// the clock starts (the first expanded recall builds it, as the first
// corrected one does: BenchmarkRecallTypo100k).
func BenchmarkRecallExpand100k(b *testing.B) {
	s := New(Config{DB: benchStore(b, 100_000), Expand: true})
	defer s.Close()
	if _, err := s.Recall(context.Background(), memd.RecallRequest{Query: syntheticWord(100)}); err != nil {
		b.Fatal(err)
	}
	benchRecall(b, s, memd.Filters{})
}

// BenchmarkRecallTypo100k is BenchmarkRecall100k with the first word of
// each query misspelled (one letter replaced), so typo tolerance looks the
// word up in the term dictionary and ranks the corrected query. The
// dictionary is built by the first query, whose time is one sample.
func BenchmarkRecallTypo100k(b *testing.B) {
	s := New(Config{DB: benchStore(b, 100_000)})
	defer s.Close()
	benchQueries(b, s, memd.Filters{}, func(rng *rand.Rand) string {
		w := []byte(syntheticWord(20 + rng.IntN(1980)))
		i := rng.IntN(len(w))
		w[i] = "qwxy"[rng.IntN(4)] // letters syntheticWord never writes
		return string(w) + " " + syntheticWord(20+rng.IntN(1980)) + " " + syntheticWord(20+rng.IntN(1980))
	})
}

// benchFilters narrow the bench store of 100k chunks (25,000 notes of 4
// chunks, /bench/0000000.md to /bench/0099996.md) to all of it, a tenth
// and a hundredth: the narrower, the deeper BM25 must go for k hits.
var benchFilters = []struct {
	name string
	f    memd.Filters
}{
	{"folder-all", memd.Filters{Folder: "/bench"}},
	{"prefix-10pct", memd.Filters{PathPrefix: "/bench/000"}},
	{"prefix-1pct", memd.Filters{PathPrefix: "/bench/0001"}},
}

// BenchmarkRecallFiltered100k is BenchmarkRecall100k with filters.
func BenchmarkRecallFiltered100k(b *testing.B) {
	s := New(Config{DB: benchStore(b, 100_000)})
	for _, c := range benchFilters {
		b.Run(c.name, func(b *testing.B) { benchRecall(b, s, c.f) })
	}
}
