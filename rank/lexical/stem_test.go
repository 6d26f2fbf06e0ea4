package lexical

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
)

const (
	dendronVault  = "../../../shared/corpora/dendron/vault"
	scifactCorpus = "../../../shared/eval/scifact/corpus.jsonl"
)

// trickyWords cover every step of the stemmer and each special case of the
// library: special words, the gener/commun/arsen regions, y marking, and
// each suffix of each step both inside and outside its region.
var trickyWords = []string{
	// Special words and their inflections.
	"skis", "skies", "dying", "lying", "tying", "idly", "gently", "ugly",
	"early", "only", "singly", "sky", "news", "howe", "atlas", "cosmos",
	"bias", "andes", "inning", "innings", "outing", "outings", "canning",
	"cannings", "herring", "herrings", "earring", "earrings", "proceed",
	"proceeds", "proceeded", "proceeding", "exceed", "exceeds", "exceeded",
	"exceeding", "succeed", "succeeds", "succeeded", "succeeding",
	"skiing", "skied", "newsy", "biases", "atlases", "innin",
	// Regions: gener, commun, arsen prefixes and their lookalikes.
	"generously", "generous", "general", "generate", "generation", "gener",
	"generic", "communism", "communal", "community", "commune", "commun",
	"communication", "arsenal", "arsenic", "arsen", "arsenals", "genera",
	// y marking and step 1c.
	"yes", "say", "cry", "bye", "happy", "youth", "yield", "buy", "toy",
	"boyish", "sayyid", "yyy", "ayyy", "kayak", "crying", "cries", "cried",
	"ties", "tied", "spy", "spies", "employ", "employed", "obey", "yearly",
	"playfully", "joyously", "slyly", "shy", "yaw",
	// Step 1a.
	"caresses", "ponies", "ties", "gas", "gaps", "kiwis", "this", "uss",
	"bus", "buses", "class", "classes", "thus", "uses", "ass", "lies",
	"dies", "pies", "flies", "its", "yss",
	// Step 1b.
	"luxuriating", "hopping", "hoping", "fitted", "agreed", "feed", "bled",
	"guaranteed", "consign", "consigned", "consigning", "knightly",
	"abundantly", "hoped", "hopped", "sized", "filing", "failing",
	"conflated", "troubled", "tanned", "falling", "hissing", "fizzed",
	"feeding", "agreedly", "deedly", "exceedingly", "speedily", "reedy",
	"needed", "seeded", "sing", "string", "bring", "ring", "red", "bed",
	"shed", "sped", "wed", "owed", "oped", "aped", "ied", "eed", "ing",
	"ingly", "edly", "markedly", "jokingly", "hating", "tapping", "bowed",
	"boxed", "played", "rubbed", "added", "buffed", "bagged", "hummed",
	"dimmed", "tipped", "barred", "batted", "fizzing", "blessed", "cabled",
	"doubled", "dazed", "scrapped", "cooped",
	// Step 2.
	"relational", "conditional", "rational", "valenci", "hesitanci",
	"digitizer", "conformabli", "radicalli", "differentli", "vileli",
	"analogousli", "vietnamization", "predication", "operator", "feudalism",
	"decisiveness", "hopefulness", "callousness", "formaliti", "sensitiviti",
	"sensibiliti", "fruitfulli", "hopelessli", "archaeologi", "ology",
	"biology", "apology", "generalization", "nationality", "generally",
	"specifically", "truly", "happily", "finally", "lovely", "quickly",
	"radically", "fully", "early", "abli", "possibly", "ably", "lessly",
	"carefully", "fulness", "bliss",
	// Step 3.
	"triplicate", "formative", "formalize", "electriciti", "electrical",
	"hopeful", "goodness", "sensational", "traditional", "duplicative",
	"demonstrative", "alternative", "native", "electricity", "critical",
	"magical", "realize", "authenticate",
	// Step 4.
	"revival", "allowance", "inference", "airliner", "gyroscopic",
	"adjustable", "defensible", "irritant", "replacement", "adjustment",
	"dependent", "adoption", "adhesion", "communion", "activate",
	"angulariti", "homologous", "effective", "bowdlerize", "cement",
	"element", "moment", "implement", "statement", "lion", "union",
	"region", "opinion", "vision", "nation", "criticism", "tenement",
	// Step 5.
	"rate", "cease", "controll", "roll", "bell", "fall", "hope", "move",
	"probate", "create", "serve", "value", "tale", "theme", "before",
	// Plain words and oddities.
	"aaa", "abc", "xyz", "www", "zzz", "eee", "iii", "ooo", "uuu", "yyyy",
	"the", "and", "was", "were", "you", "they", "their", "there", "over",
	"about", "because", "itself", "yourselves", "ourselves", "themselves",
	"zeroes", "oxen", "axes", "taxes", "mixed", "fixing", "sewing", "vowed",
	"lexicon", "paralysis", "analysis", "emphasis", "crisis", "physics",
	"dynamics", "semantics", "linguistics", "cats", "running", "runs",
	"programmer", "programming", "programs", "indexing", "indexes",
	"indices", "queries", "query", "queried", "stemming", "stemmer",
	"stems", "embeddings", "tokenization", "tokenizer", "tokenized",
	strings.Repeat("a", MaxTermBytes), strings.Repeat("ab", MaxTermBytes/2),
	strings.Repeat("ization", 9), strings.Repeat("y", MaxTermBytes),
}

