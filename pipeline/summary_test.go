package pipeline

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestReplaceLinksIsTheRegexps: the link scanners replace as the regexps
// they stand for do, over random mixes of brackets, bars, marks and text.
func TestReplaceLinksIsTheRegexps(t *testing.T) {
	mdLink := regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	wikiLink := regexp.MustCompile(`\[\[(?:[^\]|]*\|)?([^\]]*)\]\]`)
	parts := []string{"[", "]", "[[", "]]", "(", ")", "|", "!", "a", "bc", " ", "\n", "é", "\xff", "[[x|y]]", "[t](u)", "![i](p)"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var sb strings.Builder
		for range rng.IntN(16) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		s := sb.String()
		wiki := wikiLink.ReplaceAllString(s, "$1")
		if got := replaceLinks(s, wikiLinkAt); got != wiki {
			t.Fatalf("wikilinks of %q: %q, the regexp %q", s, got, wiki)
		}
		if got, want := replaceLinks(wiki, mdLinkAt), mdLink.ReplaceAllString(wiki, "$1"); got != want {
			t.Fatalf("links of %q: %q, the regexp %q", wiki, got, want)
		}
	}
}
