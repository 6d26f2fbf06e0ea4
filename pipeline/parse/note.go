package parse

import (
	"bytes"
	"path/filepath"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Format is the syntax a note is written in.
type Format int

const (
	Markdown Format = iota
	Text
	Org
)

func (f Format) String() string {
	switch f {
	case Markdown:
		return "markdown"
	case Text:
		return "text"
	case Org:
		return "org"
	}
	return "unknown"
}

// FormatOf returns the format of a note by its file extension (case is
// ignored), and false for files that are not notes.
func FormatOf(path string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown", ".mdown", ".mkd", ".mdx":
		return Markdown, true
	case ".txt", ".text":
		return Text, true
	case ".org":
		return Org, true
	}
	return 0, false
}

// Kind is what a block is.
type Kind int

const (
	Paragraph Kind = iota
	Heading
	List // one top-level list item with everything nested under it
	Code // fenced or indented code; Org source and example blocks
	Table
	Quote
	FrontMatter // YAML front matter, or Org's leading #+KEY: lines
	ThematicBreak
	HTML
	Drawer // an Org drawer such as :PROPERTIES: ... :END:
)

var kindNames = [...]string{"paragraph", "heading", "list", "code", "table",
	"quote", "front_matter", "thematic_break", "html", "drawer"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Block is one structural unit of a note.
type Block struct {
	Index int    // ordinal in the note, 0-based: the number the chunk model sees
	ID    string // 16 hex digits; depends only on the block's kind, text and how many identical blocks precede it, so editing other blocks leaves it unchanged
	Kind  Kind
	// Level is the heading level (1–6) of a Heading, the deepest nesting
	// (1 = flat) of a List, the depth of a Quote, else 0.
	Level     int
	StartLine int // 1-based, inclusive
	EndLine   int // 1-based, inclusive; StartLine <= EndLine
	// Text is the source lines StartLine..EndLine joined by "\n", with line
	// endings ("\r\n" or "\n") and Markdown comments removed.
	Text string
	// Heading is the path of headings in effect, outermost first; for a
	// Heading block its ancestors, not itself. Blocks share these slices:
	// do not modify them.
	Heading []string
	Lang    string // the info word of a code fence or Org source block
	// Title is a Heading's text without its markers (#, stars, TODO
	// keywords, Org tags); empty for other kinds.
	Title string
}

// Note is a parsed note.
type Note struct {
	Format Format
	// Title is the front matter title, else the first level-1 heading
	// (#+TITLE for Org), else the file name without its extension.
	Title string
	// Aliases are the other names the front matter gives the note
	// ("aliases" or "alias"), in order, de-duplicated; links may name the
	// note by any of them.
	Aliases []string
	// FrontMatter holds the YAML front matter read leniently: values are
	// string, bool, int, float64, nil, []any or map[string]any. Lines it
	// cannot read are skipped; nil when the note has none. For Org it holds
	// the leading #+KEY: lines, keys lower-cased, values strings.
	FrontMatter map[string]any
	// Tags are the front matter tags and inline #tags outside code,
	// lower-cased, without '#', de-duplicated, in order of appearance;
	// nested tags such as "a/b" and "role.dev" are kept whole.
	Tags []string
	// Links are the targets of [[wikilinks]] (Org: [[target][desc]]) with
	// aliases and #anchors stripped, de-duplicated, in order.
	Links []string
	// Blocks are in file order, non-overlapping; every line of the file
	// with more than white space and comments belongs to exactly one
	// block. A Markdown block's Text leaves out the comments in it.
	Blocks []Block

	src string // the content parsed, less a byte-order mark
}

// Source is the content the note was parsed from, less a leading
// byte-order mark. A block's Text is a substring of it unless a comment was
// cut from the block or its lines ended in "\r\n".
func (n *Note) Source() string { return n.src }

// Version names the parsing rules. It is bumped whenever a change would
// give some note other blocks, spans, tags or links, and the store
// re-indexes on a change. 2: fences inside list items and quotes hold
// their lines, and tags and links skip exactly the fences found. 3: list
// items and quotes end where CommonMark ends them (content columns, lazy
// lines only after a paragraph), table rows need no pipe, an HTML tag
// opens a block only alone on its line; comments (%% %% and <!-- -->)
// are cut out; an escaped pipe ends a table wikilink's target.
// 4: front matter aliases are read.
const Version = 4

// Parse parses a note. The path gives the format (FormatOf; an unknown
// extension is read as Text) and the fallback title; content is not read
// from disk. It returns ErrBinary or ErrNotUTF8 for content that is not
// UTF-8 text, and no other error: malformed structure never fails.
//
// The Note's strings share content's memory rather than copy it (a note is
// read once and parsed once): content must not change afterwards.
func Parse(path string, content []byte) (*Note, error) {
	var p Parser
	return p.Parse(path, content)
}

// Parser parses notes as Parse does, keeping the memory it works in (the
// lines, the blocks as found, the repeat counts) from one note to the
// next, so a worker parsing many notes allocates only what the notes keep.
// The zero value is ready to use; a Parser is not safe for concurrent use.
type Parser struct {
	lines []string
	offs  []int
	md    mdParser
	seen  repeats
}

// Parse parses a note as the package's Parse does. The Note shares no
// memory with p.
func (p *Parser) Parse(path string, content []byte) (*Note, error) {
	if err := checkText(content); err != nil {
		return nil, err
	}
	src := strings.TrimPrefix(unsafe.String(unsafe.SliceData(content), len(content)), "\uFEFF")
	p.lines, p.offs = splitLines(src, p.lines[:0], p.offs[:0])
	lines := p.lines
	format, ok := FormatOf(path)
	if !ok {
		format = Text
	}
	n := &Note{Format: format, src: src}
	var raws []rawBlock
	var cut []int // lines with comments cut out of them
	switch format {
	case Markdown:
		raws, lines, cut = p.md.parse(src, lines, n)
	case Org:
		raws = parseOrg(lines, n)
	default:
		raws = parseText(lines)
	}
	p.seen.reset()
	n.Blocks = finish(src, lines, p.offs, cut, raws, &p.seen)
	if n.Title == "" {
		n.Title = firstH1(n.Blocks)
	}
	if n.Title == "" {
		base := filepath.Base(path)
		n.Title = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return n, nil
}

// sniffLen is how much of a file the binary check reads, as git and grep do.
const sniffLen = 8 << 10

func checkText(b []byte) error {
	if len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF) {
		return ErrNotUTF8 // UTF-16 would otherwise pass as binary for its NULs
	}
	head := b[:min(len(b), sniffLen)]
	if bytes.IndexByte(head, 0) >= 0 {
		return ErrBinary
	}
	control := 0
	for _, c := range head {
		control += int(controlByte[c])
	}
	if control > len(head)/32 {
		return ErrBinary
	}
	if !utf8.Valid(b) {
		return ErrNotUTF8
	}
	return nil
}

// controlByte is 1 for the control bytes that make a file look binary:
// those below 0x20 but for white space, backspace and escape, and DEL.
// A table, not a chain of compares per byte of every note.
var controlByte = func() (t [256]byte) {
	for c := range 0x20 {
		switch c {
		case '\t', '\n', '\r', '\f', '\v', '\b', 0x1B:
		default:
			t[c] = 1
		}
	}
	t[0x7F] = 1
	return t
}()

func firstH1(blocks []Block) string {
	for _, b := range blocks {
		if b.Kind == Heading && b.Level == 1 && b.Title != "" {
			return b.Title
		}
	}
	return ""
}