// addWords adds to seen the words of text that stem takes: runs of ASCII
// letters, lowercased, longer than two bytes.
func addWords(seen map[string]bool, text []byte) {
	var buf [MaxTermBytes]byte
	w := buf[:0]
	flush := func() {
		if len(w) > 2 {
			seen[string(w)] = true
		}
		w = w[:0]
	}
	for _, c := range text {
		switch {
		case 'a' <= c && c <= 'z':
			w = append(w, c)
		case 'A' <= c && c <= 'Z':
			w = append(w, c+'a'-'A')
		default:
			flush()
		}
	}
	flush()
}

// dendronWords adds the words of the dendron vault's notes to seen; it
// reports false if the vault is absent.
func dendronWords(tb testing.TB, seen map[string]bool) bool {
	tb.Helper()
	if _, err := os.Stat(dendronVault); err != nil {
		return false
	}
	err := filepath.WalkDir(dendronVault, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		addWords(seen, b)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return true
}

// scifactWords adds the words of the SciFact corpus's titles and texts to
// seen; it reports false if the corpus is absent.
func scifactWords(tb testing.TB, seen map[string]bool) bool {
	tb.Helper()
	f, err := os.Open(scifactCorpus)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var doc struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			tb.Fatal(err)
		}
		addWords(seen, []byte(doc.Title))
		addWords(seen, []byte(doc.Text))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return true
}

func sortedWords(seen map[string]bool) []string {
	words := make([]string, 0, len(seen))
	for w := range seen {
		words = append(words, w)
	}
	sort.Strings(words)
	return words
}

func checkStem(t *testing.T, w string) bool {
	t.Helper()
	if got, want := stem([]byte(w)), english.Stem(w, true); got != want {
		t.Errorf("stem(%q) = %q, snowball gives %q", w, got, want)
		return false
	}
	return true
}

