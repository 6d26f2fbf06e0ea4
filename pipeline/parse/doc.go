// Package parse reads a note (Markdown, plain text or Org) into blocks, each
// with a stable id, a kind and an exact 1-based line span, plus the note's
// title, front matter, tags and wikilinks. It never fails on odd text: what
// it cannot read as structure it keeps as a paragraph.
//
// The block parser is hand-written and line-based rather than a CommonMark
// library, because memd needs exact line spans and lenience over fidelity.
// Comments (Obsidian's %% %% and HTML's <!-- -->) are cut out before the
// block parser reads a note, keeping line numbers. A differential test
// holds the block boundaries to goldmark's, a CommonMark parser, over a
// real vault and generated notes. It imports no memd package.
//
// Version names the parsing rules; a store made under another Version is
// re-indexed when memd starts.
package parse
