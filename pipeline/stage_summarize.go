package pipeline

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
)

const summarySystem = "You summarize notes for a search index. Answer with one or two plain sentences that say what the text is about, and nothing else."

// Summary request limits, in tokens.
const (
	summaryTokens    = 96  // the answer
	summaryOverhead  = 128 // system turn, template and headers
	noteSummaryParts = 40  // chunk summaries shown for a note summary
)

// summarize writes a summary of every chunk and of the note with the base
// model (no adapter). The chunk summaries run at once; the note's is made
// from them (or is the one chunk's). A failed or empty answer keeps the
// fallback: no chunk summary, the extractive lead for the note. The error
// is non-nil only when the work must be redone later.
func (ms *modelStages) summarize(ctx context.Context, pn *parse.Note, o *outcome) error {
	budget := int(float64(ms.chunkContext()-summaryTokens-summaryOverhead) / tokenSafety)
	errs := make([]error, len(o.chunks))
	var wg sync.WaitGroup
	for i := range o.chunks {
		c := &o.chunks[i]
		if !c.HasTerms() {
			continue // boilerplate (or no word at all): nothing of the note's own to sum up
		}
		wg.Go(func() {
			var sb strings.Builder
			fmt.Fprintf(&sb, "Note: %s\n", pn.Title)
			if len(c.Heading) > 0 {
				fmt.Fprintf(&sb, "Section: %s\n", strings.Join(c.Heading, " > "))
			}
			sb.WriteString("\n")
			sb.WriteString(cutToTokens(c.Text, budget))
			s, err := ms.summary(ctx, sb.String())
			if err != nil {
				errs[i] = err
				return
			}
			c.Summary = s
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && aborts(ctx, err) {
			return err
		}
	}
	switch len(o.chunks) {
	case 0:
		return nil
	case 1:
		if s := o.chunks[0].Summary; s != "" {
			o.note.Summary = s
		}
		return nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Note: %s\nIts parts:\n", pn.Title)
	parts := 0
	for _, c := range o.chunks {
		if parts == noteSummaryParts {
			break
		}
		if !c.HasTerms() {
			continue
		}
		parts++
		what := c.Summary
		if what == "" {
			what = cutToTokens(strings.Join(strings.Fields(c.Text), " "), 40)
		}
		fmt.Fprintf(&sb, "- %s: %s\n", c.Title, what)
	}
	if parts == 0 {
		return nil
	}
	s, err := ms.summary(ctx, cutToTokens(sb.String(), budget))
	if err != nil {
		return nilUnlessAbort(ctx, err)
	}
	o.note.Summary = s
	return nil
}

// summary asks the base model for a summary of text and cleans the answer;
// an empty answer is an error.
func (ms *modelStages) summary(ctx context.Context, text string) (string, error) {
	answer, err := ms.complete(ctx, stageSummarize, "", summarySystem, text, summaryTokens)
	if err != nil {
		if !aborts(ctx, err) {
			ms.log.Debug("summary failed; the fallback stays", "err", err)
		}
		return "", err
	}
	s := cleanSummary(answer)
	if s == "" {
		return "", fmt.Errorf("empty summary")
	}
	return s, nil
}

func nilUnlessAbort(ctx context.Context, err error) error {
	if aborts(ctx, err) {
		return err
	}
	return nil
}

// cleanSummary keeps the first paragraph of an answer, without a
// "Summary:" label, on one line, one or two sentences long.
func cleanSummary(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i > 0 {
		s = s[:i]
	}
	for _, label := range []string{"Summary:", "summary:", "**Summary:**"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, label))
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	return leadSentences(s)
}

// cutToTokens keeps the lines of text that fit in n estimated tokens (at
// least part of the first).
func cutToTokens(text string, n int) string {
	if chunk.EstimateTokens(text) <= n {
		return text
	}
	used, end := 0, 0
	for end < len(text) {
		nl := strings.IndexByte(text[end:], '\n')
		next := len(text)
		if nl >= 0 {
			next = end + nl + 1
		}
		t := chunk.EstimateTokens(text[end:next])
		if used+t > n {
			break
		}
		used += t
		end = next
	}
	if end == 0 {
		// One long first line: keep about n words of it.
		f := strings.Fields(text)
		return strings.Join(f[:min(len(f), max(1, n*3/4))], " ")
	}
	return text[:end]
}
