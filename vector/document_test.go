package vector

import (
	"testing"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

func TestDocumentText(t *testing.T) {
	c := &store.Chunk{Title: "Watering", Heading: []string{"Garden", "Watering"}, Text: "Twice a week."}
	if got := DocumentText(FormatGemma, c); got != "title: Watering | text: Garden > Watering\nTwice a week." {
		t.Errorf("gemma: %q", got)
	}
	if got := DocumentText(FormatPlain, &store.Chunk{Text: "x"}); got != "x" {
		t.Errorf("plain untitled: %q", got)
	}
	if f := FormatFor(inference.ModelInfo{Architecture: "gemma-embedding"}); f != FormatGemma {
		t.Errorf("format for EmbeddingGemma: %q", f)
	}
	if f := FormatFor(inference.ModelInfo{Architecture: "bert", Name: "nomic"}); f != FormatPlain {
		t.Errorf("format for bert: %q", f)
	}
}

func TestQueryText(t *testing.T) {
	gemma := inference.ModelInfo{Architecture: "gemma-embedding"}
	if got := QueryText(gemma, "tyres"); got != "task: search result | query: tyres" {
		t.Errorf("gemma: %q", got)
	}
	if got := QueryText(inference.ModelInfo{Architecture: "gemma3", Name: "Embedding-Gemma 300m"}, "tyres"); got != "task: search result | query: tyres" {
		t.Errorf("gemma by name: %q", got)
	}
	if got := QueryText(inference.ModelInfo{Architecture: "bert"}, "tyres"); got != "tyres" {
		t.Errorf("generic: %q", got)
	}
}
