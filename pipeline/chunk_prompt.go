package pipeline

import (
	"fmt"
	"strings"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
)

// chunkPromptVersion changes whenever the chunk prompt does; it is part of
// the chunker fingerprint, so a new prompt re-chunks every note.
const chunkPromptVersion = 1

const chunkSystem = `Group the numbered blocks into chunks of one topic each (100-400 tokens, often starting at a heading), covering every block once, in order. Answer JSON only: {"chunks":[{"start":B,"end":B,"title":"..."}]}`

// Window sizing, in estimated tokens.
const (
	blockLineChars  = 240 // text of a block shown to the chunk model, in bytes
	windowMaxBlocks = 60
	windowOverlap   = 4    // blocks two windows share
	templateTokens  = 48   // chat template markup and the user turn's header
	tokenSafety     = 1.35 // real tokenizers give more than EstimateTokens on some text
)

// blockLine is how the chunk model sees one block: its number, kind, size
// and the start of its text on one line.
func blockLine(b *parse.Block) string {
	text := strings.Join(strings.Fields(b.Text), " ")
	if len(text) > blockLineChars {
		text = prefixUTF8(text, blockLineChars) + " …"
	}
	return fmt.Sprintf("[%d] %s (%d tokens): %s", b.Index, b.Kind, chunk.EstimateTokens(b.Text), text)
}

// chunkUser is the user turn of a chunk request for blocks[lo..hi] of n.
func chunkUser(n *parse.Note, lines []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Note: %s\nBlocks:\n", n.Title)
	for _, l := range lines {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// answerTokens bounds the answer for a window of n blocks: a chunk entry is
// about 20 tokens and there are at most n chunks.
func answerTokens(n int) int { return min(768, 32+20*n) }

// chunkWindow is one chunk request's blocks, content block positions
// [lo, hi], and its core [coreLo, coreHi]: the blocks whose chunk starts
// this window's answer decides.
type chunkWindow struct {
	lo, hi         int
	coreLo, coreHi int
}

// planWindows splits the content blocks (their prompt lines' token
// estimates in cost) into windows that fit budget tokens each, prompt and
// answer, overlapping by windowOverlap blocks. A window always takes at
// least one block. The cores partition 0..len(cost)-1.
func planWindows(cost []int, budget int) []chunkWindow {
	var ws []chunkWindow
	for start := 0; start < len(cost); {
		end, used := start, cost[start]
		for end+1 < len(cost) && end+1-start < windowMaxBlocks &&
			used+cost[end+1]+answerTokens(end+2-start) <= budget {
			end++
			used += cost[end]
		}
		ws = append(ws, chunkWindow{lo: start, hi: end})
		if end == len(cost)-1 {
			break
		}
		// Overlap by at most a quarter of the window, so windows advance.
		start = max(start+1, end+1-min(windowOverlap, (end+1-start)/4))
	}
	for i := range ws {
		ws[i].coreLo, ws[i].coreHi = ws[i].lo, ws[i].hi
		if i > 0 {
			// Split the shared blocks between the two windows.
			shared := ws[i-1].hi - ws[i].lo + 1
			ws[i].coreLo = ws[i].lo + max(0, shared)/2
			ws[i-1].coreHi = ws[i].coreLo - 1
		}
	}
	return ws
}

// plainPrompt renders a request for a model without a chat template.
func plainPrompt(system, user string) string {
	return system + "\n\n" + user + "\nAnswer:"
}
