package lexical

// isStopWord reports whether w is one of Lucene's English stop words, the
// 33-word list the BM25 baselines we compare against (Anserini) remove.
// A short list keeps phrases like "to be or not to be" mostly findable.
func isStopWord(w []byte) bool {
	switch string(w) {
	case "a", "an", "and", "are", "as", "at", "be", "but", "by",
		"for", "if", "in", "into", "is", "it", "no", "not", "of",
		"on", "or", "such", "that", "the", "their", "then", "there",
		"these", "they", "this", "to", "was", "will", "with":
		return true
	}
	return false
}
