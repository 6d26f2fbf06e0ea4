package parse

// parseText splits plain text into paragraphs at blank lines.
func parseText(lines []string) []rawBlock {
	var blocks []rawBlock
	for i := 0; i < len(lines); i++ {
		if isBlank(lines[i]) {
			continue
		}
		j := i
		for j+1 < len(lines) && !isBlank(lines[j+1]) {
			j++
		}
		blocks = append(blocks, rawBlock{kind: Paragraph, start: i, end: j})
		i = j
	}
	return blocks
}
