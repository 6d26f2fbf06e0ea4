package vector

import (
	"strings"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

// Document formats: how a chunk reads to the embedder. The query side
// (QueryText) follows the same model test, so queries and documents agree.
const (
	FormatGemma = "gemma" // EmbeddingGemma: "title: {title} | text: {heading path}\n{text}"
	FormatPlain = "plain" // "{title}\n{heading path}\n{text}"
)

// FormatFor picks the document format: EmbeddingGemma's for a model whose
// architecture or name says it is one, else plain.
func FormatFor(info inference.ModelInfo) string {
	if info.IsEmbeddingGemma() {
		return FormatGemma
	}
	return FormatPlain
}

// DocumentText is a chunk as the embedder reads it: with its title and
// heading path, in the model's document format.
func DocumentText(format string, c *store.Chunk) string {
	heading := strings.Join(c.Heading, " > ")
	body := c.Text
	if heading != "" && heading != c.Title {
		body = heading + "\n" + c.Text
	}
	if format == FormatGemma {
		title := c.Title
		if title == "" {
			title = "none"
		}
		return "title: " + title + " | text: " + body
	}
	if c.Title == "" {
		return body
	}
	return c.Title + "\n" + body
}

// QueryText is q in the query format of the embedding model info
// describes: EmbeddingGemma was trained with "task: search result | query:
// …" (its documents as "title: … | text: …"); other models take the query
// as it is.
func QueryText(info inference.ModelInfo, q string) string {
	if info.IsEmbeddingGemma() {
		return "task: search result | query: " + q
	}
	return q
}
