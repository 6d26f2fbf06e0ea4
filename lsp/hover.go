package lsp

import (
	"context"
	"fmt"
	"strings"

	"github.com/memd-dev/memd"
)

// hoverChars caps the note text a hover shows.
const hoverChars = 1200

// hover shows, on a [[link]], the note it leads to (its summary, or the
// passage under the heading it names, and its path); on a #tag, how many
// notes carry it; on a selection sent as "range", the notes that recall
// finds for the phrase.
func (s *Server) hover(ctx context.Context, p params) (any, error) {
	var hp hoverParams
	if err := p.decode(&hp); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, interactiveTimeout)
	defer cancel()
	c, ok := s.at(ctx, hp.TextDocumentPositionParams)
	if !ok {
		return nil, nil
	}
	n := hp.Position.Line
	if span, inner, ok := linkAt(c.line, c.col); ok {
		r := c.enc.rangeOn(n, c.line, span[0], span[1])
		return s.hoverLink(ctx, c, inner, r), nil
	}
	if span, tag, ok := tagAt(c.line, c.col); ok {
		r := c.enc.rangeOn(n, c.line, span[0], span[1])
		return s.hoverTag(ctx, c, tag, r), nil
	}
	if hp.Range != nil && hp.Range.Start != hp.Range.End {
		return s.hoverPhrase(ctx, c, *hp.Range), nil
	}
	return nil, nil
}

func markdown(text string, r *Range) *Hover {
	return &Hover{Contents: MarkupContent{Kind: "markdown", Value: text}, Range: r}
}

func (s *Server) hoverLink(ctx context.Context, c cursor, inner string, r Range) *Hover {
	to, ok := s.resolve(ctx, c, inner)
	if !ok {
		return markdown(fmt.Sprintf("No note in memd's folders is named “%s”.", inner), &r)
	}
	d, err := c.mem.Note(ctx, to.Path)
	s.link.failed(c.mem, err)
	if err != nil {
		return markdown(fmt.Sprintf("**%s** · `%s`", to.Title, s.relPath(ctx, c.mem, to.Path)), &r)
	}
	body := d.Summary
	if to.Heading != "" || body == "" {
		body = passageAt(d, to.Line)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", d.Title)
	if to.Heading != "" {
		fmt.Fprintf(&b, " › %s", to.Heading)
	}
	fmt.Fprintf(&b, " · `%s`\n\n%s", s.relPath(ctx, c.mem, d.Path), clip(body, hoverChars))
	return markdown(b.String(), &r)
}

// passageAt is the text of the note's chunk holding line, else of its
// first chunk.
func passageAt(d memd.NoteDetail, line int) string {
	for _, ch := range d.Chunks {
		if ch.StartLine <= line && line <= ch.EndLine {
			return ch.Text
		}
	}
	if len(d.Chunks) > 0 {
		return d.Chunks[0].Text
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexAny(s[:n], " \n")
	if cut < n/2 {
		cut = n
	}
	return strings.ToValidUTF8(s[:cut], "") + " …"
}

func (s *Server) hoverTag(ctx context.Context, c cursor, tag string, r Range) *Hover {
	res, err := c.mem.Tags(ctx, memd.TagsRequest{Prefix: tag, Limit: memd.MaxLimit})
	s.link.failed(c.mem, err)
	if err != nil {
		return nil
	}
	count := 0
	for _, t := range res.Tags {
		if t.Tag == tag {
			count = t.Notes
		}
	}
	if count == 0 {
		return markdown(fmt.Sprintf("`#%s`: no indexed note carries it yet.", tag), &r)
	}
	return markdown(fmt.Sprintf("`#%s`: %s carry it.", tag, notesCount(count)), &r)
}

// hoverPhraseHits is how many notes a phrase's hover lists.
const hoverPhraseHits = 5

func (s *Server) hoverPhrase(ctx context.Context, c cursor, r Range) *Hover {
	phrase := selection(c.doc, r, c.enc)
	if strings.TrimSpace(phrase) == "" {
		return nil
	}
	res, err := c.mem.Recall(ctx, memd.RecallRequest{Query: clip(phrase, maxQuery), K: hoverPhraseHits + 1})
	s.link.failed(c.mem, err)
	if err != nil || len(res.Hits) == 0 {
		return nil
	}
	var b strings.Builder
	shown := 0
	for _, h := range res.Hits {
		if h.Path == c.doc.path || shown == hoverPhraseHits {
			continue
		}
		shown++
		fmt.Fprintf(&b, "- **%s** · `%s:%d` — %s\n", h.Title, folderRel(h), h.StartLine,
			firstWords(h.Text, 16))
	}
	if shown == 0 {
		return nil
	}
	return markdown(b.String(), &r)
}

// selection is the buffer's text in r.
func selection(d *document, r Range, enc encoding) string {
	start, end := offsetOf(d, r.Start, enc), offsetOf(d, r.End, enc)
	if end < start {
		start, end = end, start
	}
	return d.text()[start:end]
}

// maxQuery caps the text sent as a recall query: a paragraph, not a note.
const maxQuery = 2000
