package lexical

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"stemming", "running runs ran easily", []string{"run", "run", "ran", "easili"}},
		{"stop words", "The cat is on the mat", []string{"cat", "mat"}},
		{"case folding", "HELLO World", []string{"hello", "world"}},
		{"numbers kept", "version 2024 and 3.14", []string{"version", "2024", "3", "14"}},
		{"dotted version", "v1.2.3", []string{"v1", "2", "3"}},
		{"snake case", "parse_front_matter", []string{"pars", "front", "matter"}},
		{"diacritics", "Café naïve Ångström Łódź straße", []string{"cafe", "naiv", "angstrom", "lodz", "strass"}},
		{"decomposed diacritic", "cafe\u0301", []string{"cafe"}},
		{"possessive", "John's book’s cover", []string{"john", "book", "cover"}},
		{"contraction", "don't", []string{"don", "t"}},
		{"fullwidth", "ＡＢＣ１２３", []string{"abc123"}},
		{"ligature", "ﬁnd", []string{"find"}},
		{"chinese bigrams and unigrams", "北京大学", []string{"北", "北京", "京", "京大", "大", "大学", "学"}},
		{"single han", "猫", []string{"猫"}},
		{"japanese", "東京タワーへ行く", []string{"東", "東京", "京", "京た", "たわ", "わー", "ーへ", "へ行", "行", "行く"}},
		{"halfwidth katakana folds to hiragana", "ｶﾀｶﾅ", []string{"かた", "たか", "かな"}},
		{"iteration mark", "人々", []string{"人", "人人", "人"}},
		{"korean", "한국어", []string{"한", "한국", "국", "국어", "어"}},
		{"thai has no unigrams", "ภาษา", []string{"ภา", "าษ", "ษา"}},
		{"mixed scripts", "Go言語 is fun", []string{"go", "言", "言語", "語", "fun"}},
		{"fullwidth latin beside han", "ＧＯ言語", []string{"go", "言", "言語", "語"}},
		{"cyrillic kept whole", "Москва столица", []string{"москва", "столица"}},
		{"greek final sigma", "ΟΔΟΣ οδος", []string{"οδοσ", "οδοσ"}},
		{"punctuation only", "--- *** !!!", nil},
		{"long token dropped", "x " + strings.Repeat("a", MaxTermBytes+1) + " y", []string{"x", "y"}},
		{"invalid utf8", "ab\xffcd", []string{"ab", "cd"}},
		{"emoji separates", "sun☀moon", []string{"sun", "moon"}},
		{"devanagari marks kept", "हिन्दी", []string{"हिन्दी"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Terms(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// A query in a script written without spaces finds a note holding it,
// one character long or in another width or kana: every query term is
// among the note's terms.
func TestUnsegmentedQueries(t *testing.T) {
	tests := []struct{ lang, note, query string }{
		{"chinese", "今天我们去公园看樱花。", "樱"},
		{"chinese", "今天我们去公园看樱花。", "公园"},
		{"chinese", "我喜欢喝茶", "茶"},
		{"chinese", "他在大学学习", "学"},
		{"japanese", "桜の花が咲いた", "桜"},
		{"japanese", "焼き肉を食べた", "肉"},
		{"japanese", "サクラの季節", "さくら"},
		{"japanese", "さくらの季節", "ｻｸﾗ"},
		{"japanese", "コーヒーを飲む", "こーひー"},
		{"japanese", "時々雨", "時時"},
		{"japanese", "ＭｅｍｄはＧｏで書かれた", "memd"},
		{"korean", "책을 읽었다", "책"},
		{"korean", "학교에서 공부했다", "학교"},
		{"korean", "서울특별시", "서울"},
		{"thai", "ภาษาไทยเป็นภาษาราชการ", "ภาษา"},
		{"thai", "ภาษาไทยเป็นภาษาราชการ", "ไทย"},
	}
	for _, tt := range tests {
		note := Terms(tt.note)
		q := Terms(tt.query)
		if len(q) == 0 {
			t.Errorf("%s: query %q has no terms", tt.lang, tt.query)
		}
		for _, term := range q {
			if !slices.Contains(note, term) {
				t.Errorf("%s: query %q term %q not in note %q (%q)", tt.lang, tt.query, term, tt.note, note)
			}
		}
	}
}

// A query and the note it should find must meet on the same terms.
func TestQueryMatchesNote(t *testing.T) {
	note := Terms("Ran the migrations; Running services restart automatically.")
	for _, q := range []string{"running", "RUN", "migration", "restarted", "automatic"} {
		for _, term := range Terms(q) {
			if !slices.Contains(note, term) {
				t.Errorf("query %q term %q not among note terms %q", q, term, note)
			}
		}
	}
}

// The word table grows, and starts over past maxTableWords; the terms must
// not depend on what it held: a warm table, one that started over and an
// Analyzer with none give the same terms.
func TestAnalyzerTableStartsOver(t *testing.T) {
	var b strings.Builder
	for i := 0; i < maxTableWords*5/4; i++ {
		b.WriteString("w")
		for n := i; n > 0; n /= 26 {
			b.WriteByte(byte('a' + n%26))
		}
		b.WriteString("ing 北京 ")
	}
	text := b.String()
	var warm Analyzer
	warm.Terms(text)
	got := warm.Terms(text)
	if warm.Terms("x"); warm.words.words != 1 {
		t.Fatalf("the table holds %d words after a text of one word; past %d words it should start over", warm.words.words, maxTableWords)
	}
	bare := Analyzer{bare: true}
	if want := bare.Terms(text); !slices.Equal(got, want) {
		t.Fatal("a warm table, started over, changed the terms")
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"", "hello world", "北京大学", "ab\xffcd", "cafe\u0301 ﬁ", "x's", "’s", "\u0301\u0301", "ｶﾀ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := Terms(s)
		for _, term := range terms {
			if term == "" || len(term) > MaxTermBytes || !utf8.ValidString(term) {
				t.Fatalf("Terms(%q) gave bad term %q", s, term)
			}
		}
		// Analysis is a pure function of the text: a warm cache changes nothing.
		if again := Terms(s); !slices.Equal(terms, again) {
			t.Fatalf("Terms(%q) not repeatable: %q then %q", s, terms, again)
		}
	})
}

func TestTermsConcurrent(t *testing.T) {
	texts := []string{"Running notes on Café Zürich", "北京大学の東京タワー", "v1.2 parse_front_matter"}
	want := make([][]string, len(texts))
	for i, s := range texts {
		want[i] = Terms(s)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for k := 0; k < 200; k++ {
				i := k % len(texts)
				if got := Terms(texts[i]); !slices.Equal(got, want[i]) {
					t.Errorf("Terms(%q) = %q, want %q", texts[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkTerms analyzes text in 2 KB pieces, as chunks are: "vault" is
// the dendron vault (real notes, mostly English with code) and "mixed" a
// synthetic text with accents, CJK and Cyrillic in every line.
func BenchmarkTerms(b *testing.B) {
	mixed := strings.Repeat("The quick brown foxes were running over 12 lazy dogs' backs; `parse_front_matter` v1.2. Café Zürich. 北京大学の東京タワー。Москва.\n", 2000)
	for _, bc := range []struct{ name, text string }{{"vault", vaultText()}, {"mixed", mixed}} {
		if bc.text == "" {
			continue
		}
		b.Run(bc.name, func(b *testing.B) {
			chunks := pieces(bc.text, 2000)
			var a Analyzer
			var dst []string
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range chunks {
					dst = a.AppendTerms(dst[:0], c)
				}
			}
		})
	}
}

func vaultText() string {
	files, _ := filepath.Glob("../../../shared/corpora/dendron/vault/*.md")
	var sb strings.Builder
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			sb.Write(data)
		}
	}
	return sb.String()
}

// pieces cuts text into pieces of about n bytes at rune boundaries.
func pieces(text string, n int) []string {
	var out []string
	for len(text) > 0 {
		k := min(n, len(text))
		for k < len(text) && !utf8.RuneStart(text[k]) {
			k++
		}
		out = append(out, text[:k])
		text = text[k:]
	}
	return out
}

// TestShortTextsSkipTheCache: a query analyzed after a collection emptied
// the pool once allocated a whole 2.5 MiB word cache; short texts now go
// without one, to the same terms.
func TestShortTextsSkipTheCache(t *testing.T) {
	const q = "watering the tomatoes' roots 東京都 in Zürich"
	want := new(Analyzer).Terms(q)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // twice: the pools' victim caches go too
	runtime.ReadMemStats(&before)
	got := Terms(q)
	runtime.ReadMemStats(&after)
	if !slices.Equal(got, want) {
		t.Fatalf("Terms(%q) = %q, the cached analyzer gives %q", q, got, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("Terms of a %d-byte query allocated %d bytes; it should not build the word cache", len(q), n)
	}
}

// TestPackWord: packWord's overlapping loads give every byte of the word in
// its place, and nothing past it.
func TestPackWord(t *testing.T) {
	src := []byte("abcdefghijklmnopqrstuvwxyz")
	for n := 1; n <= maxShortWord; n++ {
		var b [maxShortWord]byte
		copy(b[:], src[:n])
		wantLo, wantHi := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
		if lo, hi := packWord(src[:n]); lo != wantLo || hi != wantHi {
			t.Errorf("packWord(%q) = %#x %#x, want %#x %#x", src[:n], lo, hi, wantLo, wantHi)
		}
	}
}
