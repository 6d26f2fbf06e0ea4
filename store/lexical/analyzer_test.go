package lexical

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		{"chinese bigrams", "北京大学", []string{"北京", "京大", "大学"}},
		{"single han", "猫", []string{"猫"}},
		{"japanese", "東京タワーへ行く", []string{"東京", "京タ", "タワ", "ワー", "ーへ", "へ行", "行く"}},
		{"halfwidth katakana", "ｶﾀｶﾅ", []string{"カタ", "タカ", "カナ"}},
		{"korean", "한국어", []string{"한국", "국어"}},
		{"mixed scripts", "Go言語 is fun", []string{"go", "言語", "fun"}},
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

func TestAnalyzerCacheLimit(t *testing.T) {
	var a Analyzer
	var b strings.Builder
	for i := 0; i < cacheLimit+10; i++ {
		b.WriteString("w")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(byte('a' + i/26%26))
		b.WriteByte(byte('a' + i/676%26))
		b.WriteByte(byte('a' + i/17576%26))
		b.WriteByte(' ')
	}
	got := a.Terms(b.String())
	if len(a.cache) > cacheLimit {
		t.Fatalf("cache holds %d entries, limit %d", len(a.cache), cacheLimit)
	}
	if want := Terms(b.String()); !slices.Equal(got, want) {
		t.Fatal("a reset cache changed the terms")
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

// benchText is the dendron vault when present (real notes, mostly English
// with code), else a synthetic mix.
func benchText(b *testing.B) string {
	files, _ := filepath.Glob("/work/shared/corpora/dendron/vault/*.md")
	var sb strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			sb.Write(data)
		}
	}
	if sb.Len() == 0 {
		for i := 0; i < 2000; i++ {
			sb.WriteString("The quick brown foxes were running over 12 lazy dogs' backs; `parse_front_matter` v1.2. 北京大学の東京タワー。\n")
		}
	}
	return sb.String()
}

func BenchmarkTerms(b *testing.B) {
	text := benchText(b)
	// Notes are analyzed chunk by chunk, so the benchmark does the same.
	var chunks []string
	for len(text) > 0 {
		n := min(2000, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		chunks = append(chunks, text[:n])
		text = text[n:]
	}
	var a Analyzer
	var dst []string
	b.SetBytes(int64(len(strings.Join(chunks, ""))))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			dst = a.AppendTerms(dst[:0], c)
		}
	}
}
