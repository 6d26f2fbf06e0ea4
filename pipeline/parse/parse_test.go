package parse

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// shape renders blocks as "kind:start-end" for compact expectations.
func shape(n *Note) []string {
	var out []string
	for _, b := range n.Blocks {
		out = append(out, fmt.Sprintf("%s:%d-%d", b.Kind, b.StartLine, b.EndLine))
	}
	return out
}

func mustParse(t *testing.T, path, src string) *Note {
	t.Helper()
	n, err := Parse(path, []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	checkSpans(t, path, n, strings.Count(src, "\n")+1)
	return n
}

func TestMarkdownBlocks(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"atx and paragraphs", "# Title\n\nOne\ntwo\n\nThree\n", []string{"heading:1-1", "paragraph:3-4", "paragraph:6-6"}},
		{"hash without space is a paragraph", "#tag line\n", []string{"paragraph:1-1"}},
		{"setext", "Title\n=====\n\nSub\n---\n", []string{"heading:1-2", "heading:4-5"}},
		{"thematic break", "a\n\n***\n\n- - -\n", []string{"paragraph:1-1", "thematic_break:3-3", "thematic_break:5-5"}},
		{"fence with heading-like lines", "```sh\n# not a heading\n\n- nor a list\n```\nafter\n", []string{"code:1-5", "paragraph:6-6"}},
		{"tilde fence, longer close", "~~~~\ncode\n~~~\nstill\n~~~~~\n", []string{"code:1-5"}},
		{"unclosed fence runs to EOF", "text\n\n```\ncode\n\n# x\n", []string{"paragraph:1-1", "code:3-6"}},
		{"inline triple backticks", "```not a fence```\n", []string{"paragraph:1-1"}},
		{"indented code", "para\n\n    code\n\n    more\nnext\n", []string{"paragraph:1-1", "code:3-5", "paragraph:6-6"}},
		{"list items", "- a\n- b\n  - b1\n    - b2\n- c\n", []string{"list:1-1", "list:2-4", "list:5-5"}},
		{"ordered and task", "1. one\n2) two\n- [ ] task\n- [x] done\n", []string{"list:1-1", "list:2-2", "list:3-3", "list:4-4"}},
		{"loose item with continuation", "- a\n\n  more of a\n\n- b\n\npara\n", []string{"list:1-3", "list:5-5", "paragraph:7-7"}},
		{"lazy continuation", "- a\nlazy\n", []string{"list:1-2"}},
		{"fence in list item", "- see:\n  ```\n  x\n\n  # inside\n  ```\n- next\n", []string{"list:1-6", "list:7-7"}},
		{"an unindented line closes an item's fence", "- see:\n  ```\n  x\n# after\n", []string{"list:1-3", "heading:4-4"}},
		{"heading indented one space after a list", "- a\n ## B\ntext\n", []string{"list:1-1", "heading:2-2", "paragraph:3-3"}},
		{"sibling item indented less than the content", "- a\n - b\n", []string{"list:1-1", "list:2-2"}},
		{"nested item at the content column", "1. a\n   - b\n", []string{"list:1-2"}},
		{"no lazy line after a blank", "- a\n\n b\n", []string{"list:1-1", "paragraph:3-3"}},
		{"no lazy line after a heading in an item", "- # a\nb\n", []string{"list:1-1", "paragraph:2-2"}},
		{"lazy line with a list marker starts a list", "- a\n2. b\n", []string{"list:1-1", "list:2-2"}},
		{"empty item then a blank line", "-\n\n  x\n", []string{"list:1-1", "paragraph:3-3"}},
		{"five spaces after a marker", "-     code\n  more\n", []string{"list:1-2"}},
		{"quote ends at an empty quote line's lazy line", ">\nnot quoted\n", []string{"quote:1-1", "paragraph:2-2"}},
		{"quote ends at a list", "> a\n- b\n", []string{"quote:1-1", "list:2-2"}},
		{"quote lazy after a list in it", "> - a\nlazy\n", []string{"quote:1-2"}},
		{"quote opening with indented code takes no lazy line", ">     code\nnot lazy\n", []string{"quote:1-1", "paragraph:2-2"}},
		{"closing pre alone is text", "</pre>\ntext\n", []string{"paragraph:1-2"}},
		{"tab after a marker reaches the next tab stop", "-\tx\n  - y\n", []string{"list:1-1", "list:2-2"}},
		{"html tag followed by text is a paragraph", "<a href=\"x\"><img src=\"y\"></a>\n", []string{"paragraph:1-1"}},
		{"html tag alone is html", "<a href=\"x\" class=y data-z>\ntext\n", []string{"html:1-2"}},
		{"list interrupts paragraph", "intro:\n- a\n", []string{"paragraph:1-1", "list:2-2"}},
		{"quote", "> a\n> b\nlazy\n\n> c\n", []string{"quote:1-3", "quote:5-5"}},
		{"table", "| a | b |\n|---|:-:|\n| 1 | 2 |\n| - | > |\n\nx\n", []string{"table:1-4", "paragraph:6-6"}},
		{"table after paragraph", "text\na | b\n--|--\n1 | 2\n", []string{"paragraph:1-1", "table:2-4"}},
		{"html comment", "<!-- a\n\nb -->\npara\n", []string{"paragraph:4-4"}},
		{"html block tag", "<div>\nx\n</div>\n\ny\n", []string{"html:1-3", "paragraph:5-5"}},
		{"autolink is prose", "<https://example.com>\n", []string{"paragraph:1-1"}},
		{"inline tag in paragraph", "a <b>bold</b>\n<span>x</span>\n", []string{"paragraph:1-2"}},
		{"front matter", "---\ntitle: T\n---\nbody\n", []string{"front_matter:1-3", "paragraph:4-4"}},
		{"unclosed front matter is a break", "---\ntitle: T\n", []string{"thematic_break:1-1", "paragraph:2-2"}},
		{"windows line endings", "# T\r\n\r\n```\r\nx\r\n```\r\n", []string{"heading:1-1", "code:3-5"}},
		{"empty", "", nil},
		{"blank only", "\n\n  \n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, "n.md", tt.src)
			if got := shape(n); !slices.Equal(got, tt.want) {
				t.Errorf("blocks\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A List block's Level is the deepest nesting of its items.
func TestListLevel(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{"- a\n", 1},
		{"- a\n  - b\n  - c\n", 2},
		{"- a\n  - b\n    - c\n  - d\n", 3},
		{"1. a\n   - b\n   continued\n   - c\n", 2},
	}
	for _, tt := range tests {
		n := mustParse(t, "n.md", tt.src)
		if len(n.Blocks) != 1 || n.Blocks[0].Level != tt.want {
			t.Errorf("%q: blocks %q, level %d, want one list at level %d", tt.src, shape(n), n.Blocks[0].Level, tt.want)
		}
	}
}

func TestHeadingPath(t *testing.T) {
	n := mustParse(t, "n.md", "# A\n\nx\n\n## B\n\ny\n\n### C\n\n## D ##\n\nz\n\n# E `code`\n")
	want := map[string][]string{
		"# A": nil, "x": {"A"}, "## B": {"A"}, "y": {"A", "B"}, "### C": {"A", "B"},
		"## D ##": {"A"}, "z": {"A", "D"}, "# E `code`": nil,
	}
	for _, b := range n.Blocks {
		if w := want[b.Text]; !slices.Equal(b.Heading, w) {
			t.Errorf("block %q: heading %q, want %q", b.Text, b.Heading, w)
		}
	}
	if got := n.Blocks[len(n.Blocks)-1].Title; got != "E code" {
		t.Errorf("title of last heading = %q", got)
	}
	if n.Blocks[0].Lang != "" || n.Blocks[0].Level != 1 {
		t.Errorf("first heading: %+v", n.Blocks[0])
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ path, src, want string }{
		{"dir/a.b.md", "---\ntitle: 'From: matter'\n---\n# H1\n", "From: matter"},
		{"a.md", "intro\n\n## H2\n\n# The H1\n", "The H1"},
		{"notes/daily.2024.md", "just text\n", "daily.2024"},
		{"x.org", "#+TITLE: Org title\n* H\n", "Org title"},
		{"x.txt", "# not a heading in text\n", "x"},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.path, tt.src).Title; got != tt.want {
			t.Errorf("%s: title %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestTagsAndLinks(t *testing.T) {
	src := "---\ntags: [Project, 'home']\n---\n" +
		"# Heading #inhead\n\n" +
		"Text #Work and #work/meeting, #role.dev. Not: a#b, #123, `#code`, [x](#anchor), http://x.io/#frag\n" +
		"See [[Some Note]] and [[other|Alias]] and [[deep#section]] and ![[embed.png]].\n\n" +
		"```\n#include <x>\n[[in code]]\n```\n\n" +
		"- item #listtag\n  ```\n  #nested-code\n  ```\n\n" +
		"<div style=\"color: #fff\">#htmltag</div>\n"
	n := mustParse(t, "n.md", src)
	wantTags := []string{"project", "home", "inhead", "work", "work/meeting", "role.dev", "listtag"}
	if !slices.Equal(n.Tags, wantTags) {
		t.Errorf("tags %q, want %q", n.Tags, wantTags)
	}
	wantLinks := []string{"Some Note", "other", "deep", "embed.png"}
	if !slices.Equal(n.Links, wantLinks) {
		t.Errorf("links %q, want %q", n.Links, wantLinks)
	}
}

// TestFencedTagsFollowTheBlocks holds the tag scan to the parser's reading
// of fenced code: a line is hidden from #tags exactly when the parser reads
// it as code, in list items and quotes as at the top level.
func TestFencedTagsFollowTheBlocks(t *testing.T) {
	tests := []struct {
		name, src string
		blocks    []string
		tags      []string
	}{
		{"closer indented past the opener's bound", "- item #out\n  ```\n  code\n        ```\n  #in\n  ```\n",
			[]string{"list:1-6"}, []string{"out"}},
		{"indented fence-like line in a paragraph is prose", "para #out\n    ```\n#out2\n",
			[]string{"paragraph:1-3"}, []string{"out", "out2"}},
		{"a list marker line closes the item and its fence", "- a #out\n  ```\n  x\n- ```\n  #in\n",
			[]string{"list:1-3", "list:4-5"}, []string{"out"}},
		{"shorter closer does not close", "- a #out\n  ````\n  ```\n  #in\n  ````\n\nafter #out2\n",
			[]string{"list:1-5", "paragraph:7-7"}, []string{"out", "out2"}},
		{"other fence char does not close", "- a #out\n  ~~~\n  ```\n  #in\n  ~~~\n\nafter #out2\n",
			[]string{"list:1-5", "paragraph:7-7"}, []string{"out", "out2"}},
		{"unclosed fence runs to the item's end", "- a #out\n  ```\n  #in\n\n  #in2\n\nafter #out2\n",
			[]string{"list:1-5", "paragraph:7-7"}, []string{"out", "out2"}},
		{"top-level closer indented four", "```\n    ```\n#in\n```\nafter #out\n",
			[]string{"code:1-4", "paragraph:5-5"}, []string{"out"}},
		{"fence in a nested list item", "- a #out\n  - ```\n    #in\n    ```\n  - b #out2\n",
			[]string{"list:1-5"}, []string{"out", "out2"}},
		{"fence in a quote", "> quote #out\n> ```\n> #in\n> ```\n> after #out2\n",
			[]string{"quote:1-5"}, []string{"out", "out2"}},
		{"closer indented past the bound in a quote", "> ```\n>     ```\n> #in\n> ```\n> #out\n",
			[]string{"quote:1-5"}, []string{"out"}},
		{"a quote's fence ends with its marked lines", "> ```\n> #in\nnot lazy #out\n",
			[]string{"quote:1-2", "paragraph:3-3"}, []string{"out"}},
		{"fence after a list marker in a quote", "> - ```\n>   #in\n>   ```\n> - #out\n",
			[]string{"quote:1-4"}, []string{"out"}},
		{"fence in a quote in a list item", "- item\n  > ```\n  > #in\n  > ```\n  > #out\n",
			[]string{"list:1-5"}, []string{"out"}},
		{"fence in a quote after a blank line in a list item", "- item #out\n\n  > ```\n  > #in\n  > ```\n",
			[]string{"list:1-5"}, []string{"out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, "n.md", tt.src)
			if got := shape(n); !slices.Equal(got, tt.blocks) {
				t.Errorf("blocks %q, want %q", got, tt.blocks)
			}
			if !slices.Equal(n.Tags, tt.tags) {
				t.Errorf("tags %q, want %q", n.Tags, tt.tags)
			}
		})
	}
}

// Comments, Obsidian's and HTML's, inline and over lines, give no blocks,
// headings, tags, links or title, and the lines around them keep their
// numbers.
func TestComments(t *testing.T) {
	tests := []struct {
		name, src string
		blocks    []string
		texts     []string // of the blocks, in order
		tags      []string
		links     []string
	}{
		{"inline obsidian", "Seen %%#hidden [[secret]]%% #shown\n",
			[]string{"paragraph:1-1"}, []string{"Seen  #shown"}, []string{"shown"}, nil},
		{"block obsidian with a heading", "# Top\n\n%%\n## Hidden\n#tag [[x]]\n\nmore\n%%\n\nafter [[y]]\n",
			[]string{"heading:1-1", "paragraph:10-10"}, []string{"# Top", "after [[y]]"}, nil, []string{"y"}},
		{"html comment inline and over lines", "a <!-- #no --> b\n\n<!--\n# Not a heading\n-->\n# Yes\n",
			[]string{"paragraph:1-1", "heading:6-6"}, []string{"a  b", "# Yes"}, nil, nil},
		{"comment ends mid-line", "x %%start\n#hid\nend%% tail #t\n",
			[]string{"paragraph:1-1", "paragraph:3-3"}, []string{"x ", " tail #t"}, []string{"t"}, nil},
		{"markers in code are code", "`%%` and ``<!--``\n\n```\n%%\n```\n\n#kept\n",
			[]string{"paragraph:1-1", "code:3-5", "paragraph:7-7"}, []string{"`%%` and ``<!--``", "```\n%%\n```", "#kept"}, []string{"kept"}, nil},
		{"fence in a list item holds its markers", "- a\n  ```\n  %%\n  ```\n- #b\n",
			[]string{"list:1-4", "list:5-5"}, []string{"- a\n  ```\n  %%\n  ```", "- #b"}, []string{"b"}, nil},
		{"an unclosed marker hides nothing", "100%% sure #t\n\n<!-- open\n",
			[]string{"paragraph:1-1", "html:3-3"}, []string{"100%% sure #t", "<!-- open"}, []string{"t"}, nil},
		{"escaped pipe in a table's wikilink", "| [[x\\|alias]] | [[a.b\\|B]] |\n|---|---|\n",
			[]string{"table:1-2"}, []string{"| [[x\\|alias]] | [[a.b\\|B]] |\n|---|---|"}, nil, []string{"x", "a.b"}},
		{"comment in a list item and a table", "- item %%#no%% [[a]]\n\n| [[b]] %%[[c]]%% |\n|---|\n",
			[]string{"list:1-1", "table:3-4"}, []string{"- item  [[a]]", "| [[b]]  |\n|---|"}, nil, []string{"a", "b"}},
		{"front matter is not cut", "---\ntitle: 50%% off\n---\n%%x%%\nbody\n",
			[]string{"front_matter:1-3", "paragraph:5-5"}, []string{"---\ntitle: 50%% off\n---", "body"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, "n.md", tt.src)
			if got := shape(n); !slices.Equal(got, tt.blocks) {
				t.Errorf("blocks %q, want %q", got, tt.blocks)
			}
			var texts []string
			for _, b := range n.Blocks {
				texts = append(texts, b.Text)
			}
			if !slices.Equal(texts, tt.texts) {
				t.Errorf("texts %q, want %q", texts, tt.texts)
			}
			if !slices.Equal(n.Tags, tt.tags) {
				t.Errorf("tags %q, want %q", n.Tags, tt.tags)
			}
			if !slices.Equal(n.Links, tt.links) {
				t.Errorf("links %q, want %q", n.Links, tt.links)
			}
		})
	}
	if n := mustParse(t, "n.md", "%%\n# Draft\n%%\n# Real\n"); n.Title != "Real" || len(n.Blocks[0].Heading) != 0 {
		t.Errorf("title %q, heading path %q: the comment's heading counted", n.Title, n.Blocks[0].Heading)
	}
}

func TestDendronLinks(t *testing.T) {
	src := "---\nid: abc\nupdated: 1\ntags: my.example\n---\nSee [[Label|dendron://vault/a.b#x]] and [[plain.note]].\n"
	n := mustParse(t, "n.md", src)
	if want := []string{"a.b", "plain.note"}; !slices.Equal(n.Links, want) {
		t.Errorf("links %q, want %q", n.Links, want)
	}
	if want := []string{"my.example"}; !slices.Equal(n.Tags, want) {
		t.Errorf("tags %q, want %q", n.Tags, want)
	}
}

func TestAliases(t *testing.T) {
	for src, want := range map[string][]string{
		"---\naliases: [Kaffee, the café]\n---\ntext\n":         {"Kaffee", "the café"},
		"---\naliases:\n  - one name\n  - two\n---\ntext\n":     {"one name", "two"},
		"---\nalias: Only Name\naliases: [Only Name]\n---\nx\n": {"Only Name"},
		"---\ntitle: none\n---\ntext\n":                         nil,
		"no front matter\n":                                     nil,
	} {
		if n := mustParse(t, "n.md", src); !slices.Equal(n.Aliases, want) {
			t.Errorf("%q: aliases %q, want %q", src, n.Aliases, want)
		}
	}
}

func TestFrontMatter(t *testing.T) {
	src := `---
title: "Quoted \"title\""
count: 3
ratio: 0.5
draft: false
empty:
nothing: ~
tags:
  - one
  - "two words"
aliases: [a, 'b, c', d]
nested:
  key: value
  deeper:
    k: 1
seq:
- x
- name: n
  size: 2
body: |
  line one
  line two
folded: >
  a
  b
url: https://example.com/x # comment
this line is broken
: also broken
---
`
	n := mustParse(t, "n.md", src)
	fm := n.FrontMatter
	checks := map[string]any{
		"title": `Quoted "title"`, "count": 3, "ratio": 0.5, "draft": false,
		"empty": nil, "nothing": nil, "body": "line one\nline two", "folded": "a b",
		"url": "https://example.com/x",
	}
	for k, want := range checks {
		if got, ok := fm[k]; !ok || got != want {
			t.Errorf("%s = %#v (present %v), want %#v", k, got, ok, want)
		}
	}
	if got := fmt.Sprint(fm["tags"]); got != "[one two words]" {
		t.Errorf("tags = %s", got)
	}
	if got := fmt.Sprint(fm["aliases"]); got != "[a b, c d]" {
		t.Errorf("aliases = %s", got)
	}
	if got := fmt.Sprint(fm["nested"]); got != "map[deeper:map[k:1] key:value]" {
		t.Errorf("nested = %s", got)
	}
	if got := fmt.Sprint(fm["seq"]); got != "[x map[name:n size:2]]" {
		t.Errorf("seq = %s", got)
	}
	if n.Title != `Quoted "title"` || len(n.Blocks) != 1 || n.Blocks[0].Kind != FrontMatter {
		t.Errorf("title %q blocks %v", n.Title, shape(n))
	}
}

func TestBrokenFrontMatterIsKept(t *testing.T) {
	src := "---\n: : :\n[unclosed\n\tkey: 'x\n---\n# Body\n"
	n := mustParse(t, "n.md", src)
	if got := shape(n); !slices.Equal(got, []string{"front_matter:1-5", "heading:6-6"}) {
		t.Errorf("blocks %q", got)
	}
	if n.Title != "Body" {
		t.Errorf("title %q", n.Title)
	}
}

func TestOrg(t *testing.T) {
	src := `#+TITLE: My Org
#+FILETAGS: :work:urgent:
* TODO [#A] First heading :proj:Home:
:PROPERTIES:
:ID: 123
:END:
Some text with [[file:other.org][Other]] and [[https://x.io][web]].

** Sub
#+BEGIN_SRC go
* not a heading
#+END_SRC
- item one
  continued
- item two
  * nested
| a | b |
|---+---|
-----
#+begin_quote
quoted
#+end_quote
`
	n := mustParse(t, "x.org", src)
	want := []string{"front_matter:1-2", "heading:3-3", "drawer:4-6", "paragraph:7-7", "heading:9-9",
		"code:10-12", "list:13-14", "list:15-16", "table:17-18", "thematic_break:19-19", "quote:20-22"}
	if got := shape(n); !slices.Equal(got, want) {
		t.Errorf("blocks\n got %q\nwant %q", got, want)
	}
	if n.Title != "My Org" {
		t.Errorf("title %q", n.Title)
	}
	if wantTags := []string{"proj", "home", "work", "urgent"}; !slices.Equal(n.Tags, wantTags) {
		t.Errorf("tags %q, want %q", n.Tags, wantTags)
	}
	if wantLinks := []string{"other.org"}; !slices.Equal(n.Links, wantLinks) {
		t.Errorf("links %q", n.Links)
	}
	h := n.Blocks[1]
	if h.Title != "First heading" || h.Level != 1 {
		t.Errorf("heading %+v", h)
	}
	if code := n.Blocks[5]; code.Lang != "go" || !slices.Equal(code.Heading, []string{"First heading", "Sub"}) {
		t.Errorf("code block %+v", code)
	}
}

func TestText(t *testing.T) {
	n := mustParse(t, "a.txt", "one\ntwo\n\n\nthree\r\n# four\n")
	if got := shape(n); !slices.Equal(got, []string{"paragraph:1-2", "paragraph:5-6"}) {
		t.Errorf("blocks %q", got)
	}
	if n.Format != Text || n.Tags != nil || n.Links != nil {
		t.Errorf("note %+v", n)
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{"a.md": Markdown, "b.MARKDOWN": Markdown, "c.mdx": Markdown, "d.txt": Text, "e.text": Text, "f.org": Org} {
		if got, ok := FormatOf(path); !ok || got != want {
			t.Errorf("FormatOf(%q) = %v, %v", path, got, ok)
		}
	}
	for _, path := range []string{"a.png", "b", "c.md.bak", ".md/x"} {
		if _, ok := FormatOf(path); ok {
			t.Errorf("FormatOf(%q) accepted", path)
		}
	}
}

func TestNotText(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"nul", []byte("abc\x00def"), ErrBinary},
		{"control bytes", []byte(strings.Repeat("\x01\x02\x03 text", 40)), ErrBinary},
		{"latin-1", []byte("caf\xe9 au lait"), ErrNotUTF8},
		{"utf-16", []byte("\xff\xfeh\x00i\x00"), ErrNotUTF8},
		{"invalid after sniff window", append([]byte(strings.Repeat("a", sniffLen+10)), 0xff), ErrNotUTF8},
	}
	for _, tt := range tests {
		if _, err := Parse("x.md", tt.data); !errors.Is(err, tt.want) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := Parse("x.md", []byte("\uFEFF# BOM ok\x1b[0m\n")); err != nil {
		t.Errorf("BOM and an escape: %v", err)
	}
}

// TestControlBytes: each byte below 0x20 but white space, backspace and
// escape, and DEL, counts toward binary; one in 32 bytes of the head is
// allowed, one more is not; NUL anywhere in the head is binary.
func TestControlBytes(t *testing.T) {
	for c := range 0x80 {
		counted := c < 0x20 && !strings.ContainsRune("\t\n\r\f\v\b\x1b", rune(c)) || c == 0x7F
		for _, n := range []int{2, 3} {
			head := []byte(strings.Repeat("a", 64))
			for i := range n {
				head[10+20*i] = byte(c)
			}
			binary := c == 0 || counted && n > 64/32
			if err := checkText(head); (err == ErrBinary) != binary {
				t.Errorf("byte %#x %d times in 64: err %v, binary %v", c, n, err, binary)
			}
		}
	}
}

func TestBlockIDsStable(t *testing.T) {
	before := mustParse(t, "n.md", "# A\n\npara one\n\n- x\n\npara one\n\n```\ncode\n```\n")
	after := mustParse(t, "n.md", "# A changed\n\nnew block\n\npara one  \n\n- x\n\npara one\n\n```\ncode\n```\n")
	got := func(n *Note, skip int) []string {
		var out []string
		for _, b := range n.Blocks[skip:] {
			out = append(out, b.ID)
		}
		return out
	}
	// Everything after the edited heading and the inserted block keeps
	// its id, including the second of two identical paragraphs.
	if b, a := got(before, 1), got(after, 2); !slices.Equal(b, a) {
		t.Errorf("ids changed: before %q after %q", b, a)
	}
	if before.Blocks[1].ID == before.Blocks[3].ID {
		t.Error("repeated paragraphs share an id")
	}
	if before.Blocks[0].ID == after.Blocks[0].ID {
		t.Error("edited heading kept its id")
	}
	for _, b := range before.Blocks {
		if len(b.ID) != 16 {
			t.Errorf("id %q is not 16 hex digits", b.ID)
		}
	}
}

// checkSpans asserts the invariants every note must hold: blocks in order,
// non-overlapping, within the file, Index matching position, and Text
// equal to the lines of the span.
func checkSpans(t *testing.T, name string, n *Note, lines int) {
	t.Helper()
	prev := 0
	for i, b := range n.Blocks {
		if b.Index != i {
			t.Fatalf("%s: block %d has Index %d", name, i, b.Index)
		}
		if b.StartLine <= prev || b.EndLine < b.StartLine || b.EndLine > lines {
			t.Fatalf("%s: block %d span %d-%d after line %d, file has %d lines", name, i, b.StartLine, b.EndLine, prev, lines)
		}
		if got := strings.Count(b.Text, "\n") + 1; got != b.EndLine-b.StartLine+1 {
			t.Fatalf("%s: block %d text has %d lines, span %d-%d", name, i, got, b.StartLine, b.EndLine)
		}
		prev = b.EndLine
	}
}

// TestRepeatedBlockIDs: the k-th repeat of a block gets the same id in any
// note, whatever other blocks lie between, past the count at which
// repeats go from a list to a map too; and no two blocks share one.
func TestRepeatedBlockIDs(t *testing.T) {
	var mixed, alone strings.Builder
	for range 3 * maxListedRepeats {
		mixed.WriteString("same words\n\nother words\n\n")
		alone.WriteString("same words\n\n")
	}
	idsOf := func(src, text string) (ids []string) {
		n, err := Parse("n.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		all := map[string]bool{}
		for _, b := range n.Blocks {
			if all[b.ID] {
				t.Fatalf("id %s given twice", b.ID)
			}
			all[b.ID] = true
			if b.Text == text {
				ids = append(ids, b.ID)
			}
		}
		return ids
	}
	got, want := idsOf(mixed.String(), "same words"), idsOf(alone.String(), "same words")
	if !slices.Equal(got, want) || len(got) != 3*maxListedRepeats {
		t.Fatalf("ids of a repeated block depend on the blocks between them:\n%q\n%q", got, want)
	}
}

// TestManyTagsOnce: tags and links stay de-duplicated and in order past the
// count where the set moves from a list to a map.
func TestManyTagsOnce(t *testing.T) {
	var src strings.Builder
	var want []string
	for i := range 3 * maxListedSet {
		fmt.Fprintf(&src, "#tag%d [[note%d]] ", i, i)
		want = append(want, fmt.Sprintf("tag%d", i))
	}
	for i := range 3 * maxListedSet {
		fmt.Fprintf(&src, "#tag%d [[note%d]] ", i, i) // each again
	}
	n, err := Parse("n.md", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.Tags, want) || len(n.Links) != 3*maxListedSet {
		t.Fatalf("tags %q (%d links), want %q each once", n.Tags, len(n.Links), want)
	}
}
