package memory

import (
	"context"
	"testing"

	"github.com/memd-dev/memd"
)

// One-character and other-spelling queries in scripts written without
// spaces find their note through a real store: each query's note ranks
// first among notes in four languages.
func TestRecallUnsegmentedScripts(t *testing.T) {
	db := storeWith(t,
		testNote{path: "/n/zh-tea.md", mtime: day, texts: []string{"我每天早上喝一杯绿茶。"}},
		testNote{path: "/n/zh-park.md", mtime: day, texts: []string{"周末我们去公园看樱花。"}},
		testNote{path: "/n/ja-sakura.md", mtime: day, texts: []string{"桜の花が咲いた。サクラの季節だ。"}},
		testNote{path: "/n/ja-meat.md", mtime: day, texts: []string{"昨日は焼き肉を食べた。"}},
		testNote{path: "/n/ko-book.md", mtime: day, texts: []string{"어제 책을 읽었다."}},
		testNote{path: "/n/ko-school.md", mtime: day, texts: []string{"학교에서 공부했다."}},
		testNote{path: "/n/th.md", mtime: day, texts: []string{"ภาษาไทยเป็นภาษาราชการ"}},
	)
	s := New(Config{DB: db})
	for _, tt := range []struct{ query, want string }{
		{"茶", "/n/zh-tea.md"},
		{"樱", "/n/zh-park.md"},
		{"桜", "/n/ja-sakura.md"},
		{"さくら", "/n/ja-sakura.md"}, // katakana in the note, hiragana asked
		{"ｻｸﾗ", "/n/ja-sakura.md"}, // half-width katakana asked
		{"肉", "/n/ja-meat.md"},
		{"책", "/n/ko-book.md"},
		{"학교", "/n/ko-school.md"},
		{"ไทย", "/n/th.md"},
	} {
		res, err := s.Recall(context.Background(), memd.RecallRequest{Query: tt.query, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Path != tt.want {
			t.Errorf("query %q: hits %v, want %s first", tt.query, paths(res.Hits), tt.want)
		}
	}
}
