package inference

import (
	"strings"
	"unicode/utf8"
)

// textOutput assembles a row's text from token pieces. It finds stop strings
// that span token boundaries and holds back any tail that could still turn
// into a stop string or that ends inside a UTF-8 character, so what it
// releases is final.
type textOutput struct {
	stop     []string
	text     []byte
	released int
	stopped  bool
}

func newTextOutput(stop []string) *textOutput {
	o := &textOutput{}
	for _, s := range stop {
		if s != "" {
			o.stop = append(o.stop, s)
		}
	}
	return o
}

// add appends a token's piece. It returns the text that is now final, and
// whether a stop string matched (the text is then cut where it begins and
// nothing more may be added).
func (o *textOutput) add(piece string) (release string, stopped bool) {
	o.text = append(o.text, piece...)
	// A stop string cannot begin inside released text: whatever could have
	// started one was held back.
	tail := string(o.text[o.released:])
	cut := -1
	for _, s := range o.stop {
		if i := strings.Index(tail, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		o.text = o.text[:o.released+cut]
		o.stopped = true
		return o.take(len(o.text)), true
	}
	end := len(o.text) - o.heldForStop(tail)
	end = completeUTF8(o.text, o.released, end)
	return o.take(end), false
}

// flush releases everything not yet released, at the end of generation.
func (o *textOutput) flush() string { return o.take(len(o.text)) }

func (o *textOutput) take(end int) string {
	if end <= o.released {
		return ""
	}
	s := string(o.text[o.released:end])
	o.released = end
	return s
}

// heldForStop is the length of the longest suffix of tail that is a proper
// prefix of some stop string.
func (o *textOutput) heldForStop(tail string) int {
	held := 0
	for _, s := range o.stop {
		for k := min(len(s)-1, len(tail)); k > held; k-- {
			if strings.HasSuffix(tail, s[:k]) {
				held = k
				break
			}
		}
	}
	return held
}

// completeUTF8 moves end back so text[from:end] does not end inside a
// multi-byte character that more bytes could still complete.
func completeUTF8(text []byte, from, end int) int {
	for back := 1; back <= utf8.UTFMax && end-back >= from; back++ {
		b := text[end-back]
		if utf8.RuneStart(b) {
			if !utf8.FullRune(text[end-back : end]) {
				return end - back
			}
			return end
		}
	}
	return end
}
