package llama

import (
	"fmt"
	"math"
	"runtime"
)

// Tokenize converts text to tokens. addSpecial adds BOS/EOS as the model
// asks; parseSpecial turns control-token text (e.g. "<start_of_turn>") into
// those tokens instead of plain text. Safe for concurrent use.
func (m *Model) Tokenize(text string, addSpecial, parseSpecial bool) ([]int32, error) {
	b := []byte(text + "\x00")
	toks := make([]int32, len(text)+8)
	for {
		n := m.lib.fn.tokenize(m.vocab, &b[0], int32(len(text)), &toks[0], int32(len(toks)), addSpecial, parseSpecial)
		runtime.KeepAlive(b)
		switch {
		case n == math.MinInt32:
			return nil, fmt.Errorf("%w: result too large", ErrTokenize)
		case n < 0:
			toks = make([]int32, -n)
			continue
		}
		return toks[:n], nil
	}
}

// TokenPiece is the text of one token as a reader sees it: control tokens
// render as "" (use TokenPieceSpecial to see them). The piece may be part
// of a UTF-8 sequence (byte tokens).
func (m *Model) TokenPiece(tok int32) string { return m.TokenPieceSpecial(tok, false) }

// TokenPieceSpecial is TokenPiece; with special set, control tokens render
// as their text (e.g. "<end_of_turn>").
func (m *Model) TokenPieceSpecial(tok int32, special bool) string {
	buf := make([]byte, 64)
	for {
		n := m.lib.fn.tokenToPiece(m.vocab, tok, &buf[0], int32(len(buf)), 0, special)
		if n < 0 {
			buf = make([]byte, -n)
			continue
		}
		return string(buf[:n])
	}
}

// Detokenize converts tokens back to text, dropping a leading BOS and
// leaving control tokens out, so Detokenize(Tokenize(s, addSpecial, false))
// gives s back for text the vocabulary covers. (llama.cpp alone keeps the
// space SPM tokenizers prefix when BOS leads; dropping BOS first removes it.)
func (m *Model) Detokenize(toks []int32) string {
	if len(toks) > 0 && toks[0] == m.BOS() {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return ""
	}
	buf := make([]byte, len(toks)*8+16)
	for {
		n := m.lib.fn.detokenize(m.vocab, &toks[0], int32(len(toks)), &buf[0], int32(len(buf)), true, false)
		if n < 0 {
			buf = make([]byte, -n)
			continue
		}
		return string(buf[:n])
	}
}

// IsEOG reports whether tok ends generation (EOS, EOT, <end_of_turn>, ...).
func (m *Model) IsEOG(tok int32) bool { return m.lib.fn.vocabIsEOG(m.vocab, tok) }

// BOS is the beginning-of-sequence token, -1 if none.
func (m *Model) BOS() int32 { return m.lib.fn.vocabBOS(m.vocab) }

// EOS is the end-of-sequence token, -1 if none.
func (m *Model) EOS() int32 { return m.lib.fn.vocabEOS(m.vocab) }