func TestStemMatchesSnowball(t *testing.T) {
	t.Run("tricky", func(t *testing.T) {
		for _, w := range trickyWords {
			if len(w) <= 2 || !isLetters([]byte(w)) {
				t.Errorf("tricky word %q is outside stem's contract", w)
				continue
			}
			checkStem(t, w)
		}
		t.Logf("compared %d hand-written words", len(trickyWords))
	})
	t.Run("corpus", func(t *testing.T) {
		seen := map[string]bool{}
		d, sf := dendronWords(t, seen), scifactWords(t, seen)
		if !d && !sf {
			t.Skip("corpora absent: ", dendronVault, ", ", scifactCorpus)
		}
		if !d || !sf {
			t.Logf("a corpus is absent: dendron %v, scifact %v", d, sf)
		}
		words := sortedWords(seen)
		bad := 0
		for _, w := range words {
			if !checkStem(t, w) {
				if bad++; bad == 50 {
					t.Fatal("too many mismatches")
				}
			}
		}
		t.Logf("compared %d distinct corpus words", len(words))
	})
	t.Run("generated", func(t *testing.T) {
		// Words glued from stems and suffixes hit step combinations the
		// corpora may miss: stacked suffixes, short stems, marked ys.
		heads := []string{
			"", "a", "y", "e", "o", "b", "c", "h", "l", "s", "t", "w", "x",
			"ab", "ay", "ey", "oy", "ya", "by", "sk", "gener", "commun",
			"arsen", "hop", "tap", "fizz", "agr", "bl", "consign", "luxur",
			"nat", "rel", "cond", "form", "elect", "sens", "hope", "move",
		}
		parts := []string{
			"a", "e", "i", "o", "u", "y", "b", "d", "l", "n", "s", "t", "w",
			"x", "at", "bl", "iz", "ed", "eed", "ing", "ly", "li", "ies",
			"ied", "sses", "us", "ss", "s", "ational", "tional", "ization",
			"ation", "ator", "alism", "aliti", "alli", "biliti", "bli", "ogi",
			"fulness", "ousness", "iveness", "entli", "fulli", "lessli",
			"ousli", "iviti", "anci", "enci", "abli", "izer", "alize",
			"icate", "ative", "iciti", "ical", "ful", "ness", "ement",
			"ment", "ent", "ance", "ence", "able", "ible", "ant", "ism",
			"ate", "iti", "ous", "ive", "ize", "ion", "sion", "tion", "al",
			"er", "ic", "ll", "edly", "ingly", "eedly",
		}
		rng := rand.New(rand.NewPCG(1, 2))
		var sb strings.Builder
		n, bad := 0, 0
		for range 200000 {
			sb.Reset()
			sb.WriteString(heads[rng.IntN(len(heads))])
			for k := 1 + rng.IntN(3); k > 0; k-- {
				sb.WriteString(parts[rng.IntN(len(parts))])
			}
			w := sb.String()
			if len(w) <= 2 || len(w) > MaxTermBytes {
				continue
			}
			n++
			if !checkStem(t, w) {
				if bad++; bad == 50 {
					t.Fatal("too many mismatches")
				}
			}
		}
		t.Logf("compared %d generated words", n)
	})
}

// stemSink keeps the compiler from dropping a stem whose result is unused.
var stemSink string

func TestStemAllocs(t *testing.T) {
	for _, w := range []string{"generalization", "hopping", "skies", "yyyy", "relational", "cat"} {
		b := []byte(w)
		n := testing.AllocsPerRun(100, func() { stemSink = stem(b) })
		if n > 1 {
			t.Errorf("stem(%q) allocates %v times, want at most 1", w, n)
		}
		t.Logf("stem(%q): %v allocs", w, n)
	}
}

func BenchmarkStem(b *testing.B) {
	seen := map[string]bool{}
	if !dendronWords(b, seen) {
		b.Skip("dendron vault absent: ", dendronVault)
	}
	vocab := sortedWords(seen)
	bs := make([][]byte, len(vocab))
	for i, w := range vocab {
		bs[i] = []byte(w)
	}
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			stemSink = stem(bs[i])
			if i++; i == len(bs) {
				i = 0
			}
		}
	})
	b.Run("snowball", func(b *testing.B) {
		// Strings made ahead, so the library is not charged the call
		// site's string(w).
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			stemSink = english.Stem(vocab[i], true)
			if i++; i == len(vocab) {
				i = 0
			}
		}
	})
}
