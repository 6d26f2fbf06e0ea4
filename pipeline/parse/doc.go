// Package parse reads a note (Markdown, plain text or Org) into blocks, each
// with a stable id, a kind and an exact 1-based line span, plus the note's
// title, front matter, tags and wikilinks. It never fails on odd text: what
// it cannot read as structure it keeps as a paragraph.
//
// The block parser is hand-written and line-based rather than a CommonMark
// library, because memd needs exact line spans and speed: it reads whole
// top-level blocks and never builds a tree. Where its blocks start and end
// follows CommonMark (list items by content column, lazy continuation only
// of a paragraph) and GitHub's tables, held by a differential test against
// goldmark over a real vault and generated notes; the few places it parts
// from goldmark on purpose are listed in that test with why. Comments
// (Obsidian's %% %% and HTML's <!-- -->) are cut out before the block
// parser reads a note, keeping line numbers. A Parser parses many notes in
// turn (a worker's), keeping its working memory from one to the next; the
// blocks' texts are substrings of the note's content wherever they can be.
// It imports no memd package.
//
// Version names the parsing rules; a store made under another Version is
// re-indexed when memd starts.
package parse
